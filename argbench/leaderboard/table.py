"""Results files grouped into leaderboard columns, ranked, with intervals and paired tests.

A column holds results of one measurement: the same metric, the same scoring signature (its
fields but those that say how a harness produced the outputs,
:func:`argbench.signature.measurement`), the same split (name, config, split, version, content
hash) and the same items of that split. A harness run's prompt, decoding and ``--limit`` are
the system's, not the measurement's: a model run through lm-eval or inspect, ``argbench
evaluate`` on the same split and the shipped systems share a column, each row naming how it
was produced. A ``--limit`` run is a row of its split's column, marked incomplete with the
items it scored; its missing items are not scored (NaN in the statistics, as
:mod:`argbench.scoring.significance` treats an unscored item). Results that differ in anything
else go to another column, and :func:`apart` says what differs from the columns beside it; a
result with no per-item headline cannot be ranked and is refused with the reason. Files are
read only through :func:`argbench.results.read_results`, which refuses what it cannot trust.

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
from argbench.results.compare import distinct, shared_dataset, system_labels
from argbench.scoring import headline_or_none
from argbench.signature import SYSTEM_FIELDS, Signature, measurement

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
    """One measurement: a metric's headline on one split's items under one scoring signature
    (:func:`argbench.signature.measurement`; each row keeps its own full signature)."""

    metric: str
    key: str
    signature: str
    dataset: dict
    items: list = field(default_factory=list)  # the split's items, in the order ranked over
    docs: list = field(default_factory=list)
    paths: list = field(default_factory=list)
    digests: list = field(default_factory=list)  # each document's identity
    rows: list = field(default_factory=list)
    correlation: dict | None = None
    ties: dict | None = None  # tie groups (Holm over every pair): argbench.scoring.statistics

    @property
    def slug(self) -> str:
        ident = json.dumps([self.signature, self.dataset, sorted(self.items)])
        name = "-".join(str(self.dataset.get(k) or "") for k in ("name", "config", "split"))
        safe = "".join(c if c.isalnum() else "_" for c in f"{name}-{self.metric}")
        return f"{safe}-{hashlib.sha256(ident.encode()).hexdigest()[:8]}"

    @property
    def benchmark(self) -> str:
        return str(self.dataset.get("name") or "unknown")

    def where(self) -> str:
        return "/".join(
            str(self.dataset.get(k)) for k in ("name", "config", "split") if self.dataset.get(k)
        )

    def title(self) -> str:
        return f"{self.where()}: {self.metric} {self.key}"


def split_items(doc: dict) -> list[str]:
    """The items of the split a result was scored on: those it scored, then those it did not
    (``missing_ids``: a ``--limit`` run, ``evaluate --allow-missing``)."""
    return [*doc["item_ids"], *doc.get("missing_ids", [])]


def _column_id(doc: dict) -> str:
    dataset = doc.get("dataset") or {}
    ident = [
        doc["metric"],
        headline_key(doc),
        measurement(doc["signature"]),
        # not the name: a built folder, a Hub repo (a Space's references) and the corpus name
        # hold the same data when the content hash is the same (argbench compare's rule)
        [dataset.get(k) for k in DATASET_FIELDS],
        sorted(split_items(doc)),
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


def run_label(doc: dict) -> str:
    """What tells two runs of one system apart: the harness run (harness, model, ``--limit``),
    the harness task's prompt, what the run's signature adds (decoding, output length, chat
    template) and the day the result was made."""
    fields = Signature.parse(doc["signature"]).fields
    produced = ", ".join(f"{k} {fields[k]}" for k in SYSTEM_FIELDS if k in fields)
    parts = [
        harness_text(doc),
        f"task {task_text(doc['task'])}" if doc.get("task") else "",
        produced,
        str(doc.get("created") or "")[:10],
    ]
    return "; ".join(p for p in parts if p)


def model_text(signature: str) -> str:
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
            shown = measurement(doc["signature"], identity=False)  # the model's name kept
            groups[ident] = Column(doc["metric"], key, shown, doc.get("dataset") or {})
        groups[ident].docs.append(doc)
        groups[ident].paths.append(path)
        groups[ident].digests.append(digests[index])
    out = list(groups.values())
    for column in out:
        column.dataset = shared_dataset(column.docs)  # a commit that differs: per row
        # the items in a complete result's order when there is one (argbench compare's order)
        first = next((d for d in column.docs if not d.get("n_missing")), column.docs[0])
        column.items = split_items(first)
        rank(column, resamples=resamples, seed=seed, confidence=confidence)
    out.sort(key=lambda c: (c.benchmark, c.title(), c.signature))
    return out, refused


def scores(column: Column):
    """systems × the column's items (numpy, in the order of ``column.docs``): each result's
    per-item headline, NaN where it has none (an item it did not score, a ``--limit`` run's
    missing items, or a value the metric left undefined)."""
    import numpy as np

    rows = []
    for doc in column.docs:
        values = dict(per_item(doc, column.key))
        rows.append([np.nan if values.get(item) is None else values[item] for item in column.items])
    return np.array(rows, dtype=float)


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
    place_of = {i: place for place, i in enumerate(order, 1)}
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
        tied = [m for m in np.flatnonzero(p_of[i] >= ALPHA) if m != i]
        rows.append(
            {
                "rank": place,
                "index": i,  # of the document in column.docs
                "system": labels[i],
                "run": run_label(doc),
                "digest": column.digests[i],
                "score": float(point[i]),
                "low": float(low[i]),
                "high": float(high[i]),
                "items_scored": sum(1 for v in values if v is not None),
                "items": len(column.items),
                "complete": bool(result.get("complete", True))
                and not doc.get("n_missing")
                and doc.get("complete") is not False,  # a merge with shards missing
                "rank_low": rank_ci[i][0],
                "rank_high": rank_ci[i][1],
                "group": ties["letters"][i],
                "vs_leader": difference,
                "tied_with_leader": difference is None or difference["p_value"] >= ALPHA,
                "not_distinguishable_from": [labels[m] for m in tied],
                "tied_ranks": sorted(place_of[m] for m in tied),
                "human_score": result.get("human_score"),
                "figures": _figures(result, column.key),
                "flags": _flags(doc),
                "dataset_version": _revision(doc.get("dataset") or column.dataset),
                "content_hash": (doc.get("dataset") or {}).get("content_hash"),
                "signature": doc["signature"],
                "model": model_text(doc["signature"]),
                "harness": harness_text(doc),
                "harness_task": task_text(doc["task"]) if doc.get("task") else None,
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


def rank_ranges(ranks: list[int]) -> str:
    """Ranks as short ranges: ``[2, 3, 4, 5, 6, 9]`` -> ``2–6, 9``."""
    out: list[list[int]] = []
    for r in sorted(ranks):
        if out and r == out[-1][1] + 1:
            out[-1][1] = r
        else:
            out.append([r, r])
    return ", ".join(f"{a}" if a == b else f"{a}–{b}" for a, b in out)


def ties_text(row: dict) -> str:
    """``ties with ranks 2–6``: the places of the systems the row cannot be told apart from."""
    ranks = row.get("tied_ranks") or []
    if not ranks:
        return "—"
    return f"ties with rank{'s' if len(ranks) > 1 else ''} {rank_ranges(ranks)}"


def apart(columns_: list[Column]) -> dict[str, list[dict]]:
    """slug -> why the column's results are not ranked with each other column of the same
    benchmark and metric: ``{"other": its split, "systems": its rows, "differ": [(what,
    here, there)]}``, ``what`` a signature field (``signature refs``), a part of the split
    (``dataset content_hash``) or ``items``."""
    out: dict[str, list[dict]] = {}
    for column in columns_:
        mine = Signature.parse(column.signature)
        for other in columns_:
            same = (other.benchmark, other.metric) == (column.benchmark, column.metric)
            if other is column or not same:
                continue
            differ = [
                (f"signature {name}", a, b)
                for name, a, b in mine.differences(Signature.parse(other.signature))
            ]
            differ += [
                (f"dataset {name}", column.dataset.get(name), other.dataset.get(name))
                for name in DATASET_FIELDS
                if column.dataset.get(name) != other.dataset.get(name)
            ]
            if not differ and set(column.items) != set(other.items):
                differ.append(("items", f"{len(column.items):,}", f"{len(other.items):,}"))
            out.setdefault(column.slug, []).append(
                {"other": other.where(), "systems": len(other.rows), "differ": differ}
            )
    return out


def apart_text(reason: dict, *, short: bool = False) -> str:
    """``not ranked with cqs_gen/extended/test (18 systems): signature refs (absent here,
    test+submissions-own there); ...``; ``short``: the parts that differ, without values."""
    head = f"not ranked with {reason['other']} ({reason['systems']} systems)"
    if short:
        return f"{head}: differs in " + ", ".join(what for what, _, _ in reason["differ"])
    return f"{head}: " + "; ".join(
        f"{what} ({here or 'absent'} here, {there or 'absent'} there)"
        for what, here, there in reason["differ"]
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
    "harness_task", "run", "digest",
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


def item_texts(doc: dict, key: str) -> list[dict]:
    """Every scored item, worst first, with what the result keeps of it: the system's
    questions (``questions``), the labels the metric gave, the labels people gave, and a
    harness import's generation (the model's output and its prompt's hash, ``generations``)."""
    result = doc["result"]
    items = [(i, item, v) for i, (item, v) in enumerate(per_item(doc, key)) if v is not None]
    items.sort(key=lambda t: (t[2], t[0]))
    kept = {name: result.get(name) for name in ("questions", "labels", "human_labels")}
    kept["generation"] = doc.get("generations")
    out = []
    for index, item, value in items:
        entry = {"item": item, "value": value}
        for name, values in kept.items():
            if isinstance(values, list) and len(values) == len(doc["item_ids"]):
                entry[name] = values[index]
        generation = entry.get("generation")
        if "questions" not in entry and isinstance(generation, dict):
            parsed = generation.get("prediction")  # the harness's parse, as scored
            entry["questions"] = parsed if isinstance(parsed, list) else [parsed]
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
                "slug": c.slug,  # its page: <slug>.html
                "metric": c.metric,
                "key": c.key,
                "signature": c.signature,
                "dataset": c.dataset,
                "correlation_with_human": c.correlation,
                "rows": [flat(c, r) for r in c.rows],
            }
            for c in columns_
        ],
    )
