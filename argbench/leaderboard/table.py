"""Results files grouped into leaderboard columns, ranked, with intervals and paired tests.

A column holds results of one measurement only: the same metric and signature, the same split
(name, config, split, version, content hash), the same harness task and the same items, as
``argbench compare`` requires; the statistics are ``compare``'s
(:func:`argbench.results.compare_results`, :mod:`argbench.scoring.significance`). Results that
differ in any of these go to another column, whose header says what it is; a result with no
per-item headline cannot be ranked and is refused with the reason. Files are read only
through :func:`argbench.results.read_results`, which refuses what it cannot trust.

A row is a results file, identified by its digest (the one written with it and checked when it
is read); the system name is a label. The same results given twice (a file named twice, a copy
of it) are one row, the repeat listed with the refused ones; two files that carry one name in
a column are shown apart by a digest prefix (:func:`argbench.results.compare.system_labels`);
every row names its own dataset version and commit.

Memory is bounded (:mod:`argbench.scoring.significance`): a column's statistics hold its
resamples × systems matrix of resampled means (80 MB for 1,000 systems at 10,000 resamples)
and blocks of pairs, never a matrix per pair; only the pairs with the leader get a
difference interval (what a row shows), every pair gets its p-value (who cannot be told
apart). :func:`resample_chunks` gives the same resamples, a chunk at a time, to a statistic that
needs them (a rank interval).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from argbench.io import atomic_write, csv_cell, write_json
from argbench.results import DATASET_FIELDS, content_digest, read_results
from argbench.results.compare import aligned_scores, distinct, shared_dataset, system_labels
from argbench.scoring import headline_or_none
from argbench.signature import Signature

MAX_BYTES = 200 * 1024 * 1024  # a results file larger than this is refused before parsing
ALPHA = 0.05  # p >= ALPHA against the leader: cannot be told apart from the leader


def headline_key(doc: dict) -> str | None:
    """The per-item key a results document is ranked by: the metric's headline pair key in
    the metric's declaration (None: the metric has no per-item headline to rank)."""
    headline = headline_or_none(doc.get("metric"))
    return headline.pair if headline else None


def read(paths, max_bytes: int = MAX_BYTES) -> list[tuple[str, dict]]:
    """(path, document) for each results file, read with :func:`argbench.results.read_results`;
    a file above ``max_bytes`` is refused before it is parsed."""
    out = []
    for path in paths:
        size = os.stat(path).st_size
        if size > max_bytes:
            raise ValueError(
                f"{path}: {size:,} bytes, above the leaderboard's limit of {max_bytes:,} "
                "(--max-bytes): not read"
            )
        out.append((str(path), read_results(path)))
    return out


@dataclass
class Column:
    """One measurement: a metric's headline on one split under one signature."""

    metric: str
    key: str
    signature: str
    dataset: dict
    task: str | None
    docs: list = field(default_factory=list)
    paths: list = field(default_factory=list)
    digests: list = field(default_factory=list)  # each document's identity
    rows: list = field(default_factory=list)
    correlation: dict | None = None
    ties: dict | None = None  # tie groups (Holm over every pair): argbench.scoring.statistics

    @property
    def slug(self) -> str:
        ident = json.dumps([self.signature, self.dataset, self.task, self.docs[0]["item_ids"]])
        name = "-".join(str(self.dataset.get(k) or "") for k in ("name", "config", "split"))
        safe = "".join(c if c.isalnum() else "_" for c in f"{name}-{self.metric}")
        return f"{safe}-{hashlib.sha256(ident.encode()).hexdigest()[:8]}"

    @property
    def benchmark(self) -> str:
        return str(self.dataset.get("name") or "unknown")

    def title(self) -> str:
        where = "/".join(
            str(self.dataset.get(k)) for k in ("name", "config", "split") if self.dataset.get(k)
        )
        return f"{where}: {self.metric} {self.key}"


def _column_id(doc: dict) -> str:
    dataset = doc.get("dataset") or {}
    ident = [
        doc["metric"],
        headline_key(doc),
        doc["signature"],
        [dataset.get(k) for k in ("name", *DATASET_FIELDS)],
        doc.get("task"),
        sorted(doc["item_ids"]),
    ]
    return json.dumps(ident, sort_keys=True, default=str)


def task_text(task) -> str:
    """A harness task as the pages name it: ``argbench/cqs_gen (prompt 7e684435)``."""
    if isinstance(task, dict):
        prompt = f" (prompt {task['prompt']})" if task.get("prompt") else ""
        return f"{task.get('name')}{prompt}"
    return str(task)


def harness_text(doc: dict) -> str:
    """How a harness run produced the result: harness, model type, model, generation limits."""
    h = doc.get("harness")
    if not isinstance(h, dict):
        return ""
    parts = [f"{h.get('name')} {h.get('version') or ''}".strip(), str(h.get("model") or "")]
    if h.get("model_name"):
        parts.append(str(h["model_name"]))
    if h.get("limit"):
        parts.append(f"--limit {h['limit']:g}")
    return ", ".join(p for p in parts if p)


def _model(signature: str) -> str:
    """The judge or embedding model a signature names (``model``, ``judge`` or ``llm``)."""
    fields = Signature.parse(signature).fields
    return "; ".join(f"{k} {fields[k]}" for k in ("model", "judge", "llm") if k in fields)


def columns(
    read_docs, *, resamples=10_000, seed=0, confidence=0.95
) -> tuple[list[Column], list[dict]]:
    """(columns, refused): each column ranked (:func:`rank`); ``refused``: ``{"path",
    "system", "reason"}`` for results that cannot sit in any column, and for a repeat of
    results already on the board (same digest: one row)."""
    read_docs = list(read_docs)
    digests = [content_digest(doc) for _, doc in read_docs]
    kept, repeats = distinct(digests, [path for path, _ in read_docs])
    refused = [
        {
            "path": r["label"],
            "system": read_docs[r["index"]][1].get("system"),
            "reason": f"the same results as {r['same_as']} (digest {r['digest']}): one row",
        }
        for r in repeats
    ]
    groups: dict[str, Column] = {}
    for index in kept:
        path, doc = read_docs[index]
        key = headline_key(doc)
        per_item = (doc.get("result") or {}).get("per_item") or {}
        if key is None or key not in per_item:
            refused.append(
                {
                    "path": path,
                    "system": doc.get("system"),
                    "reason": f"{doc['metric']} has no per-item headline to rank and resample "
                    f"(per-item: {', '.join(per_item) or 'none'})",
                }
            )
            continue
        ident = _column_id(doc)
        if ident not in groups:
            groups[ident] = Column(
                doc["metric"], key, doc["signature"], doc.get("dataset") or {}, doc.get("task")
            )
        groups[ident].docs.append(doc)
        groups[ident].paths.append(path)
        groups[ident].digests.append(digests[index])
    out = list(groups.values())
    for column in out:
        column.dataset = shared_dataset(column.docs)  # a commit that differs: per row
        rank(column, resamples=resamples, seed=seed, confidence=confidence)
    out.sort(key=lambda c: (c.benchmark, c.title(), c.signature))
    return out, refused


def scores(column: Column):
    """systems × items (numpy; NaN: not scored): the column's per-item headline values, in
    the order of ``column.docs`` and of its first document's items."""
    return aligned_scores(column.docs, column.key, column.docs[0]["item_ids"])


def resample_chunks(column: Column, *, resamples=10_000, seed=0):
    """The column's paired bootstrap resamples, a chunk at a time (resamples × systems, in the
    order of ``column.docs``): the very resamples :func:`rank`'s intervals come from with the
    same ``resamples`` and ``seed`` (:func:`argbench.scoring.significance.bootstrap_chunks`)."""
    from argbench.scoring.significance import bootstrap_chunks

    return bootstrap_chunks(scores(column), resamples, seed)


def _labels(column: Column) -> list[str]:
    names = [
        str(doc.get("system") or Path(path).name)
        for doc, path in zip(column.docs, column.paths, strict=True)
    ]
    return system_labels(names, column.digests)


def rank(column: Column, *, resamples=10_000, seed=0, confidence=0.95) -> None:
    """Fill ``column.rows``: best first, each with its interval, its 95 % rank interval (the
    same bootstrap resamples), its tie group (letters: Holm over every pair), the paired test
    against the leader and the systems it cannot be told apart from (unadjusted p >= 0.05,
    either direction).

    Every system is one document (index ``row["index"]`` into ``column.docs``); pairs are
    pairs of documents, never of names."""
    import numpy as np

    from argbench.scoring.significance import (
        TIE_ALPHA,
        bootstrap_means,
        difference_intervals,
        percentile_interval,
        permutation_pvalues,
        rank_intervals_of,
    )
    from argbench.scoring.statistics import tie_groups

    matrix = scores(column)
    k = len(column.docs)
    labels = _labels(column)
    means = bootstrap_means(matrix, resamples, seed)
    point = np.nanmean(matrix, axis=1)
    low, high = percentile_interval(means, confidence)
    rank_ci = rank_intervals_of(means, confidence)
    order = sorted(range(k), key=lambda i: -_sortable(float(point[i])))
    leader = order[0]
    # pairs (i, m), i < m, in compare's order (the same numbers as argbench compare's), as
    # two index arrays: no Python object per pair
    a, b = np.triu_indices(k, 1)
    p_of = np.ones((k, k))
    versus: dict[int, dict] = {}
    if len(a):
        p_of[a, b] = p_of[b, a] = permutation_pvalues(
            matrix, np.column_stack((a, b)), resamples, seed
        )[0]
        with_leader = [(min(i, leader), max(i, leader)) for i in order[1:]]
        d_low, d_high = difference_intervals(means, with_leader, confidence)
        for (i, m), lo, hi in zip(with_leader, d_low, d_high, strict=True):
            system = m if i == leader else i
            sign = 1 if i == system else -1  # row − leader from the pair's a − b
            versus[system] = {
                "difference": sign * float(point[i] - point[m]),
                "low": sign * float(lo if sign > 0 else hi),
                "high": sign * float(hi if sign > 0 else lo),
                "p_value": float(p_of[i, m]),
            }
    ties = tie_groups(point, p_of, alpha=TIE_ALPHA)
    rows = []
    for place, i in enumerate(order, 1):
        doc, result = column.docs[i], column.docs[i]["result"]
        values = result["per_item"][column.key]
        difference = versus.get(i)
        apart = [labels[m] for m in np.flatnonzero(p_of[i] >= ALPHA) if m != i]
        rows.append(
            {
                "rank": place,
                "index": i,  # of the document in column.docs
                "system": labels[i],
                "digest": column.digests[i],
                "score": float(point[i]),
                "low": float(low[i]),
                "high": float(high[i]),
                "items_scored": sum(1 for v in values if v is not None),
                "items": len(values),
                "complete": bool(result.get("complete", True))
                and not doc.get("n_missing")
                and doc.get("complete") is not False,  # a merge with shards missing
                "rank_low": rank_ci[i][0],
                "rank_high": rank_ci[i][1],
                "group": ties["letters"][i],
                "vs_leader": difference,
                "tied_with_leader": difference is None or difference["p_value"] >= ALPHA,
                "not_distinguishable_from": apart,
                "human_score": result.get("human_score"),
                "figures": _figures(result, column.key),
                "flags": _flags(doc),
                "dataset_version": _revision(doc.get("dataset") or {}),
                "content_hash": (doc.get("dataset") or {}).get("content_hash"),
                "signature": doc["signature"],
                "model": _model(doc["signature"]),
                "harness": harness_text(doc),
                "path": column.paths[i],
                "created": doc.get("created"),
            }
        )
    column.rows = rows
    column.stats = {
        "n_items": int(matrix.shape[1]),
        "resamples": resamples,
        "seed": seed,
        "confidence": confidence,
    }
    column.ties = {
        "method": ties["method"],
        "alpha": ties["alpha"],
        "groups": [[labels[i] for i in group] for group in ties["groups"]],
    }
    human = [r for r in rows if r["human_score"] is not None]
    if len(human) >= 3:
        from argbench.scoring.statistics import ranking_correlation

        column.correlation = ranking_correlation(
            [r["score"] for r in human], [r["human_score"] for r in human]
        )


def _figures(result: dict, key: str) -> dict:
    """The result's other headline-level figures (precision and recall beside F1, the NAE
    rate beside the score): its top-level finite floats."""
    skip = {key, "human_score", "score"}
    return {
        k: v
        for k, v in result.items()
        if isinstance(v, float) and k not in skip and v == v and not k.startswith("n_")
    }


# counts a results document keeps that a reader of the board must see beside the score
FLAGS = {
    "n_missing": "items of the split without a prediction, not scored",
    "n_long": "items with more questions than scored (the first ones scored)",
    "n_missing_cqs": "items answered 'Missing CQs' (0 points)",
    "n_duplicates": "questions repeated within an item",
    "n_failed": "judgments that failed",
}


def _flags(doc: dict) -> list[str]:
    result = doc["result"]
    counts = {**{k: result.get(k) for k in FLAGS}, "n_missing": doc.get("n_missing")}
    return [f"{n:,} {FLAGS[k]}" for k, n in counts.items() if isinstance(n, int) and n > 0]


def _revision(dataset: dict) -> str:
    """The dataset's version, and the Hub commit it was loaded at when it came from the Hub."""
    commit = dataset.get("commit")
    return f"{dataset.get('version')}" + (f" @ {commit[:12]}" if commit else "")


def _sortable(value) -> float:
    return float("-inf") if value is None or value != value else value


FIELDS = [
    "rank", "rank_low", "rank_high", "group", "system", "score", "low", "high", "items_scored", "items", "complete",
    "vs_leader_difference", "vs_leader_p", "tied_with_leader", "not_distinguishable_from",
    "human_score", "flags", "dataset_version", "content_hash", "signature", "model", "harness",
    "digest",
]  # fmt: skip


def flat(column: Column, row: dict) -> dict:
    """One row as the CSV and JSON tables give it (the column's identity included)."""
    versus = row["vs_leader"] or {}
    out = {
        "benchmark": column.benchmark,
        "task": column.title(),
        **{k: row[k] for k in FIELDS if k in row},
        "vs_leader_difference": versus.get("difference"),
        "vs_leader_p": versus.get("p_value"),
    }
    out["not_distinguishable_from"] = "; ".join(row["not_distinguishable_from"])
    out["flags"] = "; ".join(row["flags"])
    return {k: out.get(k) for k in ["benchmark", "task", *FIELDS]}


def per_item(doc: dict, key: str) -> list[tuple[str, float | None]]:
    """(item id, value) in the results file's order."""
    return list(zip(doc["item_ids"], doc["result"]["per_item"][key], strict=True))


def worst_items(doc: dict, key: str, n: int = 10) -> list[dict]:
    """The ``n`` lowest-scored items, with the system's own text where the result keeps it
    (``questions``) and the labels the metric gave."""
    result = doc["result"]
    items = [(i, item, v) for i, (item, v) in enumerate(per_item(doc, key)) if v is not None]
    items.sort(key=lambda t: (t[2], t[0]))
    out = []
    for index, item, value in items[:n]:
        entry = {"item": item, "value": value}
        for name in ("questions", "labels", "human_labels"):
            values = result.get(name)
            if isinstance(values, list) and len(values) == len(doc["item_ids"]):
                entry[name] = values[index]
        out.append(entry)
    return out


def write_tables(columns_: list[Column], stem: Path) -> None:
    """``<stem>.csv`` (one line per row) and ``<stem>.json`` (each column with its identity
    and its rows)."""
    import csv
    import io

    stem = Path(stem)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=["benchmark", "task", *FIELDS], lineterminator="\n")
    writer.writeheader()
    writer.writerows(  # a system name is user text: never a formula in a spreadsheet
        {k: csv_cell(v) for k, v in flat(c, r).items()} for c in columns_ for r in c.rows
    )
    atomic_write(stem.with_name(stem.name + ".csv"), buffer.getvalue())
    write_json(
        stem.with_name(stem.name + ".json"),
        [
            {
                "benchmark": c.benchmark,
                "task": c.title(),
                "metric": c.metric,
                "key": c.key,
                "signature": c.signature,
                "dataset": c.dataset,
                "harness_task": c.task and task_text(c.task),
                "correlation_with_human": c.correlation,
                "rows": [flat(c, r) for r in c.rows],
            }
            for c in columns_
        ],
    )
