"""A harness run of a declared task (:mod:`argbench.tasks`): its documents, prompts,
predictions, and the results documents its records score to.

lm-evaluation-harness (:mod:`argbench.harness.lm_eval`) and inspect-ai
(:mod:`argbench.harness.inspect_tasks`) only wire the declarations in; everything they do with
a document or a model output is here and in the task's kind (:mod:`argbench.tasks.kinds`),
and every number comes from :mod:`argbench.scoring`.

A task scores the whole run at once (corpus level): the harness hands each document's parsed
output to :func:`score`, which calls the metric once over all of them, so the STS encoding of
CQs-Gen happens once over the unique texts of the run (and the embedding cache makes the same
texts free the next time). ``argbench import-harness`` turns a harness log into argbench
results files through :func:`argbench.results.evaluate_predictions`, with the same options.

Settings come from the environment, because neither harness passes options to an aggregation:
an option a task declares ``{env: NAME}`` (the CQs-Gen matcher's model:
``ARGBENCH_STS_MODEL``), ``ARGBENCH_HARNESS_DATA`` (a folder written by ``argbench build``:
the corpora are read from ``<folder>/<name>`` instead of being built from their sources), and
the LLM judge's ``ARGBENCH_LLM_MODEL`` / ``_BASE_URL`` / ``_API_KEY`` (a task's judged metrics,
CAM's AAC, are computed only when ``ARGBENCH_LLM_MODEL`` is set).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from pathlib import Path

from argbench.llm import MODEL_ENV
from argbench.results import evaluate_predictions, load_split
from argbench.scoring import declaration
from argbench.signature import short_hash
from argbench.tasks import task

DATA_ENV = "ARGBENCH_HARNESS_DATA"


# ---------------------------------------------------------------- documents


def run_split(corpus: str, config: str, split: str):
    """An :class:`argbench.results.Split`: from ``$ARGBENCH_HARNESS_DATA/<corpus>`` when set,
    else argbench's loader (``$ARGBENCH_SOURCES`` or the network). The content hash is the
    same."""
    return _cached_split(_source(corpus), config, split)


def _source(corpus: str) -> str:
    folder = os.environ.get(DATA_ENV)
    return str(Path(folder) / corpus) if folder else corpus


@functools.lru_cache(maxsize=16)
def _cached_split(where: str, config: str, split: str):
    return load_split(where, config, split)


def documents(name: str) -> list[dict]:
    """The documents a harness runs, in a fixed order; each carries ``argbench_id`` and the
    content hash of the split it came from. Rows are kept where they hold the declaration's
    ``documents`` values (CAM: the first answer of each question, whose argument list the
    answers saw); the task's kind adds what else a run needs (ClaimDiff: dev documents)."""
    t = task(name)
    split = run_split(t.corpus, t.config, t.split)
    rows = [
        row
        for row in split.data.to_list()
        if all(row.get(key) == value for key, value in t.documents.items())
    ]
    rows = t.behaviour.documents(t, rows, lambda other: run_split(t.corpus, t.config, other).data)
    digest = split.identity()["content_hash"]
    for row in rows:
        row["argbench_id"] = str(row[t.id_field])
        row["argbench_split_hash"] = digest  # checked when the run is scored (results())
        if hasattr(row.get("date"), "isoformat"):
            row["date"] = row["date"].isoformat()  # harness logs are JSON
    return rows


def prompt(name: str, doc: dict) -> str:
    t = task(name)
    return t.behaviour.prompt(t, doc)


def prediction(name: str, doc: dict, output) -> dict:
    """One document's prediction record, keyed by the corpus id: what harness logs keep and
    what :func:`score` and ``argbench import-harness`` read. ``output``: the generated text,
    or for a choice task the log-likelihoods of its choices."""
    t = task(name)
    record = {t.id_field: doc[t.id_field], "split_hash": doc.get("argbench_split_hash")}
    record.update(t.behaviour.prediction(t, doc, output))
    return record


# ---------------------------------------------------------------- scoring


def metrics_of(name: str) -> tuple[str, ...]:
    """The task's metrics; its judged metrics (CAM's AAC) only when an LLM judge is set."""
    t = task(name)
    return t.metrics + (t.judged_metrics if os.environ.get(MODEL_ENV) else ())


class NoScoredItem(ValueError):
    """The records hold no item of the split that is scored (yet: a harness may compute its
    metrics while samples are still arriving, dev pairs first)."""


def results(name: str, records: list[dict], *, system=None, command=None) -> dict[str, dict]:
    """metric -> argbench results document of one run's prediction records (any order, a
    subset under ``--limit``: the documents say how many items were not scored)."""
    t = task(name)
    scored, extra = t.behaviour.scored_records(t, records, lambda: documents(name))
    if not scored:
        raise NoScoredItem(f"{name}: no {t.split} item was run (a --limit that small?)")
    docs = {}
    for metric in metrics_of(name):
        docs[metric] = evaluate_predictions(
            metric,
            scored,
            _source(t.corpus),
            t.config,
            t.split,
            options={**t.options_for(metric), **extra},
            allow_missing=True,
            system=system,
            command=command,
        )
        _check_split(name, records, docs[metric]["dataset"]["content_hash"])
        docs[metric]["task"] = identity(name)
    return docs


def identity(name: str) -> dict:
    """What the task itself adds to a number: its name and an 8-character hash of its prompt
    template (with a choice task's choices): a changed prompt is another measurement, though
    the metric is the same."""
    t = task(name)
    return {"name": f"argbench/{name}", "prompt": short_hash(t.prompt + "".join(t.choices))}


def _check_split(name: str, records: list[dict], scored: str) -> None:
    """The run's documents came from the split it is scored against (same content hash)."""
    ran = {r.get("split_hash") for r in records} - {None}
    if ran and ran != {scored}:
        raise ValueError(
            f"{name}: the run's documents come from a split with content hash "
            f"{', '.join(sorted(ran))}, but it is scored against {scored}: score it with the "
            f"data the run used (${DATA_ENV}, $ARGBENCH_SOURCES as in the run)"
        )


_memo: dict[str, dict] = {}


def score(name: str, records: list[dict]) -> dict[str, dict]:
    """metric -> results document, computed once per set of records: the harness asks for each
    figure of a task separately, with the same records."""
    key = hashlib.sha256(
        json.dumps([name, records], sort_keys=True, default=str).encode()
    ).hexdigest()
    if key not in _memo:
        _memo.clear()
        _memo[key] = results(name, records)
    return _memo[key]


def figure(name: str, records: list[dict], metric: str, key: str) -> float:
    """One figure of a task's score (``nan`` when undefined), for a harness's table."""
    value = score(name, records)[metric]["result"].get(key)
    return float("nan") if value is None else float(value)


def figures(name: str) -> dict[str, tuple[str, object]]:
    """label -> (metric, figure) a harness's table shows for task ``name``: the declared
    figures of its (unjudged) metrics (:class:`argbench.scoring.declaration.Figure`)."""
    return {
        label: (metric, fig)
        for metric in task(name).metrics
        for label, fig in declaration(metric).figures.items()
    }
