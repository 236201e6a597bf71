"""The raw inputs of a metric module, checked before evaluate's Features encode them.

Why: evaluate encodes every input with the module's Features, and encoding coerces: an int64
feature turns 1.9 into 1, a float64 feature turns "2" into 2.0 and True into 1.0, a string
feature turns 5 into "5" (evaluate checks only the first example's type), and Arrow fails on a
lone surrogate without naming the field. So ``compute``, ``add_batch`` and ``add`` first check
each value against the metric's plain ``INPUTS`` with ``argbench.scoring._checks.check_value``
(as the command line does); range checks (a label 0..3, a finite rating) stay in the plain
functions, which see the same values.
"""

from __future__ import annotations

from argbench.scoring._checks import check_inputs, check_value


class CheckedInputs:
    """Mixin for an ``evaluate.Metric`` whose class sets ``INPUTS`` (the plain description
    its Features are built from)."""

    INPUTS: dict = {}

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch of examples, each checked first (evaluate appends the inputs' docs)."""
        batch = {"predictions": predictions, "references": references, **kwargs}
        check_inputs(batch, self.INPUTS)
        return super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one example, checked first (evaluate appends the inputs' docs)."""
        example = {"predictions": prediction, "references": reference, **kwargs}
        for name, value in example.items():
            if value is not None and name in self.INPUTS:
                where = {"predictions": "prediction", "references": "reference"}.get(name, name)
                check_value(value, self.INPUTS[name], where)
        return super().add(prediction=prediction, reference=reference, **kwargs)
