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
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from argbench.io import atomic_write, write_json
from argbench.results import DATASET_FIELDS, read_results
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
    rows: list = field(default_factory=list)
    correlation: dict | None = None

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
    "system", "reason"}`` for results that cannot sit in any column."""
    groups: dict[str, Column] = {}
    refused = []
    for path, doc in read_docs:
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
    out = list(groups.values())
    for column in out:
        # the items in a complete result's order when there is one (argbench compare's order)
        first = next((d for d in column.docs if not d.get("n_missing")), column.docs[0])
        column.items = split_items(first)
        rank(column, resamples=resamples, seed=seed, confidence=confidence)
    out.sort(key=lambda c: (c.benchmark, c.title(), c.signature))
    return out, refused


def _matrix(column: Column) -> list[list[float]]:
    """systems × the column's items: each result's per-item headline, NaN where it has none
    (an item it did not score, or a value the metric left undefined)."""
    rows = []
    for doc in column.docs:
        values = dict(per_item(doc, column.key))
        rows.append([_nan(values.get(item)) for item in column.items])
    return rows


def _nan(value) -> float:
    return float("nan") if value is None else value


def rank(column: Column, *, resamples=10_000, seed=0, confidence=0.95) -> None:
    """Fill ``column.rows``: best first, each with its interval, the paired test against the
    leader and the systems it cannot be told apart from (p >= 0.05, either direction). The
    statistics are ``argbench compare``'s (:func:`argbench.scoring.significance.compare_systems`
    on the same matrix); a result scored on fewer items is paired on the items it has."""
    from argbench.scoring.significance import compare_systems

    labels = [str(i) for i in range(len(column.docs))]
    stats = compare_systems(_matrix(column), labels, resamples, seed, confidence)
    p_of = {}
    for pair in stats["pairs"]:
        p_of[(pair["a"], pair["b"])] = p_of[(pair["b"], pair["a"])] = pair
    order = sorted(range(len(column.docs)), key=lambda i: -_sortable(stats["systems"][i]["score"]))
    place_of = {labels[i]: place for place, i in enumerate(order, 1)}
    leader = labels[order[0]]
    rows = []
    for place, i in enumerate(order, 1):
        doc, system = column.docs[i], stats["systems"][i]
        values = doc["result"]["per_item"][column.key]
        pair = p_of.get((labels[i], leader))
        difference = None
        if pair is not None:
            sign = 1 if pair["a"] == labels[i] else -1
            difference = {
                "difference": sign * pair["difference"],
                "low": sign * (pair["low"] if sign > 0 else pair["high"]),
                "high": sign * (pair["high"] if sign > 0 else pair["low"]),
                "p_value": pair["p_value"],
            }
        ties = [
            other
            for other in labels
            if other != labels[i] and p_of[(labels[i], other)]["p_value"] >= ALPHA
        ]
        result = doc["result"]
        rows.append(
            {
                "rank": place,
                "index": i,  # of the document in column.docs
                "system": str(doc.get("system")),
                "run": run_label(doc),
                "score": system["score"],
                "low": system["low"],
                "high": system["high"],
                "items_scored": sum(1 for v in values if v is not None),
                "items": len(column.items),
                "complete": bool(result.get("complete", True)) and not doc.get("n_missing"),
                "vs_leader": difference,
                "tied_with_leader": pair is None or pair["p_value"] >= ALPHA,
                "not_distinguishable_from": [str(column.docs[int(o)].get("system")) for o in ties],
                "tied_ranks": sorted(place_of[o] for o in ties),
                "human_score": result.get("human_score"),
                "figures": _figures(result, column.key),
                "flags": _flags(doc),
                "dataset_version": _revision(doc.get("dataset") or column.dataset),
                "content_hash": column.dataset.get("content_hash"),
                "signature": doc["signature"],
                "model": model_text(doc["signature"]),
                "harness": harness_text(doc),
                "harness_task": task_text(doc["task"]) if doc.get("task") else None,
                "path": column.paths[i],
                "created": doc.get("created"),
            }
        )
    column.rows = rows
    column.stats = {k: stats[k] for k in ("n_items", "resamples", "seed", "confidence")}
    human = [r for r in rows if r["human_score"] is not None]
    if len(human) >= 3:
        from argbench.scoring.cq_submissions import ranking_correlation

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
    "rank", "system", "score", "low", "high", "items_scored", "items", "complete",
    "vs_leader_difference", "vs_leader_p", "tied_with_leader", "not_distinguishable_from",
    "human_score", "flags", "dataset_version", "content_hash", "signature", "model", "harness",
    "harness_task", "run",
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
    writer.writerows(flat(c, r) for c in columns_ for r in c.rows)
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
