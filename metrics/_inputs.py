"""The raw inputs of a metric module, checked before evaluate's Features encode them.

Why: evaluate encodes every input with the module's Features, and encoding coerces: an int64
feature turns 1.9 into 1, a float64 feature turns "2" into 2.0 and True into 1.0, a string
feature turns 5 into "5" (evaluate checks only the first example's type), and Arrow fails on a
lone surrogate without naming the field. So ``compute``, ``add_batch`` and ``add`` first check
each value against the metric's plain ``INPUTS`` with ``argbench.scoring._checks.check_value``
(as the command line does); range checks (a label 0..3, a finite rating) stay in the plain
functions, which see the same values.

Optional per-example inputs (``contexts``, ``intervention_ids``): evaluate knows none; whatever
is not a feature is a ``compute()`` option, which evaluate's distributed mode does not gather,
so process 0 would see its own contexts beside every process's predictions.
:class:`OptionalInputs` makes them features (stored beside the predictions by ``add_batch``
and gathered from every process, in order) that a batch may leave out (stored as None).
"""

from __future__ import annotations

from argbench.scoring._checks import as_plain, check_inputs, check_value

__all__ = ["CheckedInputs", "OptionalInputs"]


class CheckedInputs:
    """Mixin for an ``evaluate.Metric`` whose class sets ``INPUTS`` (the plain description
    its Features are built from)."""

    INPUTS: dict = {}

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch of examples, each checked first (evaluate appends the inputs' docs)."""
        predictions, references = as_plain(predictions), as_plain(references)
        kwargs = {k: as_plain(v) if k in self.INPUTS else v for k, v in kwargs.items()}
        batch = {"predictions": predictions, "references": references, **kwargs}
        check_inputs(batch, self.INPUTS)
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one example, checked first (evaluate appends the inputs' docs)."""
        prediction, reference = as_plain(prediction), as_plain(reference)
        example = {"predictions": prediction, "references": reference, **kwargs}
        for name, value in example.items():
            if value is not None and name in self.INPUTS:
                where = {"predictions": "prediction", "references": "reference"}.get(name, name)
                check_value(value, self.INPUTS[name], where)
        return super().add(prediction=prediction, reference=reference, **kwargs)


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
        for name, spec in self.OPTIONAL_INPUTS.items():
            column = kwargs.get(name)
            if isinstance(column, (str, bytes, dict)) or not hasattr(column, "__iter__"):
                raise TypeError(f"{name} must be a list (one item per example), got {column!r:.80}")
            for index, value in enumerate(column):
                if value is not None:  # None: this example has no such input
                    check_value(value, spec, f"{name}[{index}]")
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one example (optional inputs may be left out)."""
        for name, spec in self.OPTIONAL_INPUTS.items():
            if kwargs.setdefault(name, None) is not None:
                check_value(kwargs[name], spec, name)
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
