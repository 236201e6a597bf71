"""``argbench submissions`` for CQs-Gen: the 15 shared-task submissions on the board.

The scoring is :mod:`argbench.scoring.cq_submissions` (the paper's §6.1 protocol). This
module writes what a user can look at and reuse: each submission as a file in the shared-task
format (``{intervention_id: {"intervention_id", "cqs": [{"id", "cq"}]}}``) with the human
labels in a file beside it (:func:`write_submission_files`), one results document per system
(:func:`results_documents`), the ranking correlation, and the table on stdout.

Each system is also scored the way a new system is (:func:`test_documents`): its questions as
a shared-task submission file, scored by :func:`argbench.results.evaluate_predictions` against
the test references alone under the benchmark task's options (``argbench evaluate
cq_reference_match FILE --dataset cqs_gen interventions test``, the shared task's own
evaluation, and what ``argbench import-harness`` gives a model run on ``cqs_gen_test``). Those
results share a leaderboard column with any model scored so; the §6.1 results (signature
``refs:test+submissions-own``) stay the view of how the metric agrees with people.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from argbench.constants import CQS_GEN_STS_MODEL
from argbench.embedding import Embedder, ModelUnavailableError, offline_minilm
from argbench.io import staged_folder, write_json
from argbench.results import (
    add_intervals,
    build_document,
    evaluate_predictions,
    load_split,
    write_results_once,
)
from argbench.scoring.cq_submissions import (
    N_SUBMISSIONS,
    NOTE,
    VectorTable,
    human_score,
    label_name,
    score_systems,
    split_submissions,
    submission_name,
    systems,
)
from argbench.scoring.judge_card import ranking_level
from argbench.scoring.statistics import ranks
from argbench.tasks import task

# the benchmark task a new system is scored by (its split and options): the test interventions
TEST_TASK = "cqs_gen_test"
METRIC = "cq_reference_match"


def write_submission_files(
    rows, out_dir, label_names: Sequence[str], expected=N_SUBMISSIONS
) -> list[Path]:
    """``submission_NN.json`` (the shared-task format) and ``submission_NN.labels.json`` (the
    human label of each question, by intervention, in the same order) for each submission."""
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
            iid: [label_name(q["label"], label_names) for q in qs]
            for iid, qs in by_intervention.items()
        }
        written.append(write_json(out_dir / f"{name}.json", submission))
        written.append(write_json(out_dir / f"{name}.labels.json", labels))
    return written


def results_documents(scored, split, *, resamples=10_000, seed=0, command=None) -> list[dict]:
    """One results document per scored system (:func:`argbench.results.build_document`), with
    a bootstrap interval over the interventions and the human score kept in the result."""
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


def submission_file(questions: dict[str, list[str]], item_ids) -> dict:
    """A system's questions in the shared-task format, every item of the split present
    (``"Missing CQs"`` where the system has none: 0 points, as the shared task scores it)."""
    return {
        iid: {
            "intervention_id": iid,
            "cqs": [{"id": k, "cq": q} for k, q in enumerate(questions[iid])]
            if questions.get(iid)
            else "Missing CQs",
        }
        for iid in item_ids
    }


def test_documents(
    rows, embedder, label_names, *, threshold, resamples, seed, sources, cache_dir, command, note
) -> list[dict]:
    """Every system (:func:`argbench.scoring.cq_submissions.systems`) scored as a new system
    is: against the test references of the benchmark task's split, with its options (the
    threshold and the embedding model as given here), through ``evaluate_predictions``. The
    texts are encoded once (:class:`VectorTable`), as for §6.1."""
    bench = task(TEST_TASK)
    split = load_split(
        bench.corpus, bench.config, bench.split, sources=sources, cache_dir=cache_dir
    )
    test_rows = split.data.to_list()
    item_ids = [str(r[bench.id_field]) for r in test_rows]
    every = systems(rows, label_names, seed=seed)
    texts = [r["cq"] for row in test_rows for r in row["references"]]
    texts += [q for s in every for qs in s["questions"].values() for q in qs]
    table = VectorTable(embedder, texts)
    options = {**bench.options_for(METRIC), "threshold": threshold, "model": table}
    docs = []
    for system in every:
        doc = evaluate_predictions(
            METRIC,
            submission_file(system["questions"], item_ids),
            bench.corpus,
            bench.config,
            bench.split,
            options=options,
            system=system["system"],
            ci=True,
            resamples=resamples,
            seed=seed,
            sources=sources,
            cache_dir=cache_dir,
            command=command,
        )
        result = doc["result"]
        result["questions"] = [system["questions"].get(i, []) for i in doc["item_ids"]]
        if system["human"]:
            result["human_labels"] = [system["human"].get(i, []) for i in doc["item_ids"]]
            result["human_score"] = human_score(system)
        result["note"] = note
        docs.append(doc)
    return docs


def choose_model(model, log=print, cache_dir=None) -> tuple[Embedder, str]:
    """(embedder, note): ``model``, else the paper's stsb-mpnet-base-v2 when it loads, else
    the offline all-MiniLM-L6-v2; ``note`` is empty only for the paper's model. ``cache_dir``:
    the embedder's vector cache (False: none, every text encoded: a judge card's timing)."""
    other = f"not the paper's model ({CQS_GEN_STS_MODEL}): not the paper's protocol, not comparable with its 0.69"
    if model is not None:
        return Embedder(
            model, cache_dir=cache_dir
        ), "" if model == CQS_GEN_STS_MODEL else f"model {model}: {other}"
    try:
        embedder = Embedder(CQS_GEN_STS_MODEL, cache_dir=cache_dir)
        embedder.model  # noqa: B018 - load now: fail here, not mid-run
        return embedder, ""
    except ModelUnavailableError:
        fallback = offline_minilm()
        if fallback is None:
            raise
        note = f"{CQS_GEN_STS_MODEL} cannot be loaded (offline); the offline all-MiniLM-L6-v2 is used: {other}"
        log(f"note: {note}")
        return Embedder(fallback, cache_dir=cache_dir), note


TEST_NOTE = (
    "Scored as a new system is (argbench evaluate on cqs_gen interventions/test, the shared "
    "task's evaluation): against the test references only; an intervention without questions "
    "is 'Missing CQs', 0 points. Human score: the share of the submission's questions people "
    "labelled Useful (extended_test.json)."
)


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
        iv = correlation.get("intervals", {})

        def figure(key: str) -> str:
            text = f"{correlation[key]:.3f}"
            if key in iv:
                text += f" [{iv[key]['low']:.3f}, {iv[key]['high']:.3f}]"
            return text

        lines.append(
            f"STS vs human over the {correlation['n']} submissions: Pearson on scores "
            f"{figure('pearson_scores')}, Spearman (Pearson on ranks) "
            f"{figure('spearman_ranks')}, Kendall tau-b {figure('kendall_tau')}"
            + (" (95% bootstrap over interventions)" if iv else "")
            + " (paper §6.1: 0.69, Pearson, stsb-mpnet-base-v2)"
        )
    return "\n".join(lines)


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
    out = Path(out)
    # written beside ``out`` and swapped in whole: an interrupted run leaves the old folder
    with staged_folder(out, what="--out", log=log) as staging:
        docs, paths, correlation, test = _write(
            staging, model, threshold, resamples, seed, sources, cache_dir, command, log
        )
    log(format_table(docs, correlation))
    log(
        f"{len(paths)} results files (§6.1) -> {out / 'results'}; {len(test)} scored "
        f"against the test references as a new system is -> {out / 'test'}; submission files "
        f"-> {out / 'submissions'}"
    )
    return docs


def _write(staging, model, threshold, resamples, seed, sources, cache_dir, command, log):
    split = load_split("cqs_gen", "extended", "test", sources=sources, cache_dir=cache_dir)
    rows = split.data.to_list()
    names = split.data.features["references"].feature["label"].names
    folder = staging.path
    write_submission_files(rows, folder / "submissions", names)
    embedder, model_note = choose_model(model, log)
    scored = score_systems(rows, embedder, names, threshold=threshold, seed=seed)
    for _, result in scored:
        result["note"] = " ".join(filter(None, [NOTE, model_note]))
    docs = results_documents(scored, split, resamples=resamples, seed=seed, command=command)
    test = test_documents(
        rows,
        embedder,
        names,
        threshold=threshold,
        resamples=resamples,
        seed=seed,
        sources=sources,
        cache_dir=cache_dir,
        command=command,
        note=" ".join(filter(None, [TEST_NOTE, model_note])),
    )
    # one write for both: a run with other settings is refused before anything is written
    planned = [(folder / "results" / f"{d['system']}.json", d) for d in docs]
    planned += [(folder / "test" / f"{d['system']}.json", d) for d in test]
    written = write_results_once(planned, staging=staging)
    paths = [staging.target_of(p) for p, _, _ in written if p.parent.name == "results"]
    # §6.1's correlations with their intervals: the judge card's computation
    level = ranking_level(scored, resamples=resamples, seed=seed)
    correlation = {**level["correlation"], "intervals": level["intervals"]}
    write_json(
        folder / "correlation.json",
        {"results": [p.name for p in paths], "correlation": correlation},
    )
    return docs, paths, correlation, test
