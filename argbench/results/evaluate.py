"""Scoring a system's predictions on a corpus split: :func:`evaluate_predictions` joins them to
the split by the corpus's own ids, runs the metric and builds the results document
(:func:`argbench.results.build_document`); :func:`add_intervals` adds bootstrap intervals."""

from __future__ import annotations

from pathlib import Path

from argbench.records import inputs_from_records, resolve_columns
from argbench.results.document import build_document
from argbench.results.predictions import _id_fields, join, read_predictions
from argbench.results.split import load_split
from argbench.scoring import declaration, headline_or_none, metric_function

__all__ = ["add_intervals", "evaluate_predictions"]


def add_intervals(result: dict, resamples=10_000, seed=0, confidence=0.95) -> dict:
    """``result["ci"]``: a percentile bootstrap interval for each per-item mean."""
    import numpy as np

    from argbench.scoring.significance import bootstrap_means, percentile_interval

    per_item = result.get("per_item")
    if not per_item:
        raise ValueError(
            "this metric has no per-item scores to resample (a corpus-level number): no interval"
        )
    result["ci"] = {}
    for key, values in per_item.items():
        scores = np.array([np.nan if v is None else v for v in values], dtype=float)
        if np.isnan(scores).all():
            result["ci"][key] = {"low": None, "high": None}
            continue
        low, high = percentile_interval(bootstrap_means(scores, resamples, seed), confidence)
        result["ci"][key] = {"low": float(low[0]), "high": float(high[0])}
    result["ci_method"] = (
        f"percentile bootstrap over items: {100 * confidence:g}% level, {resamples:,} "
        f"resamples, seed {seed}"
    )
    return result


def evaluate_predictions(
    metric: str,
    predictions,
    dataset,
    config: str | None = None,
    split: str | None = None,
    *,
    options: dict | None = None,
    columns: dict | None = None,
    id_fields=None,
    allow_missing: bool = False,
    system: str | None = None,
    ci: bool = False,
    resamples: int = 10_000,
    seed: int = 0,
    confidence: float = 0.95,
    sources=None,
    cache_dir=None,
    num_proc: int | None = None,
    command: str | None = None,
    note=lambda message: None,
) -> dict:
    """Score a system's ``predictions`` on a corpus split; returns the results document.

    ``predictions``: a ``.json`` / ``.jsonl`` path or the parsed records; each record names
    its item by the corpus's id (``intervention_id``, ``pair_id``, ``question_id`` [+
    ``answer_index``]; or ``id_fields``) and holds the metric's prediction field (the
    ``predictions`` column of ``argbench evaluate --help``, e.g. ``answer``, ``cqs``,
    ``predicted_rationales``; ``columns`` changes it). Everything else (references, argument
    labels, contexts) comes from the split. CQs-Gen shared-task submissions are read as they
    are. ``dataset``: a name, a built folder or a Hub id (:func:`load_split`).

    Ids missing from the predictions are an error unless ``allow_missing`` (then only the
    predicted items are scored and ``n_missing`` says how many were not); unknown and
    duplicated ids are always errors. ``ci`` adds bootstrap intervals
    (:func:`add_intervals`). ``options`` go to the metric's ``compute``. ``num_proc``:
    processes for building an argbench dataset (:func:`load_split`).
    """
    declaration(metric)  # an unknown metric: an error listing the metrics
    chosen = load_split(
        dataset, config, split, sources=sources, cache_dir=cache_dir, num_proc=num_proc
    )
    compute, features = metric_function(metric)  # the plain function: no evaluate import
    if "predictions" not in features:
        raise ValueError(f"{metric} takes no predictions (inputs: {', '.join(features)})")
    records, keys = read_predictions(predictions)
    overrides = dict(columns or {})
    if metric == "cr_diversity" and "predictions" not in overrides and records:
        first = records[0]
        if isinstance(first, dict) and "cq" not in first and "cqs" in first:
            overrides["predictions"] = "cqs"  # a submission: its questions
    resolved = resolve_columns(metric, overrides, features)
    take = [resolved["predictions"].split(".")[0]]
    reference_fields = [
        f.split(".")[0] for name, f in resolved.items() if name not in ("predictions",)
    ]
    fields = _id_fields(chosen.data.column_names, id_fields)
    try:
        merged, ids, missing = join(
            chosen.data.to_list(),
            records,
            keys,
            id_fields=fields,
            take=take,
            reference_fields=reference_fields,
            allow_missing=allow_missing,
        )
    except ValueError as error:  # a record's error names the predictions file too
        if isinstance(predictions, (str, Path)) and str(predictions) not in str(error):
            raise ValueError(f"{predictions}: {error}") from None
        raise
    if missing:
        note(f"{len(missing):,} items of {chosen.label()} have no prediction and are not scored")
    inputs = inputs_from_records(
        metric,
        merged,
        ids,
        features,
        resolved,
        note,
        expand=getattr(headline_or_none(metric), "pair", None) is None,
        describe=lambda index: f"prediction {ids[index]!r}",
    )
    result = compute(**inputs, **(options or {}))
    if ci:
        add_intervals(result, resamples, seed, confidence)
    if system is None:
        system = Path(predictions).stem if isinstance(predictions, (str, Path)) else "system"
    return build_document(
        metric, result, chosen, ids, missing=missing, system=system, command=command
    )
