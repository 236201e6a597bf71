"""The metric algorithms: one module per metric, plain functions over Python/numpy data.

Each metric's module ``argbench.scoring.<name>`` has the function ``<name>`` (what the
evaluate module ``metrics/<name>/`` computes, same options) and ``INPUTS``, the metric's
features in a plain form: ``"string"`` / ``"int64"`` / ``"float64"`` for a value, ``[x]`` for a
list of x, ``{field: x}`` for a record, :class:`Labels` for class labels. The evaluate module
turns ``INPUTS`` into ``datasets.Features`` with :func:`features`; the command line checks
records against ``INPUTS`` and calls the function without importing evaluate or datasets.
Each number is defined in the metric's card.

Beside the metrics, what scores with them: ``headline`` (each metric's figure),
``significance`` (bootstrap intervals, paired tests) and ``cq_submissions`` (the CQs-Gen §6.1
protocol: the shared task's submissions scored by ``cq_reference_match`` against each other).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Labels:
    """Class labels: a name or its index (``datasets.ClassLabel``)."""

    names: tuple[str, ...]


def features(inputs: dict):
    """``datasets.Features`` of a plain ``INPUTS`` description."""
    import datasets

    def feature(spec):
        if isinstance(spec, Labels):
            return datasets.ClassLabel(names=list(spec.names))
        if isinstance(spec, list):
            (item,) = spec
            return datasets.List(feature(item))
        if isinstance(spec, dict):
            return {name: feature(sub) for name, sub in spec.items()}
        return datasets.Value(spec)

    return datasets.Features({name: feature(spec) for name, spec in inputs.items()})


def metric_function(name: str):
    """(``argbench.scoring.<name>.<name>``, its ``INPUTS``): the metric without evaluate."""
    module = importlib.import_module(f"{__name__}.{name}")
    return getattr(module, name), module.INPUTS
