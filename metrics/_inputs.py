"""The raw inputs of a metric module, checked against its Features before evaluate encodes them.

Why: evaluate encodes every input with the module's Features, and encoding coerces: an int64
feature turns 1.9 into 1, a float64 feature turns "2" into 2.0 and True into 1.0, a string
feature turns 5 into "5" (evaluate checks only the first example's type), and Arrow fails on a
lone surrogate without naming the field. So each value is checked exactly (an int is an int,
not a float or a bool) and errors name the input, example index and field. Range checks
(a label 0..3, a finite rating) stay in the plain functions, which see the same values.
The command line checks its records with the same :func:`check_value`.
"""

from __future__ import annotations

import numbers

from argbench.scoring._checks import check_text


def _is_text(feature) -> bool:
    import datasets

    return isinstance(feature, datasets.Value) and feature.dtype in ("string", "large_string")


def check_value(value, feature, where: str) -> None:
    """``value`` fits ``feature`` as it is (None allowed inside lists: metrics treat unknowns)."""
    import datasets

    def fail(expected):
        raise TypeError(f"{where}: expected {expected}, got {value!r:.80}")

    if isinstance(feature, dict):
        if not isinstance(value, dict):
            fail(f"an object with {', '.join(feature)}")
        for key, sub in feature.items():
            if key not in value:
                fail(f"an object with {', '.join(feature)} (no {key!r})")
            check_value(value[key], sub, f"{where}.{key}")
    elif isinstance(feature, (datasets.List, datasets.LargeList, datasets.Sequence)):
        if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__"):
            fail("a list")
        for j, item in enumerate(value):
            if item is not None:
                check_value(item, feature.feature, f"{where}[{j}]")
    elif isinstance(feature, datasets.ClassLabel):
        is_index = isinstance(value, numbers.Integral) and not isinstance(value, bool)
        if value not in feature.names and not (is_index and 0 <= value < feature.num_classes):
            raise ValueError(
                f"{where}: expected one of {feature.names} or its index, got {value!r:.80}"
            )
    elif _is_text(feature):
        if not isinstance(value, str):
            fail("a string")
        check_text(value, where)
    elif feature.dtype.startswith(("int", "uint")):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            fail("an integer")
    elif feature.dtype.startswith("float"):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            fail("a number")


def check_inputs(inputs: dict, features) -> None:
    """Every example of every input that is a feature (``{name: column}``)."""
    for name, column in inputs.items():
        if column is None or name not in features:
            continue  # evaluate reports missing inputs itself
        if isinstance(column, (str, bytes, dict)) or not hasattr(column, "__iter__"):
            raise TypeError(f"{name} must be a list (one item per example), got {column!r:.80}")
        for index, value in enumerate(column):
            check_value(value, features[name], f"{name}[{index}]")


class CheckedInputs:
    """Mixin for an ``evaluate.Metric``: ``compute``, ``add_batch`` and ``add`` check the raw
    inputs with :func:`check_inputs` before evaluate's Features encode (and coerce) them."""

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch of examples, each checked first (evaluate appends the inputs' docs)."""
        batch = {"predictions": predictions, "references": references, **kwargs}
        check_inputs(batch, self.features)
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one example, checked first (evaluate appends the inputs' docs)."""
        example = {"predictions": prediction, "references": reference, **kwargs}
        for name, value in example.items():
            if value is not None and name in self.features:
                where = {"predictions": "prediction", "references": "reference"}.get(name, name)
                check_value(value, self.features[name], where)
        return super().add(prediction=prediction, reference=reference, **kwargs)
