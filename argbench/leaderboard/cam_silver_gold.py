"""CAM's released systems on the board: the ChatGPT answers (silver) and the expert-edited
answers (gold) to the same 50 comparative questions, scored as ``argbench evaluate`` scores any
system (:func:`argbench.results.evaluate_predictions`).

The items are the 50 questions of ``cam_answers`` config ``gold``: each question's arguments
and their relevance labels are the same in ``silver_subset`` (checked here, question by
question), so the silver answers are scored on the gold split, matched by object pair. Systems:
the experts' first answer to each question (``gold``), and each of ChatGPT's three answers
(``silver answer k``). Metrics: argument relevance (precision, recall, F1; the headline F1) and
the answer-argument overlap (Jaccard on the text, the headline)."""

from __future__ import annotations

from pathlib import Path

from argbench.io import staged_folder
from argbench.results import evaluate_predictions, write_results_once

METRICS = ("argument_relevance", "argument_overlap")


def _pair(row) -> frozenset:
    return frozenset((row["object_a"].lower(), row["object_b"].lower()))


def systems(gold, silver) -> dict[str, list[dict]]:
    """``{system: [{"question_id", "answer"}]}`` on the gold split's question ids."""
    by_pair = {}
    for row in gold:
        if row["answer_index"] == 0:
            by_pair[_pair(row)] = row
    out = {"gold (expert-edited)": [], **{f"silver answer {k + 1} (ChatGPT)": [] for k in range(3)}}
    for row in by_pair.values():
        out["gold (expert-edited)"].append(
            {"question_id": row["question_id"], "answer": row["answer"]}
        )
    for index, row in enumerate(silver):
        twin = by_pair.get(_pair(row))
        if twin is None:
            raise ValueError(
                f"cam_answers silver_subset row {index} ({row['object_a']} vs {row['object_b']}): "
                "no gold question for this object pair"
            )
        for field in ("arguments", "argument_relevance"):
            if row[field] != twin[field]:
                raise ValueError(
                    f"cam_answers silver_subset row {index}: {field} differ from the gold "
                    f"question {twin['question_id']}: the answers cannot be scored on one split"
                )
        name = f"silver answer {int(row['answer_index']) + 1} (ChatGPT)"
        out[name].append({"question_id": twin["question_id"], "answer": row["answer"]})
    return out


def run(out, *, resamples=10_000, seed=0, sources=None, cache_dir=None, command=None, log=print):
    """Results files ``<out>/<metric>-<system>.json`` for every system and metric."""
    from argbench.load import load  # imports datasets

    out = Path(out)
    # written beside ``out`` and swapped in whole: an interrupted run leaves the old folder
    with staged_folder(out, what="--out", log=log) as staging:
        gold = load("cam_answers", "gold", "train", sources=sources, cache_dir=cache_dir)
        silver = load("cam_answers", "silver_subset", "train", sources=sources, cache_dir=cache_dir)
        planned = []
        for system, records in systems(gold, silver).items():
            for metric in METRICS:
                doc = evaluate_predictions(
                    metric,
                    records,
                    "cam_answers",
                    "gold",
                    "train",
                    system=system,
                    ci=True,
                    resamples=resamples,
                    seed=seed,
                    sources=sources,
                    cache_dir=cache_dir,
                    command=command,
                )
                slug = "".join(c if c.isalnum() else "_" for c in system).strip("_")
                planned.append((staging.path / f"{metric}-{slug}.json", doc))
        written = write_results_once(planned, staging=staging)
        paths = [staging.target_of(path) for path, _, _ in written]
    log(f"CAM: {len(paths)} results files (silver and gold answers, 50 questions) -> {out}")
    return paths
