"""Judge cards (argbench.scoring.judge_card, argbench.leaderboard.judge_cards) and the
statistics they and the boards share (argbench.scoring.statistics): κ with a bootstrap over
interventions, §6.1's correlations, rank intervals and Holm tie groups."""

from __future__ import annotations

import random

import numpy as np
import pytest

from argbench.leaderboard.judge_cards import (
    card_document,
    card_for,
    card_text,
    cqs_gen_card,
    read_card,
    summary,
    write_card,
)
from argbench.leaderboard.site import write_site
from argbench.leaderboard.table import columns
from argbench.results import ResultsFileError, build_document, write_results
from argbench.scoring.annotator_agreement import cohen_kappa
from argbench.scoring.cq_human_agreement import label_agreement
from argbench.scoring.cq_reference_match import ISSUE, LABELS, NAE
from argbench.scoring.judge_card import system_level
from argbench.scoring.significance import bootstrap_means, compare_systems
from argbench.scoring.statistics import (
    RankCounter,
    holm,
    kappa_rows,
    rank_intervals,
    ranking_correlation,
    tie_groups,
)

IDENTITY = {"name": "cqs_gen", "config": "extended", "split": "test", "version": "2.0.0",
            "content_hash": "0" * 64, "source": "argbench"}  # fmt: skip


# ---- statistics ------------------------------------------------------------------------


def test_kappa_rows_is_cohen_kappa():
    rng = np.random.default_rng(0)
    x, y = rng.integers(0, 4, 200), rng.integers(0, 4, 200)
    y[:120] = x[:120]
    matrix = np.zeros((4, 4))
    np.add.at(matrix, (x, y), 1)
    assert kappa_rows(matrix[None])[0] == pytest.approx(cohen_kappa(x, y, categories=range(4)))
    assert np.isnan(kappa_rows(np.zeros((1, 4, 4)))[0])  # nothing to agree on


def test_ranking_correlation_matches_scipy_with_kendall():
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(3)
    a = rng.random(15)
    h = np.round(a + rng.normal(0, 0.2, 15), 1)  # ties on the human side
    got = ranking_correlation(a, h)
    assert got["pearson_scores"] == pytest.approx(stats.pearsonr(a, h)[0])
    assert got["spearman_ranks"] == pytest.approx(stats.spearmanr(a, h)[0])
    assert got["kendall_tau"] == pytest.approx(stats.kendalltau(a, h)[0])  # tau-b


def test_rank_intervals_fed_in_chunks_equal_one_pass():
    """A chunked bootstrap (bounded memory) gives the same rank intervals batch by batch."""
    rng = np.random.default_rng(1)
    scores = rng.random((6, 50)) + np.arange(6)[:, None] * 0.08
    means = bootstrap_means(scores, resamples=3000, seed=0)
    whole = rank_intervals(means)
    counter = RankCounter(6)
    for start in range(0, 3000, 256):
        counter.add(means[start : start + 256])
    assert counter.intervals() == whole
    best = int(np.argmax(scores.mean(axis=1)))
    assert whole[best][0] == 1 and all(low <= high for low, high in whole)


def test_rank_interval_of_a_clear_order_is_a_point():
    scores = np.array([[1.0] * 20, [0.5] * 20, [0.0] * 20])
    assert rank_intervals(bootstrap_means(scores, resamples=200)) == [(1, 1), (2, 2), (3, 3)]


def test_holm_adjusts_step_down():
    # p sorted 0.01, 0.02, 0.04 -> 3*0.01, max(.03, 2*.02), max(.04, .04)
    assert list(holm([0.04, 0.01, 0.02])) == pytest.approx([0.04, 0.03, 0.04])


def test_tie_groups_after_holm_merge_what_raw_p_would_split():
    """Three pairs at p = 0.02: each below 0.05 alone, none after Holm (3 x 0.02 = 0.06):
    one group. A control with p = 0.001 splits them."""
    scores = [0.9, 0.8, 0.7]
    close = {(0, 1): 0.02, (0, 2): 0.02, (1, 2): 0.02}
    tied = tie_groups(scores, close)
    assert tied["groups"] == [[0, 1, 2]] and tied["letters"] == ["a", "a", "a"]
    assert "Holm" in tied["method"]
    apart = tie_groups(scores, {(0, 1): 0.001, (0, 2): 0.001, (1, 2): 0.001})
    assert apart["groups"] == [[0], [1], [2]] and apart["letters"] == ["a", "b", "c"]
    chain = tie_groups(scores, {(0, 1): 0.5, (0, 2): 0.001, (1, 2): 0.5})
    assert chain["groups"] == [[0, 1], [1, 2]] and chain["letters"] == ["a", "ab", "b"]
    with pytest.raises(ValueError, match="every pair"):
        tie_groups(scores, {(0, 1): 0.5})


def test_compare_gives_rank_intervals_and_groups():
    rng = np.random.default_rng(2)
    scores = rng.random((4, 60)) + np.array([0.0, 0.0, 0.3, 0.6])[:, None]
    out = compare_systems(scores, ["w", "x", "y", "z"], resamples=2000)
    by = {s["name"]: s for s in out["systems"]}
    assert by["z"]["rank_low"] == 1 and by["z"]["group"] == "a"
    assert set(by["w"]["group"]) == set(by["x"]["group"])  # w and x: the same system twice
    assert out["ties"]["method"].startswith("Holm over 6 pairs")


def test_label_agreement_leaves_unusable_replies_unscored():
    """An LLM reply that could not be parsed is unscored, never a disagreement; the control
    (the same labels without it) gives the same κ."""
    human = ["Useful", "Invalid", "Useful", "Unhelpful"]
    with_issue = label_agreement(["Useful", "Invalid", ISSUE, "Unhelpful"], human)
    without = label_agreement(["Useful", "Invalid", "Unhelpful"], [human[i] for i in (0, 1, 3)])
    assert with_issue["kappa"] == without["kappa"] == 1.0
    assert with_issue["n_unscored"] == 1 and with_issue["unscored_rate"] == 0.25
    assert with_issue["n"] == 3
    none = label_agreement([ISSUE, ISSUE], ["Useful", "Useful"])  # undefined, not 0
    assert np.isnan(none["kappa"]) and np.isnan(none["accuracy"]) and none["n_unscored"] == 2


# ---- a judge card on rows in the extended layout ---------------------------------------


def _rows(n_interventions=24, n_submissions=15, seed=0) -> list[dict]:
    """Rows like cqs_gen extended's: test references, then blocks of 3 labelled submitted
    questions per submission; each submission has its own Useful rate."""
    rng = random.Random(seed)
    rows = []
    for i in range(n_interventions):
        refs = [
            {"id": f"r{k}", "cq": f"reference {i}-{k}?", "label": LABELS[k % 3], "submission": -1}
            for k in range(6)
        ]
        for s in range(n_submissions):
            for q in range(3):
                label = "Useful" if rng.random() < 0.1 + 0.055 * s else rng.choice(LABELS[1:])
                refs.append(
                    {"id": str(q), "cq": f"question {i}-{s}-{q}?", "label": label, "submission": s}
                )
        rows.append({"intervention_id": f"iv{i}", "references": refs})
    return rows


def _label_of(rows) -> dict:
    return {r["cq"]: r["label"] for row in rows for r in row["references"]}


def oracle(rows):
    """A judge that picks a reference with the question's human label: agrees with people."""
    label = _label_of(rows)

    def judge(question, references):
        return next(k for k, ref in enumerate(references) if label[ref] == label[question])

    return judge


def random_judge(seed=0):
    rng = random.Random(seed)

    def judge(question, references):
        choice = rng.randrange(len(references) + 1)
        return None if choice == len(references) else choice

    return judge


def test_a_random_judge_has_kappa_near_zero_and_the_board_marks_its_column(tmp_path):
    rows = _rows()
    names = list(LABELS)
    bad = card_document(rows, names, IDENTITY, matcher=random_judge(), resamples=500)
    good = card_document(rows, names, IDENTITY, matcher=oracle(rows), resamples=500)
    q_bad, q_good = bad["result"]["item_level"], good["result"]["item_level"]
    assert abs(q_bad["kappa"]) < 0.1 and q_bad["kappa_low"] < 0 < q_bad["kappa_high"]
    assert q_good["kappa"] > 0.9 and q_good["kappa_low"] > 0.5  # the control
    assert summary(bad)["chance"] and not summary(good)["chance"]
    s_good = good["result"]["system_level"]
    assert s_good["correlation"]["spearman_ranks"] > 0.8  # its ranking follows the people's
    for name in ("pearson_scores", "spearman_ranks", "kendall_tau"):
        iv = s_good["intervals"][name]
        assert iv["low"] <= s_good["correlation"][name] <= iv["high"]
    assert bad["result"]["sample"] == {
        "interventions": 24, "of": 24, "which": "all", "questions": 24 * 15 * 3, "submissions": 15,
    }  # fmt: skip
    confusion = np.array(q_bad["confusion"]["matrix"])
    assert confusion.shape == (4, 4) and confusion.sum() == 24 * 15 * 3
    assert q_bad["confusion"]["labels"][-1] == NAE

    # the board: the random judge's column shows its card and the warning; a column ranked by
    # a judge without a card says so
    bad_path, page = write_card(bad, tmp_path / "cards")
    assert bad_path.name == f"card-{read_card(bad_path)['digest'][7:19]}.json"
    assert "no better than chance" in page.read_text()

    docs = []
    for judge, tag in ((random_judge(), "random"), (oracle(rows), "oracle")):
        level = system_level(rows, names, match={"matcher": judge}, resamples=100)
        for system, result in level["scored"]:
            doc = build_document(
                "cq_reference_match", result, IDENTITY, result["intervention_ids"],
                system=f"{tag}-{system['system']}",
            )  # fmt: skip
            path = write_results(doc, tmp_path / "results" / f"{tag}-{system['system']}.json")
            docs.append((str(path), doc))
    table, refused = columns(docs, resamples=200)
    assert len(table) == 2 and not refused  # one column per judge
    write_site(table, refused, tmp_path / "site", cards=[read_card(bad_path)])
    index = (tmp_path / "site" / "index.html").read_text()
    assert "no better than chance" in index and "no judge card for this judge" in index
    assert (
        f"{bad_path.stem}.html" in index and (tmp_path / "site" / f"{bad_path.stem}.html").exists()
    )
    task = next(c for c in table if c.card is not None)
    assert "random_judge" in task.signature and card_for(
        [read_card(bad_path)], task.metric, task.signature
    )
    assert all("rank_low" in r and r["group"] for r in task.rows)


def test_a_card_file_is_a_results_file_and_an_edit_is_refused(tmp_path):
    rows = _rows(8)
    doc = card_document(rows, list(LABELS), IDENTITY, matcher=oracle(rows), resamples=100)
    path, _ = write_card(doc, tmp_path)
    back = read_card(path)
    assert back["metric"] == "judge_card" and back["signature"].startswith("judge_card|judge:")
    assert back["digest"].startswith("sha256:") and path.name == f"card-{back['digest'][7:19]}.json"
    assert "question level: kappa" in card_text(back)
    edited = path.read_text().replace('"kappa": 1.0', '"kappa": 0.9', 1)
    assert edited != path.read_text()
    path.write_text(edited)
    with pytest.raises(ResultsFileError, match="digest"):
        read_card(path)


def test_a_sample_is_stated_and_checked():
    rows = _rows(8)
    doc = card_document(
        rows, list(LABELS), IDENTITY, matcher=oracle(rows), interventions=3, resamples=100
    )
    assert doc["result"]["sample"]["interventions"] == 3 and doc["result"]["sample"]["of"] == 8
    assert "sample:first 3 interventions" in doc["signature"]
    with pytest.raises(ValueError, match="interventions must be 1..8"):
        card_document(rows, list(LABELS), IDENTITY, matcher=oracle(rows), interventions=9)


# ---- the real release -----------------------------------------------------------------


@pytest.mark.mirror
@pytest.mark.slow  # MiniLM over the 1,528 labelled questions and the 15 submissions
def test_the_minilm_card_and_the_report_share_one_computation(real_corpora, tmp_path, minilm):
    """The MiniLM card at 0.65 on the real release: κ 0.342 [0.293, 0.389], §6.1 Spearman
    0.583, Pearson 0.7015, Kendall 0.452; the report's §6.1 rows give the same figures (one
    computation: argbench.scoring.judge_card)."""
    from argbench.embedding import Embedder
    from argbench.reproduce.cqs_gen import cqs_gen_submissions
    from argbench.reproduce.report import Context

    split = real_corpora.load("cqs_gen", "extended", "test")
    names = split.features["references"].feature["label"].names
    doc = card_document(
        list(split), names, IDENTITY, model=Embedder(minilm, cache_dir=False), resamples=1000
    )
    q, s = doc["result"]["item_level"], doc["result"]["system_level"]
    assert q["n"] == 1528 and q["n_unscored"] == 0
    assert doc["result"]["time"]["texts_encoded"] == 2318  # each text once (was 4,636)
    assert q["kappa"] == pytest.approx(0.342, abs=1e-3)
    assert (q["kappa_low"], q["kappa_high"]) == pytest.approx((0.293, 0.389), abs=2e-3)
    c = s["correlation"]
    assert c["n"] == 15 and c["spearman_ranks"] == pytest.approx(0.583, abs=1e-3)
    assert c["pearson_scores"] == pytest.approx(0.7015, abs=1e-3)
    assert c["kendall_tau"] == pytest.approx(0.452, abs=1e-3)
    ctx = Context(out_dir=tmp_path, sources=str(real_corpora.mirror), cache_dir=real_corpora.cache)
    ctx.model = minilm
    ranks, scores = cqs_gen_submissions(ctx).rows
    assert ranks.argbench == c["spearman_ranks"] and scores.argbench == c["pearson_scores"]
    iv = s["intervals"]["spearman_ranks"]
    assert f"[{iv['low']:.3f}, {iv['high']:.3f}]" in ranks.note


@pytest.mark.mirror
@pytest.mark.slow  # MiniLM loaded three times (the card and the two levels on their own)
def test_the_sts_card_encodes_each_text_once_with_the_figures_of_two_encodings(
    real_corpora, minilm
):
    """The STS card's two levels read one vector table: each distinct text of the sample is
    encoded once (was: once per level, 2 x); the figures equal those of the two levels run on
    their own encoders (the old path)."""
    from argbench.embedding import Embedder
    from argbench.scoring.judge_card import question_level

    split = real_corpora.load("cqs_gen", "extended", "test")
    names = split.features["references"].feature["label"].names
    rows = list(split)[:3]
    texts = {r["cq"] for row in rows for r in row["references"]}
    encoder = Embedder(minilm, cache_dir=False)
    doc = card_document(rows, names, IDENTITY, model=encoder, resamples=200)
    r = doc["result"]
    assert r["time"]["texts_encoded"] == len(texts) == encoder.n_encoded
    old_q = question_level(
        rows, label_names=names, resamples=200, model=Embedder(minilm, cache_dir=False)
    )
    old_s = system_level(rows, names, model=Embedder(minilm, cache_dir=False), resamples=200)
    q = r["item_level"]
    assert (q["kappa"], q["kappa_low"], q["kappa_high"]) == pytest.approx(
        tuple(old_q["by_threshold"][0.65][k] for k in ("kappa", "kappa_low", "kappa_high"))
    )
    assert r["labels"] == old_q["labels"][0.65]
    assert r["system_level"]["correlation"] == pytest.approx(old_s["correlation"])
    for key, interval in old_s["intervals"].items():
        assert r["system_level"]["intervals"][key] == pytest.approx(interval)


@pytest.mark.real_server
@pytest.mark.mirror
def test_an_llm_judge_card_against_the_real_llama_server(weights, real_corpora, tmp_path):
    """SmolLM2 served by llama.cpp on 1 intervention x 3 submissions (9 labelled questions,
    36 judgments with the repeat and the reordered references), free text (no structured
    output): its replies that name no reference are unscored, never counted as wrong; the
    card times real requests (no reply cache) and says so. SmolLM2 cannot judge: the test
    checks the card's bookkeeping, not the judge."""
    from argbench.llm import serve_gguf

    real_corpora.folder("cqs_gen")  # built once per run
    where = {"sources": str(real_corpora.mirror), "cache_dir": real_corpora.cache}
    log = tmp_path / "server.log"
    with serve_gguf(weights, progress=False, max_tokens=24, log_file=log) as endpoint:
        endpoint.cache_dir = False
        endpoint.structured = endpoint.structured_used = "off"  # the parser, not a grammar
        doc = cqs_gen_card(
            llm=endpoint, interventions=1, submissions=3, resamples=200, log=print, **where
        )
    r = doc["result"]
    q, labels = r["item_level"], r["labels"]
    assert r["sample"]["questions"] == 9 and len(labels) == 9 == len(doc["item_ids"])
    assert q["n_unscored"] == labels.count(ISSUE) >= 1  # SmolLM2 chatters: some unparseable
    assert q["n"] + q["n_unscored"] == 9 and q["unscored_rate"] == q["n_unscored"] / 9
    scored = [(p, h) for p, h in zip(labels, r["human_labels"], strict=True) if p != ISSUE]
    if scored:
        assert q["accuracy"] == pytest.approx(sum(p == h for p, h in scored) / len(scored))
    else:  # nothing usable: every figure undefined, none a zero
        assert q["accuracy"] is None and q["kappa"] is None and q["unscored_rate"] == 1.0
    c = r["consistency"]
    assert 0 <= c["n_repeat"] <= 9 and 0 <= c["n_reorder"] <= 9
    assert c["repeat_changed"] is None or 0 <= c["repeat_changed"] <= 1  # None: none usable
    assert r["time"]["seconds_per_1000_judgments"] > 0 and "cores" in r["time"]["machine"]
    assert "matcher:llm" in r["judge"]["signature"] and "structured" not in r["judge"]["fields"]
    path, _ = write_card(doc, tmp_path / "cards")
    assert read_card(path)["result"]["item_level"]["n_unscored"] == q["n_unscored"]
