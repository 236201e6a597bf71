"""argbench: argument-mining corpora and metrics for the Hugging Face ecosystem.

Importing argbench is cheap: `datasets`, `evaluate` and models are imported when used.
"""

from __future__ import annotations

from argbench._version import __version__

__all__ = [
    "list_datasets",
    "load_dataset",
    "build",
    "list_metrics",
    "load_metric",
    "evaluate_predictions",
    "__version__",
]


def list_datasets() -> list[str]:
    """Names of the datasets argbench builds."""
    from argbench.loaders import DATASETS

    return sorted(DATASETS)


def load_dataset(
    name, config=None, split=None, *, sources=None, cache_dir=None, num_proc=None, version=None
):
    """Build (or reuse the cached) dataset ``name`` in-process and return it.

    Returns a ``datasets.DatasetDict``, or a ``datasets.Dataset`` when ``split`` is given.
    ``sources`` is a mirror folder laid out by URL (default: ``$ARGBENCH_SOURCES``, then the
    network); ``cache_dir`` is the datasets cache (default: ``HF_DATASETS_CACHE``);
    ``num_proc`` builds in that many processes where the loader has several source shards;
    ``version`` builds an earlier version the loader still knows (e.g. ``cqs_gen`` "1.0.0").
    """
    from argbench.load import load

    return load(
        name,
        config,
        split,
        sources=sources,
        cache_dir=cache_dir,
        num_proc=num_proc,
        version=version,
    )


def build(name, out_dir, *, sources=None, cache_dir=None, num_proc=None):
    """Write ``<out_dir>/<name>/``: the Hub layout (card + Parquet) for every config of ``name``,
    with the ``eval.yaml`` of its benchmark tasks where it has any."""
    from argbench.hub_eval import eval_yaml
    from argbench.layout import build as _build

    return _build(
        name, out_dir, sources=sources, cache_dir=cache_dir, num_proc=num_proc, eval_yaml=eval_yaml
    )


def list_metrics() -> list[str]:
    """Names of the metrics argbench provides as evaluate modules."""
    from argbench.metrics import list_metrics as _list

    return _list()


def load_metric(name, **kwargs):
    """``evaluate.load`` of argbench's metric ``name`` (works from a checkout and a wheel)."""
    from argbench.metrics import load_metric as _load

    return _load(name, **kwargs)


def evaluate_predictions(metric, predictions, dataset, config=None, split=None, **options):
    """Score a system's predictions on a corpus split, joined by the corpus's own ids.

    Returns the results document (metric values, per-item scores, signature, the split's
    name / version / content hash, ...): see :func:`argbench.results.evaluate_predictions`
    for the arguments, and ``argbench.results.write_results`` to save it for
    ``argbench compare``.
    """
    from argbench.results import evaluate_predictions as _evaluate

    return _evaluate(metric, predictions, dataset, config, split, **options)
