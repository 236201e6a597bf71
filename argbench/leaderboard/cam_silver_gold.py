"""CAM's released systems on the board: the ChatGPT answers (silver) and the expert-edited
answers (gold) to the same 50 comparative questions, scored as ``argbench evaluate`` scores any
system (:func:`argbench.results.evaluate_predictions`).

The items are the 50 questions of ``cam_answers`` config ``gold``: each question's arguments
and their relevance labels are the same in ``silver_subset`` (checked here, question by
question), so the silver answers are scored on the gold split, matched by object pair. Systems:
the experts' first answer to each question (``gold``), and each of ChatGPT's three answers
(``silver answer k``). Metrics: argument relevance (precision, recall, F1; the headline F1) and
the answer-argument overlap (Jaccard on the text, the headline).

The same answers are also scored on the split the benchmark task (``cam_answers``, what a
harness run of a model is scored on) uses, each gold question matched to the task split's
question on the same object pair with the same arguments and labels (:func:`on_task_split`):
there a model run through lm-eval or inspect shares a column with the experts and ChatGPT. The
task split holds more questions than the 50, so these rows are marked incomplete (50 of its
questions scored)."""

from __future__ import annotations

from pathlib import Path

from argbench.io import staged_folder
from argbench.results import evaluate_predictions, write_results_once
from argbench.tasks import task

METRICS = ("argument_relevance", "argument_overlap")
TASK = "cam_answers"  # the benchmark task a model's answers are scored by


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


def on_task_split(gold, task_rows, by_system: dict[str, list[dict]]) -> dict[str, list[dict]]:
    """``by_system`` (answers keyed by gold question id) keyed by the task split's question
    ids: each gold question's twin there is the first question on the same object pair whose
    arguments and relevance labels are the same (an error names a gold question without one)."""
    firsts = [row for row in task_rows if row["answer_index"] == 0]
    twin = {}
    for row in gold:
        if row["answer_index"] != 0:
            continue
        match = next(
            (
                t
                for t in firsts
                if _pair(t) == _pair(row)
                and t["arguments"] == row["arguments"]
                and t["argument_relevance"] == row["argument_relevance"]
            ),
            None,
        )
        if match is None:
            raise ValueError(
                f"cam_answers gold question {row['question_id']} ({row['object_a']} vs "
                f"{row['object_b']}): no question of the task's split with its arguments"
            )
        twin[row["question_id"]] = match["question_id"]
    return {
        system: [{**r, "question_id": twin[r["question_id"]]} for r in records]
        for system, records in by_system.items()
    }


def run(out, *, resamples=10_000, seed=0, sources=None, cache_dir=None, command=None, log=print):
    """Results files ``<out>/<metric>-<system>.json`` for every system and metric."""
    from argbench.load import load  # imports datasets

    out = Path(out)
    gold_config = "gold"
    gold = load("cam_answers", gold_config, "train", sources=sources, cache_dir=cache_dir)
    silver = load("cam_answers", "silver_subset", "train", sources=sources, cache_dir=cache_dir)
    bench = task(TASK)
    task_rows = load(bench.corpus, bench.config, bench.split, sources=sources, cache_dir=cache_dir)
    by_system = systems(gold, silver)
    scored_on = [
        ((gold_config, "train"), by_system, out, {}),
        (
            (bench.config, bench.split),
            on_task_split(gold, task_rows, by_system),
            out / "task",
            {"allow_missing": True},
        ),
    ]
    # written beside ``out`` and swapped in whole: an interrupted run leaves the old folder
    with staged_folder(out, what="--out", log=log) as staging:
        planned = []
        for (config, split), answers, folder, extra in scored_on:
            inside = staging.path / folder.relative_to(out)
            planned += _documents(
                answers, config, split, inside, extra, resamples, seed, sources, cache_dir, command
            )
        written = write_results_once(planned, staging=staging)
        paths = [staging.target_of(path) for path, _, _ in written]
    log(
        f"CAM: {len(paths)} results files (silver and gold answers, 50 questions, on the gold "
        f"split and on the benchmark task's {bench.config}/{bench.split}) -> {out}"
    )
    return paths


def _documents(answers, config, split, folder, extra, resamples, seed, sources, cache_dir, command):
    """(path, results document) of every system and metric on one split."""
    planned = []
    for system, records in answers.items():
        for metric in METRICS:
            doc = evaluate_predictions(
                metric,
                records,
                "cam_answers",
                config,
                split,
                system=system,
                ci=True,
                resamples=resamples,
                seed=seed,
                sources=sources,
                cache_dir=cache_dir,
                command=command,
                **extra,
            )
            slug = "".join(c if c.isalnum() else "_" for c in system).strip("_")
            planned.append((folder / f"{metric}-{slug}.json", doc))
    return planned
