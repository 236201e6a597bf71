"""The metric algorithms: one module per metric, plain functions over Python/numpy data.

Each metric's module ``argbench.scoring.<name>`` has the function ``<name>`` (what the
evaluate module ``metrics/<name>/`` computes, same options) and ``INPUTS``, the metric's
features in a plain form: ``"string"`` / ``"int64"`` / ``"float64"`` for a value, ``[x]`` for a
list of x, ``{field: x}`` for a record, :class:`Labels` for class labels. The evaluate module
turns ``INPUTS`` into ``datasets.Features`` with :func:`features`; the command line checks
records against ``INPUTS`` and calls the function without importing evaluate or datasets.
Each number is defined in the metric's card. Each metric module also declares its own facts,
``METRIC`` (:class:`argbench.scoring.declaration.Metric`: input columns, headline, direction,
aggregation, harness figures, evaluate module type); :func:`declared_metrics` finds them, as
``argbench.list_metrics`` finds the ``metrics/<name>/`` folders.

Beside the metrics, what scores with them: ``significance`` (bootstrap intervals, paired tests) and ``cq_submissions`` (the CQs-Gen §6.1
protocol: the shared task's submissions scored by ``cq_reference_match`` against each other).
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from dataclasses import dataclass

from argbench.scoring.declaration import Headline, Metric


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


@functools.cache
def _declared_in(name: str) -> Metric | None:
    """The ``METRIC`` of module ``argbench.scoring.<name>``, None when there is no such metric
    module: one metric's facts cost one module's import, not every metric's."""
    if not name.isidentifier() or name.startswith("_") or name == "declaration":
        return None
    try:
        module = importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as error:
        if error.name == f"{__name__}.{name}":
            return None
        raise
    spec = getattr(module, "METRIC", None)
    return spec if isinstance(spec, Metric) else None


@functools.cache
def declared_metrics() -> dict[str, Metric]:
    """name -> declaration of every metric module (one that sets ``METRIC``), found by
    looking, not listed."""
    found = {info.name: _declared_in(info.name) for info in pkgutil.iter_modules(__path__)}
    return {name: spec for name, spec in sorted(found.items()) if spec is not None}


def declaration(metric: str) -> Metric:
    """The declaration of ``metric``; an unknown name is an error listing the metrics."""
    spec = _declared_in(metric) if isinstance(metric, str) else None
    if spec is None:
        raise ValueError(f"unknown metric {metric!r}; metrics: {', '.join(declared_metrics())}")
    return spec


def headline_or_none(metric) -> Headline | None:
    """The metric's headline; None for a metric without one or a name no metric has (a
    results file of another version, or not argbench's)."""
    spec = _declared_in(metric) if isinstance(metric, str) else None
    return spec.headline if spec else None


def headline_of(metric: str) -> Headline:
    """The metric's headline; a metric without one (cr_diversity, annotator_agreement: no
    system score a leaderboard ranks) is an error naming the metrics that have one."""
    spec = declaration(metric).headline
    if spec is None:
        ranked = [name for name, m in declared_metrics().items() if m.headline]
        raise ValueError(f"{metric} has no headline figure (metrics with one: {', '.join(ranked)})")
    return spec


def ranked_metrics() -> dict[str, Headline]:
    """metric -> headline, for the metrics a leaderboard ranks by."""
    return {name: m.headline for name, m in declared_metrics().items() if m.headline}


def pair_keys() -> dict[str, str]:
    """metric -> the per-item key ``argbench compare`` pairs systems on."""
    return {name: h.pair for name, h in ranked_metrics().items() if h.pair is not None}
