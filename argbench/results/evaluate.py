"""Scoring a system's predictions on a corpus split: :func:`evaluate_predictions` joins them to
the split by the corpus's own ids, runs the metric and builds the results document
(:func:`argbench.results.build_document`); :func:`add_intervals` adds bootstrap intervals."""

from __future__ import annotations

from pathlib import Path

from argbench._version import __version__
from argbench.constants import LLM_CONNECTION_OPTIONS, LLM_SECRET_OPTIONS
from argbench.io import check_name
from argbench.records import inputs_from_records, resolve_columns, top_fields
from argbench.results.document import build_document, plain
from argbench.results.predictions import (
    _id_fields,
    join,
    read_predictions,
    record_places,
    split_item_ids,
)
from argbench.results.shards import Shard, build_fragment, run_digest
from argbench.results.split import load_split
from argbench.scoring import declaration, headline_or_none, metric_function

__all__ = [
    "add_intervals",
    "evaluate_predictions",
    "score_records",
    "shard_split_records",
    "system_name",
]


def system_name(system, predictions, what: str = "system") -> str:
    """The system name the results document records, checked (:func:`argbench.io.check_name`:
    no control or invisible format character) before any work: ``system`` (named ``what``
    in the message, ``--system`` on the command line), else the predictions file's stem
    (``"system"`` for records in memory). One place for the command line and the library,
    so a name the results file would refuse fails before the split is loaded or a judge is
    asked, with or without an output file."""
    if system is not None:
        return check_name(system, what)
    if not isinstance(predictions, (str, Path)):
        return "system"
    flag = "--system NAME" if what == "--system" else f"{what}=NAME"
    where = f"{str(predictions)!r} gives the system name (pass {flag}):"
    return check_name(Path(predictions).stem, where)


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


def score_records(
    metric: str,
    records: list[dict],
    ids: list[str],
    columns: dict,
    options: dict,
    intervals: dict | None,
    note=lambda message: None,
) -> dict:
    """The metric's result on predictions joined to a split (``records``, one per item, in
    the split's order; ``ids`` theirs), with bootstrap ``intervals`` (``{resamples, seed,
    confidence}``) when given. One place for a whole run, a shard and a merge of shards, so
    a merge scores exactly as one process does."""
    compute, features = metric_function(metric)
    inputs = inputs_from_records(
        metric,
        records,
        ids,
        features,
        columns,
        note,
        expand=getattr(headline_or_none(metric), "pair", None) is None,
        describe=lambda index: f"prediction {ids[index]!r}",
    )
    result = compute(**inputs, **options)
    if intervals is not None:
        add_intervals(result, **intervals)
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
    shard: Shard | str | None = None,
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

    ``shard`` (``"I/N"`` or a :class:`~argbench.results.shards.Shard`): score only the
    items whose id hashes to shard I of N, and return the shard's *fragment*
    (:mod:`argbench.results.shards`) instead of a results document; ``argbench merge``
    joins the N fragments into the document the whole run gives.
    """
    if isinstance(shard, str):
        shard = Shard.parse(shard)
    spec = declaration(metric)  # an unknown metric: an error listing the metrics
    system = system_name(system, predictions)
    chosen = load_split(
        dataset, config, split, sources=sources, cache_dir=cache_dir, num_proc=num_proc
    )
    _, features = metric_function(metric)  # the plain function: no evaluate import
    if "predictions" not in features:
        raise ValueError(f"{metric} takes no predictions (inputs: {', '.join(features)})")
    records, keys = read_predictions(predictions)
    overrides = dict(columns or {})
    if spec.submission_field and "predictions" not in overrides and records:
        first = records[0]
        if (
            isinstance(first, dict)
            and spec.columns["predictions"] not in first
            and spec.submission_field in first
        ):
            overrides["predictions"] = spec.submission_field  # a submission: its questions
    resolved = resolve_columns(metric, overrides, features)
    take = [resolved["predictions"].split(".")[0]]
    reference_fields = [
        f for name, field in resolved.items() if name != "predictions" for f in top_fields(field)
    ]
    fields = _id_fields(chosen.data.column_names, id_fields)
    try:
        merged, ids, missing, every_id = join(
            chosen.data.to_list(),
            records,
            keys,
            id_fields=fields,
            take=take,
            reference_fields=reference_fields,
            allow_missing=allow_missing,
            place=record_places(predictions, keys),
        )
    except ValueError as error:  # a record's error names the predictions file too
        if isinstance(predictions, (str, Path)) and str(predictions) not in str(error):
            raise ValueError(f"{predictions}: {error}") from None
        raise
    if missing:
        note(f"{len(missing):,} items of {chosen.label()} have no prediction and are not scored")
    intervals = {"resamples": resamples, "seed": seed, "confidence": confidence} if ci else None
    if shard is not None:
        run_of = {"records": records, "keys": keys, "id_fields": fields, "missing": allow_missing}
        return _fragment(
            metric,
            (merged, ids, missing, every_id),
            chosen,
            shard,
            columns=resolved,
            options=options or {},
            intervals=intervals,
            system=system,
            run_of=run_of,
            command=command,
            note=note,
        )
    result = score_records(metric, merged, ids, resolved, options or {}, intervals, note)
    return build_document(
        metric, result, chosen, ids, missing=missing, system=system, command=command
    )


def shard_split_records(
    metric: str,
    dataset,
    config: str | None = None,
    split: str | None = None,
    *,
    shard: Shard | str,
    options: dict | None = None,
    columns: dict | None = None,
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
    """Shard ``shard`` of a metric over a split's *own* records (``argbench evaluate METRIC
    --dataset D``: the answers of cam_answers, the judgments of webis_argquality20's
    pairwise config): the fragment of the items whose id (:func:`split_item_ids`) hashes
    to it. ``argbench merge`` joins the N fragments into the results document of the whole
    run, as ``argbench evaluate METRIC --dataset D --out`` writes it (system: ``system`` or
    the split's label)."""
    if isinstance(shard, str):
        shard = Shard.parse(shard)
    declaration(metric)
    if system is not None:  # checked before the work, as every route does
        system = system_name(system, None)
    chosen = load_split(
        dataset, config, split, sources=sources, cache_dir=cache_dir, num_proc=num_proc
    )
    _, features = metric_function(metric)
    resolved = resolve_columns(metric, dict(columns or {}), features)
    rows = chosen.data.to_list()
    ids = split_item_ids(chosen)
    examples = inputs_from_records(metric, rows, None, features, resolved)
    n = len(next(iter(examples.values())))
    if n != len(rows):  # as `argbench evaluate --out` refuses it (one id per scored item)
        raise ValueError(
            f"--shard: the {len(rows):,} records of {chosen.label()} become {n:,} examples (a "
            "list per record), and a fragment needs one id per scored item: score a "
            "predictions FILE with --dataset"
        )
    intervals = {"resamples": resamples, "seed": seed, "confidence": confidence} if ci else None
    return _fragment(
        metric,
        (rows, ids, [], ids),
        chosen,
        shard,
        columns=resolved,
        options=options or {},
        intervals=intervals,
        system=system or chosen.label(),
        run_of={"records": "the split's own"},
        command=command,
        note=note,
    )


def _fragment(
    metric, joined, chosen, shard, *, columns, options, intervals, system, run_of, command, note
) -> dict:
    """Shard ``shard`` of the run: its items scored, the fragment that records them.
    ``joined``: what :func:`join` gave (rows, their ids, ids without a prediction, every id
    of the split in order)."""
    merged, ids, missing, every_id = joined
    place = {key: p for p, key in enumerate(every_id)}
    kept = [i for i, key in enumerate(ids) if shard.owns(key)]
    records = [merged[i] for i in kept]
    item_ids = [ids[i] for i in kept]
    missing_ids = [key for key in missing if shard.owns(key)]
    read = sorted({f for field in columns.values() for f in top_fields(field)})
    identity = chosen.identity()
    run = run_digest(
        metric=metric,
        system=system,
        dataset=identity,
        columns=columns,
        options=_judge_options(options, LLM_CONNECTION_OPTIONS),
        intervals=intervals,
        version=__version__,
        predictions=plain(run_of),
    )
    if item_ids:
        result = score_records(metric, records, item_ids, columns, options, intervals, note)
    else:
        note(f"shard {shard} holds none of the {len(ids):,} scored items")
        result = None
    return build_fragment(
        metric=metric,
        system=system,
        result=result,
        dataset=identity,
        shard=shard,
        run=run,
        n_split_items=len(every_id),
        item_ids=item_ids,
        positions=[place[key] for key in item_ids],
        missing_ids=missing_ids,
        missing_positions=[place[key] for key in missing_ids],
        records=[{f: row[f] for f in read if f in row} for row in records],
        columns=columns,
        options=_judge_options(options, LLM_SECRET_OPTIONS),
        intervals=intervals,
        command=command,
    )


def _judge_options(options: dict, left_out) -> dict:
    """``options`` with the LLM judge's settings ``left_out`` (an ``llm`` option given as a
    dict): a fragment records no API key, and its run digest no server address or pacing,
    so the shards of one run may each reach their own servers."""
    judge = options.get("llm")
    if not isinstance(judge, dict):
        return dict(options)
    return {**options, "llm": {k: v for k, v in judge.items() if k not in left_out}}
