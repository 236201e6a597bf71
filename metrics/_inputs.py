"""Per-example inputs that callers may leave out (``contexts``, ``intervention_ids``).

evaluate knows no optional inputs: whatever is not a feature is a ``compute()`` option, which
evaluate's distributed mode does not gather, so process 0 would see its own contexts beside
every process's predictions. Here such an input is a feature (stored beside the predictions
by ``add_batch`` and gathered from every process, in order), and a batch without it stores
None for it. ``_compute`` then asks :meth:`OptionalInputs.optional` for the column: None when
no example has it.
"""

from __future__ import annotations

__all__ = ["OptionalInputs"]


def _length(value) -> int | None:
    return None if value is None else len(value)


class OptionalInputs:
    """Mixin for ``evaluate.Metric``: ``OPTIONAL_INPUTS`` maps each such input to its plain
    ``INPUTS`` type (see :mod:`argbench.scoring`); the features are ``INPUTS`` and these.

    Given only at ``compute()`` after ``add_batch`` (without predictions), the input is used
    as given, as before it was a feature: that works in one process only.
    """

    OPTIONAL_INPUTS: dict[str, object] = {}

    def _fill(self, kwargs: dict, n: int | None) -> None:
        for name in self.OPTIONAL_INPUTS:
            if kwargs.get(name) is None and n is not None:
                kwargs[name] = [None] * n

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch (optional inputs may be left out)."""
        self._fill(kwargs, _length(predictions))
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one example (optional inputs may be left out)."""
        for name in self.OPTIONAL_INPUTS:
            kwargs.setdefault(name, None)
        return super().add(prediction=prediction, reference=reference, **kwargs)

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Compute (optional inputs may be left out, or given here after add_batch)."""
        self._late = {}
        if predictions is None and references is None:
            for name in self.OPTIONAL_INPUTS:
                if kwargs.get(name) is not None:
                    self._late[name] = list(kwargs.pop(name))
        self._fill(kwargs, _length(predictions))
        return super().compute(predictions=predictions, references=references, **kwargs)

    def _enforce_nested_string_type(self, schema, obj):
        # evaluate checks each column's first value; None is how a left-out input is stored
        if obj is None and any(schema is self.features[n] for n in self.OPTIONAL_INPUTS):
            return None
        return super()._enforce_nested_string_type(schema, obj)

    def optional(self, name: str, column) -> list | None:
        """The input ``name`` for every example, or None when no example has it."""
        late = getattr(self, "_late", {}).get(name)
        given = [i for i, value in enumerate(column) if value is not None]
        if late is not None:
            if given:
                raise ValueError(f"{name} given both to add_batch and to compute: give it once")
            return late
        if not given:
            return None
        if len(given) < len(column):
            first = next(i for i, value in enumerate(column) if value is None)
            raise ValueError(
                f"{name}[{first}] is missing but {name}[{given[0]}] is given: give {name} for "
                "every example or for none (in every process, in distributed evaluation)"
            )
        return list(column)
