"""The CQs-Gen §6.1 protocol: the 15 shared-task submissions scored against each other.

``extended_test.json`` (cqs_gen config ``extended``) holds, after each test intervention's
references, the shared task's submitted questions with their human labels, in blocks of three
per submission in file order (the loader numbers the blocks: ``submission`` 0-14, -1 for a test
reference; see docs/leaderboard.md for how the layout is inferred). This module

- splits the blocks into submissions (:func:`split_submissions`) and adds the simple baselines
  (:func:`systems`);
- scores each submission as §6.1 does: against the test references plus the other
  submissions' questions, its own removed (:func:`score_systems`), and the baselines against
  the test references plus every submission (nothing of theirs to remove: the same set the
  paper's Table 3 scores models against);
- gives each submission's human score (its share of questions people labelled Useful); the
  correlation between the two rankings is :func:`argbench.scoring.statistics.ranking_correlation`
  and its bootstrap interval :mod:`argbench.scoring.judge_card` (the report's §6.1 row and the
  judge cards read the same function).

The matching is :func:`argbench.scoring.cq_reference_match.cq_reference_match` itself; only the
encoding is shared: every distinct text (about 2,300) is encoded once
(:class:`VectorTable`), not once per submission (``scripts/bench_submissions.py``). The
leaderboard (:mod:`argbench.leaderboard.cqs_submissions`: files, results documents, the table)
and the reproduction report (§6.1's row) both score through here.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from argbench.embedding import Embedder
from argbench.scoring.cq_human_agreement import extended_references
from argbench.scoring.cq_reference_match import cq_reference_match
from argbench.signature import Signature

# the signature field naming the reference set: a §6.1 score and a score against the whole
# extended test (``argbench evaluate ... cqs_gen extended test``) never share a column
PROTOCOL_FIELD = "refs"
PROTOCOL = "test+submissions-own"
N_SUBMISSIONS = 15
GENERIC = [
    "What evidence supports this claim?",
    "Is the source of this information reliable?",
    "Are there other factors that could explain this?",
]
BASELINES = ("references", "shuffled", "generic")
NOTE = (
    "CQs-Gen §6.1 protocol: each shared-task submission against the test references plus the "
    "other 14 submissions' questions (its own removed); a baseline against the test references "
    "plus all 15 (nothing of its own: the references of the paper's Table 3). Human score: the "
    "share of the submission's questions people labelled Useful (extended_test.json)."
)


def baseline_questions(kind: str, references: Sequence[dict], rng: random.Random) -> list[str]:
    """Three questions of a simple baseline for one intervention, from its own references:
    ``references`` (the first three verbatim), ``shuffled`` (their words in a seeded random
    order), ``generic`` (:data:`GENERIC`, the same everywhere)."""
    if kind == "generic":
        return list(GENERIC)
    if kind not in BASELINES:
        raise ValueError(f"unknown baseline {kind!r}; baselines: {', '.join(BASELINES)}")
    chosen = [r["cq"] for r in references[:3]]
    if kind == "references":
        return chosen
    out = []
    for question in chosen:
        words = question.split()
        rng.shuffle(words)
        out.append(" ".join(words))
    return out


def submission_name(index: int) -> str:
    """``submission_NN``: the name of a submission's files and of its system."""
    return f"submission_{index:02d}"


def _check_rows(rows) -> list[dict]:
    rows = list(rows)
    extended_references(rows)
    return rows


def split_submissions(
    rows, expected: int | None = N_SUBMISSIONS
) -> dict[int, dict[str, list[dict]]]:
    """``{submission: {intervention_id: [{"id", "cq", "label"}]}}`` from the extended rows
    (labels as they come: ClassLabel indices or names); ``expected``: the number of
    submissions the release holds (None: any)."""
    out: dict[int, dict[str, list[dict]]] = {}
    for row in _check_rows(rows):
        for ref in row["references"]:
            if ref["submission"] >= 0:
                out.setdefault(ref["submission"], {}).setdefault(row["intervention_id"], []).append(
                    {"id": ref["id"], "cq": ref["cq"], "label": ref["label"]}
                )
    if expected is not None and len(out) != expected:
        raise ValueError(f"expected {expected} submissions in the extended test, found {len(out)}")
    return dict(sorted(out.items()))


def label_name(label, label_names) -> str:
    """A reference's label as its name (the loader gives ClassLabel indices)."""
    return label if isinstance(label, str) else label_names[int(label)]


class VectorTable(Embedder):
    """An :class:`~argbench.embedding.Embedder` answering from vectors encoded beforehand.

    The §6.1 protocol matches 15 submissions (and the baselines) against reference sets that
    overlap almost entirely; encoding the union of their texts once and handing this table to
    ``cq_reference_match`` leaves the matching code untouched. The signature is the encoding
    model's; a text that was not encoded beforehand is an error, not a silent encode."""

    def __init__(self, embedder: Embedder, texts: Sequence[str]):  # noqa: D107 - no super(): no model
        unique = list(dict.fromkeys(texts))
        self._vectors = embedder.encode(unique)
        self._row = {text: i for i, text in enumerate(unique)}
        self._signature = embedder.signature
        self.name = embedder.name
        self.n_encoded = len(unique)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        for index, text in enumerate(texts):
            if text not in self._row:
                raise KeyError(f"texts[{index}] {text[:60]!r} was not encoded beforehand")
        return self._vectors[[self._row[t] for t in texts]]


def systems(
    rows, label_names: Sequence[str], *, baselines=BASELINES, seed: int = 0, expected=N_SUBMISSIONS
) -> list[dict]:
    """Every system to score: the submissions (with human labels), then the baselines; each
    ``{"system", "submission" (-1 for a baseline), "questions": {iid: [str]}, "human": {iid: [label]}}``."""
    rows = _check_rows(rows)
    out = []
    for index, by_intervention in split_submissions(rows, expected).items():
        out.append(
            {
                "system": submission_name(index),
                "submission": index,
                "questions": {iid: [q["cq"] for q in qs] for iid, qs in by_intervention.items()},
                "human": {
                    iid: [label_name(q["label"], label_names) for q in qs]
                    for iid, qs in by_intervention.items()
                },
            }
        )
    rng = random.Random(seed)
    for kind in baselines:
        questions = {}
        for row in rows:
            test = [r for r in row["references"] if r["submission"] < 0]
            questions[row["intervention_id"]] = baseline_questions(kind, test, rng)
        out.append(
            {"system": f"baseline_{kind}", "submission": -1, "questions": questions, "human": None}
        )
    return out


def _inputs(rows, system: dict, label_names) -> dict:
    """cq_reference_match's inputs for one system: its questions against the test references
    plus every submitted question but its own."""
    predictions, references, ids = [], [], []
    for row in rows:
        iid = row["intervention_id"]
        predictions.append(system["questions"].get(iid, []))  # none: "Missing CQs", 0 points
        references.append(
            [
                {"id": r["id"], "cq": r["cq"], "label": r["label"]}
                for r in row["references"]
                if r["submission"] != system["submission"] or r["submission"] < 0
            ]
        )
        ids.append(iid)
    return {"predictions": predictions, "references": references, "intervention_ids": ids}


def human_score(system: dict) -> float | None:
    """The share of the system's questions people labelled Useful (None: no human labels)."""
    if not system.get("human"):
        return None
    labels = [label for labels in system["human"].values() for label in labels]
    return labels.count("Useful") / len(labels)


def score_systems(
    rows, model, label_names: Sequence[str], *, threshold=0.65, shared=True, match=None, **options
):
    """(system, cq_reference_match result) for each of :func:`systems`, the result's signature
    carrying the protocol (``refs:test+submissions-own``) and ``human_score``.

    ``model``: an :class:`Embedder` or what it takes. ``shared=False`` is the naive loop
    (each system's texts encoded by its own call), kept for the bench. ``match``: more
    options of ``cq_reference_match`` (another judge: ``{"matcher": "llm", "llm": endpoint,
    "on_failure": "incomplete"}``; ``model`` is then unused)."""
    rows = _check_rows(rows)
    match = dict(match or {})
    sts = match.get("matcher", "sts") == "sts"
    embedder = model if isinstance(model, Embedder) or not sts else Embedder(model)
    every = systems(rows, label_names, **options)
    if shared and sts:
        texts = [r["cq"] for row in rows for r in row["references"]]
        texts += [q for s in every for qs in s["questions"].values() for q in qs]
        embedder = VectorTable(embedder, texts)
    out = []
    for system in every:
        result = cq_reference_match(
            **_inputs(rows, system, label_names),
            model=embedder,
            threshold=threshold,
            label_names=label_names,
            **match,
        )
        signature = Signature.parse(result["signature"]).replace(**{PROTOCOL_FIELD: PROTOCOL})
        result["signature"] = signature.render()
        result["human_score"] = human_score(system)
        # kept for the system's page: its questions and the human labels beside the metric's
        result["questions"] = [system["questions"].get(i, []) for i in result["intervention_ids"]]
        if system["human"]:
            result["human_labels"] = [
                system["human"].get(i, []) for i in result["intervention_ids"]
            ]
        result["note"] = NOTE
        out.append((system, result))
    return out
