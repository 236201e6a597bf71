"""Comparing systems scored on one split: paired bootstrap intervals and randomisation tests
over the per-item values that each metric's declaration names (its headline's ``pair``).

A system is its results, not its name: a document is identified by its digest
(:func:`~argbench.results.document.content_digest`, the one written with the file and checked
when it is read), the name it carries is a label. The same results given twice are compared
once (:func:`distinct`); two results that carry one name, or names that read alike
(:func:`argbench.io.name_key`), are told apart by their digest (:func:`system_labels`). ``argbench compare`` and the leaderboard share these.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from argbench.io import name_key
from argbench.results.document import content_digest
from argbench.results.verify import read_results, verify_document
from argbench.scoring import headline_or_none
from argbench.signature import Signature

__all__ = [
    "DATASET_FIELDS",
    "aligned_scores",
    "compare_results",
    "distinct",
    "shared_dataset",
    "short_id",
    "system_labels",
]

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


def short_id(digest: str, length: int = 8) -> str:
    """The first ``length`` hex digits of a digest (``sha256:3f2a…`` -> ``3f2a1b9c``)."""
    return digest.split(":", 1)[-1][:length]


def distinct(digests: list[str], labels: list[str]) -> tuple[list[int], list[dict]]:
    """(the index of the first of each digest, in order; one ``{"index", "label", "same_as",
    "digest"}`` per repeat): the same results given twice (a file named twice, or a copy of
    it) are one system, never two rows that shift every rank below them. ``digests``: each
    document's :func:`~argbench.results.document.content_digest`."""
    first: dict[str, int] = {}
    kept, repeats = [], []
    for index, digest in enumerate(digests):
        if digest in first:
            repeats.append(
                {
                    "index": index,
                    "label": labels[index],
                    "same_as": labels[first[digest]],
                    "digest": digest,
                }
            )
        else:
            first[digest] = index
            kept.append(index)
    return kept, repeats


def system_labels(names: list[str], digests: list[str]) -> list[str]:
    """One label per system, all different: its name, followed by ``[<digest prefix>]`` when
    another system carries the same name (another run, another dataset commit, a reused
    ``--system``); the prefix is as long as it takes to tell the digests apart. Digests must
    differ (:func:`distinct`).

    Names are compared by :func:`argbench.io.name_key` (NFKC, invisible format characters
    dropped, spaces collapsed, case folded), the key the Space refuses collisions by: names a
    reader cannot tell apart (``Same`` and full-width ``Ｓａｍｅ``, ``Same`` and ``same``)
    count as one name, so each row gets its digest prefix like two files of one name."""
    if len(set(digests)) != len(digests):
        raise ValueError("system_labels: the same results twice (call distinct first)")
    length = 8
    while len({short_id(d, length) for d in digests}) < len(digests):
        length += 4
    counts = Counter(name_key(name) for name in names)
    labels = [
        f"{name} [{short_id(digest, length)}]" if counts[name_key(name)] > 1 else name
        for name, digest in zip(names, digests, strict=True)
    ]
    if len({name_key(label) for label in labels}) < len(labels):  # a name reads as a label
        labels = [f"{n} [{short_id(d, length)}]" for n, d in zip(names, digests, strict=True)]
    return labels


def shared_dataset(docs: list[dict]) -> dict:
    """The split's identity as far as every document agrees on it: a field that differs
    (the Hub commit of one copy of the same content) is left out here and named per system."""
    first = docs[0].get("dataset") or {}
    return {
        k: v for k, v in first.items() if all((d.get("dataset") or {}).get(k) == v for d in docs)
    }


def aligned_scores(docs: list[dict], key: str, order: list[str]):
    """systems × items (numpy, NaN where an item is not scored): each document's per-item
    ``key`` values, joined by item id in ``order``."""
    import numpy as np

    rows = []
    for doc in docs:
        values = dict(zip(doc["item_ids"], doc["result"]["per_item"][key], strict=True))
        rows.append([np.nan if values[i] is None else values[i] for i in order])
    return np.array(rows, dtype=float)


def compare_results(
    results, key=None, *, resamples=10_000, seed=0, confidence=0.95, force=False
) -> dict:
    """Compare systems scored on the same split (results documents or their files).

    Each system's score with a paired bootstrap interval, and each pair's difference with its
    interval and a paired approximate-randomisation p-value (:mod:`argbench.scoring.significance`).
    Results whose signatures or splits differ in anything but the system are refused, naming
    the difference, unless ``force`` (then ``forced`` lists what differs); so are results on
    different items (with ``force``: their common items).

    Each system is one results document, identified by its digest (``systems[i]["digest"]``,
    ``pairs[j]["a_digest"]``); its ``name`` is the name it carries, with a digest prefix when
    another system carries the same one. The same results given twice are compared once and
    listed in ``repeated``; fewer than two different results are refused.
    """
    from argbench.scoring.significance import compare_systems

    docs, labels = [], []
    for item in results:
        if isinstance(item, (str, Path)):
            docs.append(read_results(item))
            labels.append(str(item))
        else:
            labels.append(str(item.get("system")) if isinstance(item, dict) else "results")
            docs.append(verify_document(item, labels[-1]))
    digests = [content_digest(d) for d in docs]
    kept, repeated = distinct(digests, labels)
    if len(kept) < 2:
        same = "".join(
            f": {r['label']} holds the same results as {r['same_as']} (digest {r['digest']})"
            for r in repeated[:1]
        )
        raise ValueError(f"compare needs two or more different results{same}")
    docs, labels, digests = ([x[i] for i in kept] for x in (docs, labels, digests))
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
    names = system_labels(
        [str(d.get("system") or label) for d, label in zip(docs, labels, strict=True)], digests
    )
    stats = compare_systems(aligned_scores(docs, key, order), names, resamples, seed, confidence)
    for system, doc, digest, label in zip(stats["systems"], docs, digests, labels, strict=True):
        commit = (doc.get("dataset") or {}).get("commit")
        system.update(digest=digest, source=label, dataset_commit=commit)
    index = {name: i for i, name in enumerate(names)}
    for pair in stats["pairs"]:
        pair.update(a_digest=digests[index[pair["a"]]], b_digest=digests[index[pair["b"]]])
    return {
        "metric": metric,
        "key": key,
        "signature": docs[0]["signature"],
        "signatures": {name: d["signature"] for name, d in zip(names, docs, strict=True)},
        "dataset": shared_dataset(docs),
        "forced": forced,
        "repeated": repeated,
        **stats,
    }
