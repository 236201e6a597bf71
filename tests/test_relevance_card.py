"""The CAM §3.4 relevance judge card (argbench judge-card --task cam_relevance): an LLM's
relevance labels 0-3 against the experts', through the statistics the CQs-Gen card uses
(argbench.scoring.judge_card.item_agreement: kappa_rows and the bootstrap's resample_counts)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from argbench.cli import main
from argbench.leaderboard.judge_cards import (
    UNSCORED,
    card_text,
    pairwise_card_document,
    read_card,
    relevance_card,
    relevance_card_document,
    relevance_items,
    spread_sample,
    write_card,
)
from argbench.leaderboard.site import write_site
from argbench.results import ResultsFileError
from argbench.scoring.annotator_agreement import cohen_kappa
from argbench.scoring.label_judge import RELEVANCE, parse_label

IDENTITY = {"name": "cam_relevance", "config": "expert", "split": "train", "version": "1.0.0",
            "content_hash": "1" * 64, "source": "argbench"}  # fmt: skip


def _rows(pairs: int = 12, per_pair: int = 10, seed: int = 0) -> list[dict]:
    """Expert-sheet rows: ``pairs`` object pairs of ``per_pair`` sentences, one label each."""
    rng = random.Random(seed)
    return [
        {
            "annotator": f"annotator_{p % 3 + 1}",
            "object_a": f"thing{p}",
            "object_b": f"other{p}",
            "argument": f"Sentence {k} about thing{p} and other{p}.",
            "label": rng.choice([0, 1, 2, 2, 3, 3, 3]),
        }
        for p in range(pairs)
        for k in range(per_pair)
    ]


def _truth(rows):
    _, groups, _ = relevance_items(rows)
    return {x["argument"]: x["human"] for g in groups for x in g}


def oracle(rows):
    truth = _truth(rows)

    def judge(object_a, object_b, argument):
        return truth[argument]

    return judge


def at_random(seed=1):
    rng = random.Random(seed)

    def judge(object_a, object_b, argument):
        return str(rng.randrange(4))

    return judge


# ---- what the judge says -------------------------------------------------------------


@pytest.mark.parametrize(
    "reply, label",
    [("2", "2"), (" Relevance = 3.", "3"), ("'1'", "1"), ("Answer: 0", "0"),
     ("I would say 2", None), ("2 or 3", None), ("5", None), ("", None), (None, None),
     ("Relevance = 2 because both objects are named", None)],
)  # fmt: skip
def test_a_reply_is_a_label_or_unscored(reply, label):
    """Only the label itself (after the prompt's own "Relevance =") is read; a reply that
    explains itself is not searched for a digit: unscored, never a guessed label."""
    assert parse_label(reply, RELEVANCE.labels) == label


# ---- the card --------------------------------------------------------------------------


def test_a_relevance_judge_answering_the_experts_label_has_kappa_one_and_at_random_near_zero():
    rows = _rows(pairs=20, per_pair=15)
    good = relevance_card_document(rows, IDENTITY, matcher=oracle(rows), log=lambda m: None)
    q = good["result"]["item_level"]
    assert q["kappa"] == 1.0 and (q["kappa_low"], q["kappa_high"]) == (1.0, 1.0)
    assert q["accuracy"] == 1.0 and q["n"] == 300 and q["n_unscored"] == 0
    assert np.trace(q["confusion"]["matrix"]) == 300
    bad = relevance_card_document(rows, IDENTITY, matcher=at_random(), log=lambda m: None)
    r = bad["result"]
    q = r["item_level"]
    assert abs(q["kappa"]) < 0.1 and q["kappa_low"] < 0 < q["kappa_high"]
    # the point κ is Cohen's κ of the two label lists (the annotator-agreement formula)
    human = [int(h) for h in r["human_labels"]]
    assert q["kappa"] == pytest.approx(cohen_kappa([int(x) for x in r["labels"]], human))
    assert "no better than chance" in card_text(bad)
    assert r["bootstrap"]["unit"] == "object pair" and r["sample"]["interventions"] == 20


def test_an_unparseable_relevance_reply_is_unscored_never_wrong():
    """A reply that is no label is left out of κ, agreement and the matrix and counted;
    control: the same judge's usable answers give the oracle's κ. All unusable: every
    figure undefined, none a zero."""
    rows = _rows()
    truth = _truth(rows)
    chatty = {a for a in list(truth)[::4]}

    def judge(object_a, object_b, argument):
        return "Well, it depends." if argument in chatty else f"Relevance = {truth[argument]}"

    doc = relevance_card_document(rows, IDENTITY, matcher=judge, log=lambda m: None)
    q, labels = doc["result"]["item_level"], doc["result"]["labels"]
    assert q["n_unscored"] == len(chatty) == labels.count(UNSCORED)
    assert q["n"] == 120 - len(chatty) and q["unscored_rate"] == len(chatty) / 120
    assert q["accuracy"] == 1.0 and q["kappa"] == 1.0
    assert sum(map(sum, q["confusion"]["matrix"])) == q["n"]
    mute = relevance_card_document(
        rows, IDENTITY, matcher=lambda **_: "no idea", log=lambda m: None
    )
    q = mute["result"]["item_level"]
    assert q["unscored_rate"] == 1.0 and q["n"] == 0
    assert all(q[k] is None for k in ("kappa", "kappa_low", "kappa_high", "accuracy"))  # NaN: null
    assert "kappa undefined" in card_text(mute)


def test_consistency_counts_answers_that_change_asked_again_or_with_the_objects_swapped():
    rows = _rows(pairs=4, per_pair=5)
    truth = _truth(rows)

    def by_position(object_a, object_b, argument):  # answers by which object comes first
        return "3" if object_a.startswith("thing") else "0"

    doc = relevance_card_document(
        rows, IDENTITY, matcher=by_position, consistency=True, log=lambda m: None
    )
    c = doc["result"]["consistency"]
    assert c["repeat_changed"] == 0.0 and c["reorder_changed"] == 1.0 and c["n_reorder"] == 20
    steady = relevance_card_document(
        rows, IDENTITY, matcher=lambda argument, **_: truth[argument], consistency=True,
        log=lambda m: None,
    )  # fmt: skip
    assert steady["result"]["consistency"]["reorder_changed"] == 0.0


def test_the_experts_label_is_the_majority_higher_on_a_tie_and_nothing_is_dropped_silently():
    rows = [
        {"object_a": "Cats", "object_b": "dogs", "argument": "Cats  are smarter than dogs.", "label": 1},
        {"object_a": "dogs", "object_b": "cats", "argument": "cats are smarter than dogs.", "label": 2},
        {"object_a": "cats", "object_b": "dogs", "argument": "I have a cat.", "label": None},
        {"object_a": "tea", "object_b": "coffee", "argument": "Tea is calmer.", "label": 1},
    ]  # fmt: skip
    names, groups, unlabelled = relevance_items(rows)
    assert names == ["Cats vs dogs", "tea vs coffee"] and unlabelled == 1
    assert [x["human"] for x in groups[0]] == ["2"]  # sheets 1 and 2: the higher
    bad = [*rows, {"object_a": "a", "object_b": "b", "argument": " ", "label": 0}]
    with pytest.raises(ValueError, match=r"rows\[4\]: 'argument'"):
        relevance_items(bad)


def test_a_sample_spreads_over_the_object_pairs_and_is_stated():
    rows = _rows(pairs=5, per_pair=4)
    _, groups, _ = relevance_items(rows)
    sample = spread_sample(groups, 7)
    assert [len(g) for g in sample] == [2, 2, 1, 1, 1]
    doc = relevance_card_document(rows, IDENTITY, matcher=oracle(rows), items=7, log=lambda m: None)
    assert "sample:first 7 sentences round-robin" in doc["signature"]
    assert doc["result"]["sample"]["questions"] == 7 and doc["result"]["sample"]["of"] == 5
    with pytest.raises(ValueError, match=r"--items must be 1\.\.20"):
        spread_sample(groups, 21)
    with pytest.raises(ValueError, match="no interventions"):
        relevance_card_document(rows, IDENTITY, matcher=oracle(rows), interventions=2)


def test_a_relevance_card_is_a_results_file_and_listed_on_a_board_it_ranks_no_column_of(tmp_path):
    rows = _rows()
    doc = relevance_card_document(rows, IDENTITY, matcher=at_random(), log=lambda m: None)
    path, page = write_card(doc, tmp_path / "cards")
    back = read_card(path)
    assert back["signature"].startswith("judge_card|judge:relevance_judge")
    assert "sentence level: kappa" in card_text(back) and "Confusion matrix" in page.read_text()
    write_site([], [], tmp_path / "board", cards=[back])
    index = (tmp_path / "board" / "index.html").read_text()
    assert "Judge cards of judges that rank no column here" in index
    assert f"{path.stem}.html" in index and "no better than chance" in index
    assert (tmp_path / "board" / f"{path.stem}.html").exists()
    path.write_text(path.read_text().replace('"n_unscored": 0', '"n_unscored": 1', 1))
    with pytest.raises(ResultsFileError, match="digest"):
        read_card(path)


def test_the_command_refuses_a_relevance_card_without_an_llm_or_with_another_cards_sample(
    tmp_path, capsys
):
    assert main(["judge-card", "--out", str(tmp_path), "--task", "cam_relevance"]) == 2
    assert "--task cam_relevance needs --judge" in capsys.readouterr().err
    assert main(["judge-card", "--out", str(tmp_path), "--items", "3"]) == 2
    assert "cqs_gen card has no --items" in capsys.readouterr().err  # before any work
    assert main(["judge-card", "--out", str(tmp_path), "--task", "webis_logical",
                 "--judge", "x", "--interventions", "1"]) == 2  # fmt: skip
    assert "webis_logical card has no --interventions (its sample: --items)" in (
        capsys.readouterr().err
    )
    with pytest.raises(SystemExit) as exit_:
        main(["judge-card", "--out", str(tmp_path), "--task", "nope"])
    assert (
        exit_.value.code == 2
        and "choose from 'cam_relevance', 'cqs_gen'" in capsys.readouterr().err
    )


# ---- the real release ------------------------------------------------------------------


@pytest.mark.mirror
def test_the_expert_sheets_give_467_sentences_of_26_object_pairs(real_corpora):
    rows = list(real_corpora.load("cam_relevance", "expert", "train"))
    names, groups, unlabelled = relevance_items(rows)
    assert len(names) == 26 and sum(map(len, groups)) == 467 and unlabelled == 2
    labels = [x["human"] for g in groups for x in g]
    assert {label: labels.count(label) for label in "0123"} == {
        "0": 43, "1": 38, "2": 154, "3": 232}  # fmt: skip


@pytest.mark.real_server
@pytest.mark.mirror
def test_a_relevance_card_against_the_real_llama_server(weights, real_corpora, tmp_path):
    """SmolLM2 served by llama.cpp labels 6 of CAM's expert-labelled sentences (round-robin
    over the object pairs), free text (no grammar), asked again and with the objects swapped
    (18 requests): a reply that is no label is unscored, never wrong; the card is timed on
    real requests (no reply cache), written and read back. SmolLM2 cannot judge: the test
    checks the card's bookkeeping, not the judge."""
    from argbench.llm import serve_gguf

    real_corpora.folder("cam_relevance")
    where = {"sources": str(real_corpora.mirror), "cache_dir": real_corpora.cache}
    with serve_gguf(weights, progress=False, max_tokens=16, log_file=tmp_path / "log") as endpoint:
        endpoint.cache_dir = False
        endpoint.structured = endpoint.structured_used = "off"  # the parser, not a grammar
        doc = relevance_card(llm=endpoint, items=6, resamples=200, log=print, **where)
    r = doc["result"]
    q, labels = r["item_level"], r["labels"]
    assert len(labels) == 6 == len(doc["item_ids"]) and r["sample"]["interventions"] == 6
    assert q["n"] + q["n_unscored"] == 6 and q["n_unscored"] == labels.count(UNSCORED)
    for label, reply in zip(labels, r["replies"], strict=True):
        assert label == (parse_label(reply, RELEVANCE.labels) or UNSCORED)
    scored = [(p, h) for p, h in zip(labels, r["human_labels"], strict=True) if p != UNSCORED]
    if scored:
        assert q["accuracy"] == pytest.approx(sum(p == h for p, h in scored) / len(scored))
    else:
        assert q["accuracy"] is None and q["kappa"] is None
    c = r["consistency"]
    assert 0 <= c["n_repeat"] <= 6 and 0 <= c["n_reorder"] <= 6
    assert r["time"]["seconds_per_1000_judgments"] > 0 and "cores" in r["time"]["machine"]
    assert "judge:llm" in r["judge"]["signature"] and "structured" not in r["judge"]["fields"]
    path, _ = write_card(doc, tmp_path / "cards")
    assert read_card(path)["result"]["item_level"]["n_unscored"] == q["n_unscored"]


# ---- the Webis-ArgQuality-20 pairwise card ---------------------------------------------

DIMENSIONS = ["rhetorical", "logical", "dialectical"]
WEBIS = {"name": "webis_argquality20", "config": "pairwise", "split": "train",
         "version": "1.0.0", "content_hash": "2" * 64, "source": "argbench"}  # fmt: skip


def _webis(topics: int = 10, arguments: int = 8, seed: int = 0):
    """Pairwise rows of one dimension (logical) where the people prefer the argument of the
    higher hidden quality (ties when equal), and the scores config's texts."""
    rng = random.Random(seed)
    scores, pairs = [], []
    for t in range(topics):
        quality = [rng.randrange(4) for _ in range(arguments)]
        for k in range(arguments):
            scores.append({"topic_id": t, "discussion_id": 100 + t, "argument_id": k,
                           "premise": f"Argument {k} of topic {t}."})  # fmt: skip
        for i in range(arguments):
            for j in range(i + 1, arguments):
                winner = 0 if quality[i] > quality[j] else 1 if quality[i] < quality[j] else 2
                pairs.append({"topic_id": t, "dimension": 1, "discussion_id_a": 100 + t,
                              "argument_id_a": i, "discussion_id_b": 100 + t,
                              "argument_id_b": j, "winner": winner})  # fmt: skip
    return pairs, scores


def _pairwise(pairs, scores, matcher, **options):
    return pairwise_card_document(
        pairs, scores, DIMENSIONS, WEBIS, dimension="logical", matcher=matcher,
        log=lambda m: None, resamples=300, **options,
    )  # fmt: skip


def test_a_pairwise_judge_answering_the_peoples_outcome_has_kappa_one_and_their_ranking():
    pairs, scores = _webis()
    truth = {}
    for p in pairs:
        a = f"Argument {p['argument_id_a']} of topic {p['topic_id']}."
        b = f"Argument {p['argument_id_b']} of topic {p['topic_id']}."
        truth[(a, b)] = "AB"[p["winner"]] if p["winner"] < 2 else "tie"
        truth[(b, a)] = "BA"[p["winner"]] if p["winner"] < 2 else "tie"
    good = _pairwise(
        pairs, scores, lambda text_a, text_b: truth[(text_a, text_b)], consistency=True
    )
    r = good["result"]
    assert r["item_level"]["kappa"] == 1.0 and r["item_level"]["n"] == 280
    s = r["system_level"]
    assert s["correlation"]["n"] == 80 and s["correlation"]["spearman_ranks"] == pytest.approx(1)
    assert s["intervals"]["kendall_tau"]["low"] == pytest.approx(1)
    # swapped texts: the answer is read back (B then means A), so a steady judge changes none
    assert r["consistency"]["reorder_changed"] == 0.0 == r["consistency"]["repeat_changed"]
    assert "ranking level (Bradley–Terry, 80 arguments" in card_text(good)
    pairs, scores = _webis(topics=20, arguments=10)
    rng = random.Random(2)
    bad = _pairwise(pairs, scores, lambda **_: rng.choice(["A", "B", "tie"]))
    q, s = bad["result"]["item_level"], bad["result"]["system_level"]
    assert abs(q["kappa"]) < 0.05 and q["kappa_low"] < 0 < q["kappa_high"] and q["n"] == 900
    assert s["intervals"]["spearman_ranks"]["low"] < 0 < s["intervals"]["spearman_ranks"]["high"]


def test_a_pairwise_judge_by_position_is_caught_by_the_swapped_order_and_unparseable_unscored():
    pairs, scores = _webis(topics=4, arguments=5)
    first = _pairwise(pairs, scores, lambda **_: "A", consistency=True)
    assert first["result"]["consistency"]["reorder_changed"] == 1.0
    chatty = _pairwise(pairs, scores, lambda text_a, **_: "A" if "0 of" in text_a else "Both!")
    q = chatty["result"]["item_level"]
    assert q["n"] == 16 and q["n_unscored"] == 40 - 16 and q["unscored_rate"] == 24 / 40
    # the Bradley–Terry fits use the pairs the judge answered, on both sides
    assert chatty["result"]["system_level"]["correlation"]["n"] == 4 * 5


def test_a_pairwise_card_names_a_pair_whose_argument_has_no_text():
    pairs, scores = _webis(topics=2, arguments=3)
    scores[1]["premise"] = "  "
    with pytest.raises(ValueError, match=r"rows\[0\]: argument b \(0, 100, 1\) has no text"):
        _pairwise(pairs, scores, lambda **_: "A")


@pytest.mark.real_server
@pytest.mark.mirror
def test_a_webis_pairwise_card_against_the_real_llama_server(weights, real_corpora, tmp_path):
    """SmolLM2 on llama.cpp judges 4 Webis pairs (logical quality, round-robin over the
    topics), free text, asked again and with the texts swapped: unparseable replies
    unscored; the card is written and read back."""
    from argbench.leaderboard.judge_cards import card_builder
    from argbench.llm import serve_gguf

    real_corpora.folder("webis_argquality20")
    where = {"sources": str(real_corpora.mirror), "cache_dir": real_corpora.cache}
    with serve_gguf(weights, progress=False, max_tokens=8, log_file=tmp_path / "log") as endpoint:
        endpoint.cache_dir = False
        endpoint.structured = endpoint.structured_used = "off"
        endpoint.stall_timeout = 600.0  # two long texts per request: slow on a loaded CPU
        doc = card_builder("webis_logical")(llm=endpoint, items=4, resamples=100, **where)
    r = doc["result"]
    q, labels = r["item_level"], r["labels"]
    assert len(labels) == 4 and q["n"] + q["n_unscored"] == 4 == r["sample"]["interventions"]
    assert q["n_unscored"] == labels.count(UNSCORED)
    assert (
        r["task"] == "webis_logical"
        and "data:webis_argquality20/pairwise/train/logical" in (doc["signature"])
    )
    path, _ = write_card(doc, tmp_path / "cards")
    assert read_card(path)["result"]["item_level"]["n"] == q["n"]
