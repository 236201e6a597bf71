"""The one implementation behind argbench's harness tasks: documents, prompts, parsers, scorers.

lm-evaluation-harness (``lm_eval_tasks/*.yaml`` + ``utils.py``) and inspect-ai
(:mod:`argbench.harness.inspect_tasks`) only declare the tasks; everything they do with a
document or a model output is here, and every number comes from :mod:`argbench.scoring`.

A task scores the whole run at once (corpus level): the harness hands each document's parsed
output to :func:`score`, which calls the metric once over all of them, so the STS encoding of
CQs-Gen happens once over the unique texts of the run (and the embedding cache makes the same
texts free the next time). ``argbench import-harness`` turns a harness log into argbench
results files through :func:`argbench.results.evaluate_predictions`, with the same options.

Settings come from the environment, because neither harness passes options to an aggregation:
``ARGBENCH_STS_MODEL`` (the CQs-Gen matcher's sentence-transformers model, default the paper's
``stsb-mpnet-base-v2``), ``ARGBENCH_HARNESS_DATA`` (a folder written by ``argbench build``: the
corpora are read from ``<folder>/<name>`` instead of being built from their sources), and the
LLM judge's ``ARGBENCH_LLM_MODEL`` / ``_BASE_URL`` / ``_API_KEY`` (CAM's AAC is computed only
when ``ARGBENCH_LLM_MODEL`` is set).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

STS_MODEL_ENV = "ARGBENCH_STS_MODEL"
DATA_ENV = "ARGBENCH_HARNESS_DATA"
QUESTIONS = 3  # the paper's generation setting: three critical questions per intervention
DEV_FRACTION, DEV_SEED = 0.3, 0  # ClaimDiff dev split: loaders.claimdiff.issue_split defaults
FALLBACK_THRESHOLD = 0.5  # only when the dev pairs run hold no positive (tiny --limit)


@dataclass(frozen=True)
class Task:
    """One harness task: the corpus split it runs on and the metrics that score it."""

    name: str
    dataset: str
    config: str
    split: str
    id_field: str  # the corpus's id column (argbench.results.ID_COLUMNS)
    prediction: str  # the record field the metric reads (argbench.records.COLUMNS)
    metrics: tuple[str, ...]
    measures: str  # one line for docs and --help
    options: dict = field(default_factory=dict)  # metric -> compute() options (fixed)


TASKS = {
    "cqs_gen": Task(
        "cqs_gen",
        "cqs_gen",
        "interventions",
        "validation",
        "intervention_id",
        "cqs",
        ("cq_reference_match",),
        "three critical questions per intervention, matched to the labelled references (STS)",
    ),
    # the paper's benchmark split (its references are in the release since cqs_gen 2.0.0):
    # hub_eval's task cq_reference_match, the leaderboard's test column
    "cqs_gen_test": Task(
        "cqs_gen_test",
        "cqs_gen",
        "interventions",
        "test",
        "intervention_id",
        "cqs",
        ("cq_reference_match",),
        "three critical questions per test intervention (the paper's benchmark split), as cqs_gen",
    ),
    "claimdiff_s": Task(
        "claimdiff_s",
        "claimdiff",
        "S",
        "test",
        "pair_id",
        "score",
        ("claim_relation",),
        "P(claim A strengthens claim B) from log-likelihoods: AUROC, F1/P/R at the dev threshold",
    ),
    "claimdiff_w": Task(
        "claimdiff_w",
        "claimdiff",
        "W",
        "test",
        "pair_id",
        "score",
        ("claim_relation",),
        "P(claim A weakens claim B) from log-likelihoods: AUROC, F1/P/R at the dev threshold",
    ),
    "cam_answers": Task(
        "cam_answers",
        "cam_answers",
        "silver",
        "train",
        "question_id",
        "answer",
        ("argument_relevance", "argument_overlap"),
        "a comparative answer citing the numbered arguments as [N]: AR P/R/F1, overlap (AAC with a judge)",
    ),
}


def task(name: str) -> Task:
    if name not in TASKS:
        raise ValueError(f"unknown argbench harness task {name!r}; tasks: {', '.join(TASKS)}")
    return TASKS[name]


# ---------------------------------------------------------------- documents


def load_split(dataset: str, config: str, split: str):
    """An :class:`argbench.results.Split`: from ``$ARGBENCH_HARNESS_DATA/<dataset>`` when set,
    else argbench's loader (``$ARGBENCH_SOURCES`` or the network). The content hash is the same."""
    return _cached_split(_source(dataset), config, split)


def _source(dataset: str) -> str:
    folder = os.environ.get(DATA_ENV)
    return str(Path(folder) / dataset) if folder else dataset


@functools.lru_cache(maxsize=16)
def _cached_split(where: str, config: str, split: str):
    from argbench import results

    return results.load_split(where, config, split)


def task_split(name: str):
    t = task(name)
    return load_split(t.dataset, t.config, t.split)


def documents(name: str) -> list[dict]:
    """The documents a harness runs, in a fixed order; each carries ``argbench_id``.

    ClaimDiff: the test pairs and the dev pairs (``part``), interleaved so that any prefix
    (``--limit``) holds both in proportion: the threshold is chosen on the dev part.
    CAM: one document per question (its first answer's row: the argument list the answers saw).
    """
    t = task(name)
    split = task_split(name)
    rows = split.data.to_list()
    digest = split.identity()["content_hash"]
    if t.dataset == "claimdiff":
        from argbench.loaders.claimdiff import issue_split

        train = load_split(t.dataset, t.config, "train").data
        _, dev = issue_split(train, DEV_FRACTION, DEV_SEED)
        rows = _interleave(
            [{**r, "part": "test"} for r in rows], [{**r, "part": "dev"} for r in dev.to_list()]
        )
    elif t.dataset == "cam_answers":
        rows = [r for r in rows if r["answer_index"] == 0]
    for row in rows:
        row["argbench_id"] = str(row[t.id_field])
        row["argbench_split_hash"] = digest  # checked when the run is scored (results())
        if hasattr(row.get("date"), "isoformat"):
            row["date"] = row["date"].isoformat()  # harness logs are JSON
    return rows


def _interleave(a: list, b: list) -> list:
    keyed = [((i + 0.5) / len(a), 0, x) for i, x in enumerate(a)]
    keyed += [((i + 0.5) / len(b), 1, x) for i, x in enumerate(b)]
    return [x for *_, x in sorted(keyed, key=lambda k: (k[0], k[1]))]


# ---------------------------------------------------------------- prompts

CQ_PROMPT = """\
Below is an argumentative text. Write three critical questions that challenge the \
arguments in it: questions a careful reader would ask to test whether its reasoning holds. \
Write one question per line and nothing else: no numbering, no introduction, no explanation.

Text:
{intervention}

Questions:
"""

RELATION_PROMPT = """\
Claim A: {claim_a}
Claim B: {claim_b}
Question: Does claim A {verb} claim B? Answer yes or no.
Answer:"""
VERBS = {"S": "strengthen", "W": "weaken"}
CHOICES = [" no", " yes"]  # index 1 is the positive relation

CAM_PROMPT = """\
Compare {object_a} and {object_b}{aspect}. Use the numbered arguments below. Write a short \
answer that says which one is better and why, and cite every argument you use by its number \
in square brackets, like [3]. Use only the arguments below.

Arguments:
{arguments}

Answer:
"""


def prompt(name: str, doc: dict) -> str:
    t = task(name)
    if t.dataset == "cqs_gen":
        return CQ_PROMPT.format(intervention=doc["intervention"])
    if t.dataset == "claimdiff":
        return RELATION_PROMPT.format(
            claim_a=doc["claim_a"], claim_b=doc["claim_b"], verb=VERBS[t.config]
        )
    arguments = "\n".join(f"{n}. {a}" for n, a in enumerate(doc["arguments"], 1))
    aspect = f" with respect to {doc['aspect']}" if doc.get("aspect") else ""
    return CAM_PROMPT.format(
        object_a=doc["object_a"], object_b=doc["object_b"], aspect=aspect, arguments=arguments
    )


# ---------------------------------------------------------------- parsers

_MARKER = re.compile(
    r"^\s*(?:(?:[-*•·–—]|\(?\d{1,3}[.):]|\(?[a-zA-Z][.)]|(?:Q|Question)\s*\d*\s*[:.)-])\s*)+"
)


_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text) -> str:
    """Model output as valid text: ``None`` is empty; unpaired surrogates (undecodable bytes
    some servers pass through) become U+FFFD, so one bad byte cannot fail the whole run."""
    if text is None:
        return ""
    if isinstance(text, bytes):
        return text.decode("utf-8", "replace")
    return _SURROGATE.sub("\ufffd", str(text))


def parse_questions(text, prompt_text: str | None = None) -> list[str]:
    """The questions of one generation: one per non-blank line, list markers (``1.``, ``2)``,
    ``-``, ``*``, ``•``, ``Q1:``) removed; an echoed prompt is dropped first. All questions
    are kept (the metric scores the first three: ``max_questions=3``); ``[]`` when none is
    left, which the metric scores as "Missing CQs" (0 points, three NAE), never dropped."""
    text = clean_text(text)
    if prompt_text and text.lstrip().startswith(prompt_text.strip()):
        text = text.lstrip()[len(prompt_text.strip()) :]
    questions = []
    for line in text.splitlines():
        question = _MARKER.sub("", line).strip()
        if question:
            questions.append(question)
    return questions


def positive_probability(loglikelihoods) -> float:
    """P(positive) from the log-likelihoods of the two answers ``[no, yes]``, normalised."""
    no, yes = (float(x) for x in loglikelihoods)
    top = max(no, yes)
    if not math.isfinite(top):
        raise ValueError(f"log-likelihoods must be finite numbers, got {loglikelihoods!r}")
    return math.exp(yes - top) / (math.exp(yes - top) + math.exp(no - top))


def parse_answer(text, prompt_text: str | None = None) -> str:
    """A CAM answer as written (cleaned text, an echoed prompt dropped); citations are read by
    the metrics (argbench.citations)."""
    text = clean_text(text)
    if prompt_text and text.lstrip().startswith(prompt_text.strip()):
        text = text.lstrip()[len(prompt_text.strip()) :]
    return text.strip()


def prediction(name: str, doc: dict, output) -> dict:
    """One document's prediction record, keyed by the corpus id: what harness logs keep and
    what :func:`score` and ``argbench import-harness`` read. ``output``: the generated text,
    or for ClaimDiff the two log-likelihoods ``[no, yes]``."""
    t = task(name)
    record = {t.id_field: doc[t.id_field], "split_hash": doc.get("argbench_split_hash")}
    if t.dataset == "cqs_gen":
        record["cqs"] = parse_questions(output, prompt(name, doc))
    elif t.dataset == "claimdiff":
        record["score"] = positive_probability(output)
        record["part"] = doc["part"]
    else:
        record["answer"] = parse_answer(output, prompt(name, doc))
    return record


# ---------------------------------------------------------------- scoring


def options(name: str, metric: str) -> dict:
    """compute() options of ``metric`` for ``name``: fixed by the task, or from the environment."""
    if metric == "cq_reference_match":
        return {
            "model": os.environ.get(STS_MODEL_ENV) or _default_sts(),
            "threshold": 0.65,
            "max_questions": QUESTIONS,
        }
    if metric == "argument_answer_coherence":
        return {"judge": "llm"}
    return {}


def _default_sts() -> str:
    from argbench.scoring.cq_reference_match import DEFAULT_MODEL

    return DEFAULT_MODEL


def metrics_of(name: str) -> tuple[str, ...]:
    """The task's metrics; CAM's AAC only when an LLM judge is configured."""
    from argbench.llm import MODEL_ENV

    extra = ("argument_answer_coherence",) if task(name).dataset == "cam_answers" else ()
    return task(name).metrics + (extra if os.environ.get(MODEL_ENV) else ())


def split_records(name: str, records: list[dict]) -> tuple[list[dict], dict]:
    """(test records, extra compute() options): ClaimDiff's dev records become the dev scores
    that choose the threshold (dev labels from the dev split, by pair id)."""
    if task(name).dataset != "claimdiff":
        return records, {}
    test = [r for r in records if r["part"] == "test"]
    dev = [r for r in records if r["part"] == "dev"]
    labels = {d["pair_id"]: d["label"] for d in documents(name) if d["part"] == "dev"}
    dev_labels = [labels[r["pair_id"]] for r in dev]
    if not any(dev_labels):  # a small --limit: no dev positive to choose the threshold on
        warnings.warn(
            f"{name}: the {len(dev)} dev pairs run hold no positive example, so no threshold "
            f"can be chosen on them; F1/P/R use the fixed threshold {FALLBACK_THRESHOLD} "
            "(the signature says thr_from:given). Run more items (a larger --limit).",
            stacklevel=2,
        )
        return test, {"threshold": FALLBACK_THRESHOLD}
    return test, {"dev_predictions": [r["score"] for r in dev], "dev_references": dev_labels}


class NoScoredItem(ValueError):
    """The records hold no item of the split that is scored (yet: a harness may compute its
    metrics while samples are still arriving, dev pairs first)."""


def results(name: str, records: list[dict], *, system=None, command=None) -> dict[str, dict]:
    """metric -> argbench results document of one run's prediction records (any order, a
    subset under ``--limit``: the documents say how many items were not scored)."""
    from argbench.results import evaluate_predictions

    t = task(name)
    test, extra = split_records(name, records)
    if not test:
        raise NoScoredItem(f"{name}: no {t.split} item was run (a --limit that small?)")
    docs = {}
    for metric in metrics_of(name):
        docs[metric] = evaluate_predictions(
            metric,
            test,
            _source(t.dataset),
            t.config,
            t.split,
            options={**options(name, metric), **extra},
            allow_missing=True,
            system=system,
            command=command,
        )
        _check_split(name, records, docs[metric]["dataset"]["content_hash"])
        docs[metric]["task"] = identity(name)
    return docs


def identity(name: str) -> dict:
    """What the task itself adds to a number: its name and an 8-character hash of its prompt
    template (a changed prompt is another measurement, though the metric is the same)."""
    from argbench.signature import short_hash

    template = {"cqs_gen": CQ_PROMPT, "claimdiff": RELATION_PROMPT, "cam_answers": CAM_PROMPT}
    t = task(name)
    text = template[t.dataset] + ("".join(CHOICES) if t.dataset == "claimdiff" else "")
    return {"name": f"argbench/{name}", "prompt": short_hash(text)}


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
