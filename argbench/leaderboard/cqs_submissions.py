"""The 15 CQs-Gen shared-task submissions, written out and scored by the paper's §6.1 protocol.

``extended_test.json`` (cqs_gen config ``extended``) holds, after each test intervention's
references, the shared task's submitted questions with their human labels, in blocks of three
per submission in file order (the loader numbers the blocks: ``submission`` 0-14, -1 for a test
reference; see docs/leaderboard.md for how the layout is inferred). This module

- writes each block as a submission file in the shared-task format
  (``{intervention_id: {"intervention_id", "cqs": [{"id", "cq"}]}}``), the human labels in a
  file beside it (:func:`write_submission_files`);
- scores each submission as §6.1 does: against the test references plus the other
  submissions' questions, its own removed (:func:`score_systems`), and the simple baselines
  against the test references plus every submission (nothing of theirs to remove: the same set
  the paper's Table 3 scores models against);
- gives each submission's human score (its share of questions people labelled Useful) and the
  correlation between the two rankings (:func:`ranking_correlation`).

The matching is :func:`argbench.scoring.cq_reference_match.cq_reference_match` itself; only the
encoding is shared: every distinct text (about 2,300) is encoded once
(:class:`VectorTable`), not once per submission (``scripts/bench_submissions.py``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from argbench.embedding import Embedder

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
    return f"submission_{index:02d}"


def _check_rows(rows) -> list[dict]:
    from argbench.scoring.cq_human_agreement import extended_references

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


def write_submission_files(
    rows, out_dir, label_names: Sequence[str], expected=N_SUBMISSIONS
) -> list[Path]:
    """``submission_NN.json`` (the shared-task format) and ``submission_NN.labels.json`` (the
    human label of each question, by intervention, in the same order) for each submission."""
    from argbench.io import write_json

    out_dir = Path(out_dir)
    written = []
    for index, by_intervention in split_submissions(rows, expected).items():
        name = submission_name(index)
        submission = {
            iid: {
                "intervention_id": iid,
                "cqs": [{"id": k, "cq": q["cq"]} for k, q in enumerate(qs)],
            }
            for iid, qs in by_intervention.items()
        }
        labels = {
            iid: [_name(q["label"], label_names) for q in qs] for iid, qs in by_intervention.items()
        }
        written.append(write_json(out_dir / f"{name}.json", submission))
        written.append(write_json(out_dir / f"{name}.labels.json", labels))
    return written


def _name(label, label_names) -> str:
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
                    iid: [_name(q["label"], label_names) for q in qs]
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
    rows, model, label_names: Sequence[str], *, threshold=0.65, shared=True, **options
):
    """(system, cq_reference_match result) for each of :func:`systems`, the result's signature
    carrying the protocol (``refs:test+submissions-own``) and ``human_score``.

    ``model``: an :class:`Embedder` or what it takes. ``shared=False`` is the naive loop
    (each system's texts encoded by its own call), kept for the bench."""
    from argbench.scoring.cq_reference_match import cq_reference_match
    from argbench.signature import Signature

    rows = _check_rows(rows)
    embedder = model if isinstance(model, Embedder) else Embedder(model)
    every = systems(rows, label_names, **options)
    if shared:
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


def ranks(values: Sequence[float]) -> np.ndarray:
    """Ranks 1..n, highest value first, ties sharing their mean rank. Values equal to 12
    decimals are ties: a mean of the same fractions summed in another order differs in the
    last bit (20/34 of a third is not always the same float)."""
    values = np.round(np.asarray(values, dtype=float), 12)
    order = np.argsort(-values, kind="stable")
    out = np.empty(len(values))
    out[order] = np.arange(1, len(values) + 1)
    for value in np.unique(values):
        tied = values == value
        out[tied] = out[tied].mean()
    return out


def ranking_correlation(automatic: Sequence[float], human: Sequence[float]) -> dict:
    """Pearson's r on the scores and Spearman's rho (Pearson on the ranks, ties averaged)
    between the automatic and the human scores of the same systems. The paper (§6.1) reports
    "Pearson's coefficient" between the two rankings without saying which; both are given."""
    if len(automatic) != len(human) or len(automatic) < 3:
        raise ValueError(
            f"need the same 3 or more systems on both sides, got {len(automatic)} and {len(human)}"
        )
    a, h = np.asarray(automatic, dtype=float), np.asarray(human, dtype=float)
    return {
        "pearson_scores": float(np.corrcoef(a, h)[0, 1]),
        "spearman_ranks": float(np.corrcoef(ranks(a), ranks(h))[0, 1]),
        "n": len(a),
    }


def results_documents(scored, split, *, resamples=10_000, seed=0, command=None) -> list[dict]:
    """One results document per scored system (:func:`argbench.results.build_document`), with
    a bootstrap interval over the interventions and the human score kept in the result."""
    from argbench.results import add_intervals, build_document

    docs = []
    for system, result in scored:
        add_intervals(result, resamples, seed)
        docs.append(
            build_document(
                "cq_reference_match",
                result,
                split,
                result["intervention_ids"],
                system=system["system"],
                command=command,
            )
        )
    return docs


def choose_model(model, log=print) -> tuple[Embedder, str]:
    """(embedder, note): ``model``, else the paper's stsb-mpnet-base-v2 when it loads, else
    the offline all-MiniLM-L6-v2; ``note`` is empty only for the paper's model."""
    from argbench.embedding import ModelUnavailableError, offline_minilm
    from argbench.scoring.cq_reference_match import DEFAULT_MODEL

    other = f"not the paper's model ({DEFAULT_MODEL}): not the paper's protocol, not comparable with its 0.69"
    if model is not None:
        return Embedder(model), "" if model == DEFAULT_MODEL else f"model {model}: {other}"
    try:
        embedder = Embedder(DEFAULT_MODEL)
        embedder.model  # noqa: B018 - load now: fail here, not mid-run
        return embedder, ""
    except ModelUnavailableError:
        fallback = offline_minilm()
        if fallback is None:
            raise
        note = f"{DEFAULT_MODEL} cannot be loaded (offline); the offline all-MiniLM-L6-v2 is used: {other}"
        log(f"note: {note}")
        return Embedder(fallback), note


def _rank_text(rank: float | None) -> str:
    return "—" if rank is None else f"{rank:g}"


def format_table(docs: list[dict], correlation: dict | None) -> str:
    """The submissions and baselines: STS score with its interval, human score, both ranks."""
    scored = [d for d in docs]
    sts_rank = ranks([d["result"]["score"] for d in scored])
    humans = [d for d in scored if d["result"].get("human_score") is not None]
    human_rank = dict(
        zip(
            [d["system"] for d in humans],
            ranks([d["result"]["human_score"] for d in humans]),
            strict=True,
        )
    )
    lines = [f"{'system':<22} {'STS':>6}  95% CI            human  STS rank  human rank"]
    for doc, rank_ in sorted(zip(scored, sts_rank, strict=True), key=lambda t: t[1]):
        r = doc["result"]
        ci = r["ci"]["score"]
        human = r.get("human_score")
        lines.append(
            f"{doc['system']:<22} {r['score']:.4f}  [{ci['low']:.4f}, {ci['high']:.4f}]  "
            + (f"{human:.4f}" if human is not None else "   —  ")
            + f"  {rank_:>8g}  {_rank_text(human_rank.get(doc['system'])):>10}"
        )
    if correlation:
        lines.append(
            f"STS vs human over the {correlation['n']} submissions: Pearson on scores "
            f"{correlation['pearson_scores']:.3f}, Spearman (Pearson on ranks) "
            f"{correlation['spearman_ranks']:.3f} (paper §6.1: 0.69, Pearson, stsb-mpnet-base-v2)"
        )
    return "\n".join(lines)


# what a second run with other settings is told (its results are refused, never written over)
ADVICE = "give another --out folder, or move the old one away"


def run(
    out,
    *,
    model=None,
    threshold=0.65,
    resamples=10_000,
    seed=0,
    sources=None,
    cache_dir=None,
    command=None,
    log=print,
) -> list[dict]:
    """``argbench submissions``: the submission files, the results files, the table."""
    from argbench.io import claim_output
    from argbench.results import load_split, write_results_once

    out = Path(out)
    claim_output(out / "correlation.json", suffixes=(".json",))
    split = load_split("cqs_gen", "extended", "test", sources=sources, cache_dir=cache_dir)
    rows = split.data.to_list()
    names = split.data.features["references"].feature["label"].names
    write_submission_files(rows, out / "submissions", names)
    embedder, model_note = choose_model(model, log)
    scored = score_systems(rows, embedder, names, threshold=threshold, seed=seed)
    for _, result in scored:
        result["note"] = " ".join(filter(None, [NOTE, model_note]))
    docs = results_documents(scored, split, resamples=resamples, seed=seed, command=command)
    written = write_results_once(
        [(out / "results" / f"{d['system']}.json", d) for d in docs], advice=ADVICE
    )
    paths = [path for path, _, _ in written]
    humans = [d for d in docs if d["result"].get("human_score") is not None]
    correlation = ranking_correlation(
        [d["result"]["score"] for d in humans], [d["result"]["human_score"] for d in humans]
    )
    from argbench.io import write_json

    write_json(
        out / "correlation.json", {"results": [p.name for p in paths], "correlation": correlation}
    )
    log(format_table(docs, correlation))
    log(
        f"{len(paths)} results files -> {out / 'results'}; submission files -> {out / 'submissions'}"
    )
    return docs
