"""Comparing systems scored on one split: paired bootstrap intervals and randomisation tests
over the per-item values that each metric's declaration names (its headline's ``pair``)."""

from __future__ import annotations

from pathlib import Path

from argbench.results.verify import read_results, verify_document
from argbench.scoring import headline_or_none
from argbench.signature import Signature

__all__ = ["DATASET_FIELDS", "compare_results"]

# what must agree between results besides the signature (the name may be a folder's or a
# Hub repo's for the same data: the content hash says whether the data are the same)
DATASET_FIELDS = ("config", "split", "version", "content_hash")


def _differences(docs: list[dict], labels: list[str]) -> list[str]:
    """What, besides the system, differs between results: signature fields and the split."""
    signatures = [Signature.parse(d["signature"]) for d in docs]
    out = []
    for doc, signature, label in zip(docs[1:], signatures[1:], labels[1:], strict=True):
        for field, mine, theirs in signatures[0].differences(signature):
            out.append(f"{field} ({mine} in {labels[0]}, {theirs} in {label})")
        for field in DATASET_FIELDS:
            mine, theirs = ((d.get("dataset") or {}).get(field) for d in (docs[0], doc))
            if mine != theirs:
                out.append(f"dataset {field} ({mine} in {labels[0]}, {theirs} in {label})")
        # harness runs (argbench import-harness): the task's prompt is part of the measurement
        mine, theirs = (d.get("task") for d in (docs[0], doc))
        if mine and theirs and mine != theirs:
            out.append(f"task ({mine} in {labels[0]}, {theirs} in {label})")
    return out


def compare_results(
    results, key=None, *, resamples=10_000, seed=0, confidence=0.95, force=False
) -> dict:
    """Compare systems scored on the same split (results documents or their files).

    Each system's score with a paired bootstrap interval, and each pair's difference with its
    interval and a paired approximate-randomisation p-value (:mod:`argbench.scoring.significance`).
    Results whose signatures or splits differ in anything but the system are refused, naming
    the difference, unless ``force`` (then ``forced`` lists what differs); so are results on
    different items (with ``force``: their common items).
    """
    import numpy as np

    from argbench.scoring.significance import compare_systems

    docs, labels = [], []
    for item in results:
        if isinstance(item, (str, Path)):
            docs.append(read_results(item))
            labels.append(str(item))
        else:
            labels.append(str(item.get("system")) if isinstance(item, dict) else "results")
            docs.append(verify_document(item, labels[-1]))
    if len(docs) < 2:
        raise ValueError("compare needs two or more results")
    metrics = {d["metric"] for d in docs}
    if len(metrics) > 1:
        raise ValueError(f"results of different metrics cannot be compared: {sorted(metrics)}")
    metric = docs[0]["metric"]
    key = key or getattr(headline_or_none(metric), "pair", None)
    for doc, label in zip(docs, labels, strict=True):
        per_item = (doc["result"] or {}).get("per_item") or {}
        if key is None or key not in per_item:
            have = ", ".join(per_item) or "none"
            raise ValueError(
                f"{label}: {metric} has no per-item {key or 'scores'} to compare (per-item: {have})"
            )
    forced = _differences(docs, labels)
    if forced and not force:
        raise ValueError(
            "not the same measurement: results differ in " + "; ".join(forced) + ". Compare "
            "systems under one signature and split, or force=True to compare anyway"
        )
    id_sets = [set(d["item_ids"]) for d in docs]
    common = set.intersection(*id_sets)
    if any(ids != id_sets[0] for ids in id_sets):
        sizes = ", ".join(
            f"{len(ids):,} in {label}" for ids, label in zip(id_sets, labels, strict=True)
        )
        if not force:
            raise ValueError(
                f"the results score different items ({sizes}; {len(common):,} in common): "
                "paired comparison needs the same items; --force compares the common ones"
            )
        forced.append(f"items: only the {len(common):,} common items ({sizes})")
    if not common:
        raise ValueError("the results have no item in common")
    order = [i for i in docs[0]["item_ids"] if i in common]
    rows = []
    for doc in docs:
        values = dict(zip(doc["item_ids"], doc["result"]["per_item"][key], strict=True))
        rows.append([np.nan if values[i] is None else values[i] for i in order])
    names = [str(d.get("system") or label) for d, label in zip(docs, labels, strict=True)]
    for index, name in enumerate(names):
        if names.count(name) > 1:
            names[index] = f"{name} ({labels[index]})"
    stats = compare_systems(rows, names, resamples, seed, confidence)
    return {
        "metric": metric,
        "key": key,
        "signature": docs[0]["signature"],
        "signatures": {name: d["signature"] for name, d in zip(names, docs, strict=True)},
        "dataset": docs[0].get("dataset"),
        "forced": forced,
        **stats,
    }
