"""The CQs-Gen shared-task submissions: extraction, submission files, the §6.1 protocol (own
questions removed), encoding once, the human score and the ranking correlation."""

from __future__ import annotations

import json

import numpy as np
import pytest

from argbench.constants import CQ_LABELS
from argbench.embedding import Embedder
from argbench.leaderboard.cqs_submissions import (
    format_table,
    results_documents,
    write_submission_files,
)
from argbench.scoring.cq_submissions import (
    PROTOCOL,
    VectorTable,
    score_systems,
    split_submissions,
)
from argbench.scoring.statistics import ranking_correlation, ranks

NAMES = list(CQ_LABELS)


def _ref(text, label, submission, k):
    return {"id": f"q{submission}_{k}", "cq": text, "label": label, "submission": submission}


def rows():
    """Two interventions: test references, then three submissions of (up to) 3 questions."""
    return [
        {
            "intervention_id": "A",
            "references": [
                _ref("Is the economy really growing as fast as claimed?", "Useful", -1, 0),
                _ref("Who benefits from the tax cut?", "Unhelpful", -1, 1),
                _ref("What do penguins eat in Antarctica during winter?", "Useful", 0, 0),
                _ref("Is economic growth as fast as the speaker says?", 0, 0, 1),
                _ref("Who gains from this tax cut?", "Invalid", 1, 0),
                _ref("Which benefits does the tax cut bring and to whom?", "Useful", 1, 1),
                _ref("Is the claimed growth rate of the economy accurate?", "Useful", 2, 0),
            ],
        },
        {
            "intervention_id": "B",
            "references": [
                _ref("Does the evidence support a ban on cars?", "Useful", -1, 0),
                _ref("Are cars the main source of pollution?", "Useful", 0, 0),
                _ref("Is banning cars supported by the evidence?", "Invalid", 1, 0),
                _ref("Are cars really the main polluters in cities?", "Unhelpful", 2, 0),
            ],
        },
    ]


def test_split_and_write_submission_files(tmp_path):
    subs = split_submissions(rows(), expected=3)
    assert list(subs) == [0, 1, 2]
    assert [r["cq"] for r in subs[1]["A"]] == [
        "Who gains from this tax cut?",
        "Which benefits does the tax cut bring and to whom?",
    ]
    with pytest.raises(ValueError, match="expected 15 submissions.*found 3"):
        split_submissions(rows())
    write_submission_files(rows(), tmp_path, NAMES, expected=3)
    sub = json.loads((tmp_path / "submission_00.json").read_text())
    assert sub["A"] == {
        "intervention_id": "A",
        "cqs": [
            {"id": 0, "cq": "What do penguins eat in Antarctica during winter?"},
            {"id": 1, "cq": "Is economic growth as fast as the speaker says?"},
        ],
    }
    labels = json.loads((tmp_path / "submission_00.labels.json").read_text())
    assert labels == {"A": ["Useful", "Useful"], "B": ["Useful"]}  # ClassLabel 0 -> its name


def test_rows_without_submission_marks_are_refused():
    bad = [{"intervention_id": "A", "references": [{"id": "1", "cq": "q", "label": 0}]}]
    with pytest.raises(ValueError, match=r"interventions\[0\].*'submission'"):
        split_submissions(bad)


@pytest.fixture(scope="module")
def scored(minilm):
    return score_systems(rows(), Embedder(minilm, cache_dir=False), NAMES, expected=3)


def test_own_questions_are_removed(scored):
    """§6.1: a submission is matched against the others' questions, never its own. Its
    penguin question has no counterpart elsewhere: NAE (it would match itself, Useful, if its
    own questions stayed among the references)."""
    by_name = {s["system"]: r for s, r in scored}
    sub0 = by_name["submission_00"]
    assert sub0["labels"][0][0] == "not_able_to_evaluate"
    assert PROTOCOL in sub0["signature"] and "refs:" in sub0["signature"]
    # submission 1's "tax cut" questions match the test reference or submission 0/2, not its own
    assert all(
        m is None or not m.startswith("q1_")
        for row in by_name["submission_01"]["matched_ids"]
        for m in row
    )
    assert by_name["submission_00"]["human_score"] == pytest.approx(1.0)
    assert by_name["submission_01"]["human_score"] == pytest.approx(
        1 / 3
    )  # Invalid, Useful, Invalid
    # a baseline has no human labels and nothing of its own to remove
    assert by_name["baseline_generic"]["human_score"] is None
    assert by_name["baseline_references"]["score"] > 0  # copies test references: matched at 1.0


def test_encoded_once_equals_the_per_submission_loop(minilm, scored):
    embedder = Embedder(minilm, cache_dir=False)
    naive = score_systems(rows(), embedder, NAMES, expected=3, shared=False)
    for (a, ra), (b, rb) in zip(scored, naive, strict=True):
        assert a["system"] == b["system"]
        assert ra["labels"] == rb["labels"]
        assert ra["score"] == pytest.approx(rb["score"], abs=1e-12)
        assert ra["signature"] == rb["signature"]
    texts = {r["cq"] for row in rows() for r in row["references"]}
    assert embedder.n_encoded > len(texts)  # the loop re-encodes shared references


def test_vector_table_refuses_a_text_it_did_not_encode(minilm):
    table = VectorTable(Embedder(minilm, cache_dir=False), ["a question?"])
    assert table.encode(["a question?"]).shape[0] == 1
    with pytest.raises(KeyError, match="not encoded beforehand"):
        table.encode(["another question?"])


def test_ranking_correlation_matches_scipy():
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(0)
    a = rng.random(15)
    h = np.round(a + rng.normal(0, 0.2, 15), 1)  # ties on the human side
    got = ranking_correlation(a, h)
    assert got["pearson_scores"] == pytest.approx(stats.pearsonr(a, h)[0])
    assert got["spearman_ranks"] == pytest.approx(stats.spearmanr(a, h)[0])
    assert list(ranks([0.5, 0.9, 0.5, 0.1])) == [2.5, 1.0, 2.5, 4.0]
    with pytest.raises(ValueError, match="3 or more"):
        ranking_correlation([1, 2], [1, 2])


def test_results_documents_read_back(scored, tmp_path):
    from argbench.results import read_results, write_results

    split = {"name": "cqs_gen", "config": "extended", "split": "test", "version": "2.0.0",
             "content_hash": "0" * 64, "source": "argbench"}  # fmt: skip
    docs = results_documents(scored, split, resamples=200)
    path = write_results(docs[0], tmp_path / "s0.json")
    back = read_results(path)
    assert back["system"] == "submission_00" and back["item_ids"] == ["A", "B"]
    assert back["result"]["human_score"] == pytest.approx(1.0)
    assert back["result"]["ci"]["score"]["low"] <= back["result"]["score"]
    table = format_table(docs, ranking_correlation([0.1, 0.2, 0.3], [0.3, 0.2, 0.1]))
    assert "submission_00" in table and "Pearson on scores -1.000" in table
    # with the judge card's intervals (argbench submissions passes ranking_level's)
    iv = {
        k: {"low": -1.0, "high": -0.5} for k in ("pearson_scores", "spearman_ranks", "kendall_tau")
    }
    table = format_table(
        docs, {**ranking_correlation([0.1, 0.2, 0.3], [0.3, 0.2, 0.1]), "intervals": iv}
    )
    assert (
        "Kendall tau-b -1.000 [-1.000, -0.500]" in table and "bootstrap over interventions" in table
    )


@pytest.mark.mirror
def test_the_release_holds_15_submissions_of_34_interventions(real_corpora, tmp_path):
    split = real_corpora.load("cqs_gen", "extended", "test")
    subs = split_submissions(list(split))
    assert len(subs) == 15
    assert all(len(by) == 34 for by in subs.values())
    sizes = sorted(sum(len(qs) for qs in by.values()) for by in subs.values())
    assert sum(sizes) == 1528 and sizes[:2] == [101, 101] and sizes[2:] == [102] * 13
    written = write_submission_files(
        list(split), tmp_path / "subs", split.features["references"].feature["label"].names
    )
    assert len(written) == 30


def test_scores_equal_but_for_float_rounding_are_tied():
    a, b = 0.1 + 0.2, 0.3  # 0.30000000000000004 and 0.3
    assert a != b
    assert list(ranks([a, b, 0.1])) == [1.5, 1.5, 3.0]


@pytest.mark.mirror
@pytest.mark.slow  # the 15 real submissions scored with MiniLM
def test_the_reproduce_row_on_the_release(real_corpora, tmp_path, minilm):
    """§6.1 on the real 15 submissions with the offline MiniLM: Pearson between the rankings
    (rank positions, Spearman's rho) 0.58 is the paper's reading of its 0.69; Pearson on the
    scores 0.70 is shown beside it as a variant; neither counted (not the paper's model)."""
    from argbench.reproduce.cqs_gen import cqs_gen_submissions
    from argbench.reproduce.report import Context

    ctx = Context(out_dir=tmp_path, sources=str(real_corpora.mirror), cache_dir=real_corpora.cache)
    ctx.model = minilm
    ranks, scores = cqs_gen_submissions(ctx).rows
    assert ranks.published == 0.69 and not ranks.comparable and ranks.reproduced is None
    assert ranks.argbench == pytest.approx(0.583, abs=1e-3) and "rankings" in ranks.item
    assert scores.argbench == pytest.approx(0.7015, abs=1e-3) and scores.kind == "variant"
    assert "refs:test+submissions-own" in ranks.signature


@pytest.mark.mirror
@pytest.mark.slow  # the 15 real submissions scored with MiniLM, twice
def test_a_second_run_with_other_settings_never_erases_the_first(
    real_corpora, tmp_path, minilm, capsys
):
    """Old: ``argbench submissions --out DIR`` run again with another --threshold (or model,
    resamples) wrote its results over the first run's. New: the same settings again leave
    the files as they are (exit 0); other settings are refused before anything is written,
    and the first run's files are byte for byte what they were."""
    from argbench.cli import main
    from argbench.cli.exits import exit_for

    def run(only, *extra):
        argv = ["submissions", "--out", tmp_path / "out", "--only", only, "--resamples", "20"]
        argv += ["--sources", real_corpora.mirror, "--cache-dir", real_corpora.cache, *extra]
        code = main([str(a) for a in argv])
        out, err = capsys.readouterr()
        assert "Traceback" not in err
        return code, err

    def files():
        return {p: p.read_bytes() for p in sorted((tmp_path / "out").rglob("*.json"))}

    model = ["--model", minilm]
    assert run("cqs_gen", *model)[0] == 0 and run("cam")[0] == 0
    first = files()
    # cqs_gen: 15 submissions + 3 baselines twice, 30 submission files, the correlation;
    # cam: 4 x 2 on each of two splits
    assert len(first) == 18 + 18 + 30 + 1 + 8 + 8  # §6.1 and test; gold and task split
    assert run("cqs_gen", *model)[0] == 0 and run("cam")[0] == 0  # the same run again
    assert files() == first

    code, err = run("cqs_gen", *model, "--threshold", "0.7")
    assert code == exit_for("submissions", "collision")
    assert "exist and hold another result" in err and "nothing was written" in err
    code, err = run("cam", "--resamples", "30")
    assert code == exit_for("submissions", "collision") and "nothing was written" in err
    assert files() == first


@pytest.mark.mirror
def test_a_model_run_on_cam_shares_a_column_with_the_experts_and_chatgpt(
    real_corpora, tmp_path, monkeypatch
):
    """CAM's harness task scores a model on the silver split (112 questions); the experts'
    and ChatGPT's answers (50 questions) are scored there too, each gold question matched to
    its twin (same pair, same arguments and labels). A model's answers imported from a harness
    run rank in the same column as the 4 shipped systems, for each metric; the shipped rows
    say 50 of 112 questions. Before: the shipped systems were only on the gold split, a
    column no harness run can join."""
    from argbench.harness import runs
    from argbench.leaderboard import cam_silver_gold
    from argbench.leaderboard.table import columns
    from argbench.results import write_results

    shipped = cam_silver_gold.run(
        tmp_path / "cam",
        resamples=50,
        sources=str(real_corpora.mirror),
        cache_dir=real_corpora.cache,
        log=lambda message: None,
    )
    assert len(shipped) == 16
    records = [{"question_id": f"silver-{k}", "answer": f"A is better [1] [{k % 3 + 2}]"}
               for k in range(0, 112, 7)]  # fmt: skip
    paths = [str(p) for p in shipped]
    # a harness run reads the mirror from the environment, as a user's does (without it the
    # split came from whatever an earlier test in this worker had cached: an order-dependent pass)
    monkeypatch.setenv("ARGBENCH_SOURCES", str(real_corpora.mirror))
    for metric, doc in runs.results("cam_answers", records, system="model").items():
        paths.append(str(write_results(doc, tmp_path / f"model-{metric}.json")))
    read_docs = [(p, json.loads(open(p).read())) for p in paths]
    table, refused = columns(read_docs, resamples=50)
    assert not refused
    with_model = [c for c in table if any(r["system"] == "model" for r in c.rows)]
    assert {c.metric for c in with_model} == {"argument_relevance", "argument_overlap"}
    for column in with_model:
        rows = {r["system"]: r for r in column.rows}
        assert len(rows) == 5 and "gold (expert-edited)" in rows, column.title()
        assert rows["gold (expert-edited)"]["items_scored"] == 50 and rows["model"]["items"] == 112
        assert not rows["gold (expert-edited)"]["complete"]
