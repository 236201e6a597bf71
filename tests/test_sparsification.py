"""The Table 1 sparsification study: synthetic topics, the fixture corpus, and the real one."""

from __future__ import annotations

import math
from collections import Counter
from itertools import combinations

import numpy as np
import pytest

import argbench
from argbench.loaders import builder_class
from argbench.reproduce.webis import paper_agreement, paper_table1
from argbench.scoring.bradley_terry import cyclic_group_pair_count
from argbench.scoring.sparsification import (
    PAPER_SETTINGS,
    Topic,
    paper_judgment_count,
    sparsification_study,
    ukpconvarg1_topics,
)
from tests.test_ukpconvarg1 import FILES, NAME


def synthetic_topic(name: str, n: int, seed: int, per_pair: int = 5, short: int = 0) -> Topic:
    """Every pair of n items judged ``per_pair`` times by a Bradley–Terry-like rule with ties;
    the first ``short`` pairs lack their last judgment."""
    rng = np.random.default_rng(seed)
    merits = rng.normal(0, 1.5, n)
    pairs = np.array(list(combinations(range(n), 2)))
    p_first = 1 / (1 + np.exp(-(merits[pairs[:, 0]] - merits[pairs[:, 1]])))
    u = rng.random((len(pairs), per_pair))
    outcomes = np.where(u < 0.8 * p_first[:, None], 0, np.where(u < 0.8, 1, 2))
    outcomes[:short, -1] = -1
    return Topic(name, [f"{name}-{i}" for i in range(n)], pairs, outcomes)


TOPICS = [synthetic_topic(f"t{i}", 8 + i % 3, seed=i) for i in range(5)]
SMALL = {"n_items": 8, "groups": (1, 2, 4, 8), "bootstrap": 500}


def study(topics=TOPICS, **kwargs):
    return sparsification_study(topics, **{"n_topics": 4, **SMALL, **kwargs})


def test_paper_judgment_counts_reproduce_table_1():
    n = PAPER_SETTINGS["n_items"]
    exhaustive = 5 * n * (n - 1) // 2
    for (x, k), (judgments, percent, *_) in paper_table1().items():
        assert paper_judgment_count(n, k, x) == judgments, (x, k)
        assert math.floor(100 * judgments / exhaustive) == percent, (x, k)  # truncated
    # the formula differs from the design for x > 1: −n/2 is not multiplied by x
    assert paper_judgment_count(32, 4, 2) == 752 != 2 * cyclic_group_pair_count(32, 4) == 736
    assert paper_judgment_count(32, 4, 1) == cyclic_group_pair_count(32, 4) == 368


def test_full_design_with_all_judgments_recovers_the_baseline():
    rows = study(judgments=(5,), groups=(1, 2), n_topics=5)
    for row in rows:
        assert row["pairs"] == 28 and row["judgments"] == 140 == row["judgments_present"]
        assert row["rho"] == pytest.approx(1, abs=1e-12)
        assert row["ci_low"] == pytest.approx(1, abs=1e-12)
        assert row["ci_high"] == pytest.approx(1, abs=1e-12)


def test_rows_shape_order_and_counts():
    rows = study(judgments=(3, 1), groups=(4, 8))
    assert [(r["x"], r["k"]) for r in rows] == [(3, 4), (3, 8), (1, 4), (1, 8)]
    for row in rows:
        pairs = cyclic_group_pair_count(8, row["k"])
        assert row["pairs"] == pairs and row["judgments"] == row["x"] * pairs
        assert row["judgments_present"] == row["judgments"]
        assert row["judgments_percent"] == pytest.approx(100 * row["x"] * pairs / (5 * 28))
        assert row["judgments_paper"] == paper_judgment_count(8, row["k"], row["x"])
        assert row["topics"] == 4
        assert -1 <= row["ci_low"] <= row["rho"] <= row["ci_high"] <= 1
    # one judgment on a cycle of 8 items cannot reproduce 5 judgments on all 28 pairs
    assert rows[-1]["rho"] < 0.99


def test_pairs_with_fewer_judgments_keep_what_they_have():
    topics = [synthetic_topic(f"s{i}", 8, seed=i, short=3) for i in range(2)]
    (row,) = study(topics, n_topics=2, judgments=(5,), groups=(1,))
    assert row["judgments"] == 140 and row["judgments_present"] == 137
    assert row["rho"] == pytest.approx(1, abs=1e-12)


def test_seeded_independent_of_workers_and_of_the_other_cells():
    settings = {"judgments": (2, 1), "groups": (2, 4)}
    first = study(seed=7, **settings)
    assert study(seed=7, **settings) == first
    assert study(seed=7, workers=2, **settings) == first
    assert study(seed=8, **settings) != first
    (alone,) = study(seed=7, judgments=(1,), groups=(4,))
    assert alone["rho"] == first[3]["rho"]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_topics": 6}, "5 topics have at least 8 items; 6 are needed"),
        ({"groups": (9,)}, r"groups must be between 1 and n_items \(8\)"),
        ({"judgments": (0,)}, "judgments per pair must be >= 1"),
        ({"confidence": 1.0}, "confidence must be between 0 and 1"),
    ],
)
def test_bad_settings_fail(kwargs, match):
    with pytest.raises(ValueError, match=match):
        study(**kwargs)


def test_topic_without_every_pair_fails():
    gap = synthetic_topic("gap", 8, seed=1)
    gap.pairs, gap.outcomes = gap.pairs[1:], gap.outcomes[1:]
    with pytest.raises(ValueError, match=r"topic 'gap': 1 pairs of the 8 drawn items are never"):
        study([gap], n_topics=1)


def test_topics_from_the_ukpconvarg1_fixture(fixture_mirror, monkeypatch, cache_dir):
    root = fixture_mirror(NAME, files=FILES)
    cls = builder_class(NAME)
    monkeypatch.setattr(cls, "SOURCES", {key: cls.SOURCES[key] for key in FILES})
    full = argbench.load_dataset(NAME, "full", split="train", sources=root, cache_dir=cache_dir)
    evolution, tv = ukpconvarg1_topics(full)
    assert evolution.name == "evolution-vs-creation_evolution"
    assert evolution.items == ["794", "803", "80854"]
    assert evolution.pairs.tolist() == [[1, 0], [2, 1], [0, 2]]  # 803_794, 80854_803, 794_80854
    assert evolution.outcomes.tolist() == [[1, 1, 0, 2, 1], [2, 0, 1, 2, -1], [0, 1, 0, 2, 1]]
    assert tv.items == ["arg135683", "arg637551"] and tv.pairs.tolist() == [[0, 1]]
    (row,) = sparsification_study(
        [evolution], n_topics=1, n_items=3, judgments=(5,), groups=(1,), bootstrap=10
    )
    assert row["judgments_present"] == 14 and row["rho"] == pytest.approx(1, abs=1e-12)


@pytest.mark.mirror
@pytest.mark.slow  # Table 1's sparsification study on the real judgments
def test_mirror_table_1(real_corpora):
    full = argbench.load_dataset(
        "ukpconvarg1", "full", "train", sources=real_corpora.mirror, cache_dir=real_corpora.cache
    )
    rows = sparsification_study(ukpconvarg1_topics(full))
    assert [(r["x"], r["k"]) for r in rows] == [
        (x, k) for x in PAPER_SETTINGS["judgments"] for k in PAPER_SETTINGS["groups"]
    ]
    assert rows[0]["rho"] == pytest.approx(1, abs=1e-12)  # x = 5, k = 2: the baseline itself
    compared = [paper_agreement(r) for r in rows if (r["x"], r["k"]) in paper_table1()]
    assert len(compared) == 24
    # 20 seeds gave 22-24 rows within the combined half-width, mean |difference| 0.008-0.024
    assert sum(loose for _, _, loose in compared) >= 22
    assert np.mean([abs(diff) for diff, _, _ in compared]) < 0.03
    # the literal test (each rho inside the other's CI) is stricter: seed 0 gives 21 of 24,
    # the three misses at k = 32
    both = [(r["x"], r["k"]) for r in rows if paper_agreement(r) and not paper_agreement(r)[1]]
    assert sum(b for _, b, _ in compared) == 21 and {k for _, k in both} == {32}
    for x in PAPER_SETTINGS["judgments"]:
        rho = [r["rho"] for r in rows if r["x"] == x]
        assert (np.diff(rho) < 0).all()  # fewer pairs (larger k), lower correlation


def test_cli_simulate_on_the_fixture(fixture_mirror, monkeypatch, cache_dir, tmp_path, capsys):
    from argbench.cli import main

    root = fixture_mirror(NAME, files=FILES)
    cls = builder_class(NAME)
    monkeypatch.setattr(cls, "SOURCES", {key: cls.SOURCES[key] for key in FILES})
    out = tmp_path / "rows.csv"
    argv = ["pairwise", "simulate", "--topics", "1", "--items", "3", "--judgments", "5,1"]
    argv += ["--groups", "1", "--bootstrap", "10", "--sources", str(root)]
    assert main([*argv, "--cache-dir", cache_dir, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert " 5   1 " in printed and " 1   1 " in printed
    assert out.read_text().splitlines()[0].startswith("x,k,pairs,judgments")
    assert main([*argv[:-4], "--groups", "two", "--sources", str(root)]) == 2
    assert "--groups takes comma-separated integers, not 'two'" in capsys.readouterr().err


@pytest.mark.mirror
def test_mirror_reproduce_section(real_corpora, tmp_path):
    from argbench.reproduce import reproduce

    (section,) = reproduce(
        tmp_path,
        only=["webis_sparsification"],
        sources=str(real_corpora.mirror),
        cache_dir=real_corpora.cache,
        plots=True,
        log=lambda m: None,
    )
    rho = [r for r in section.rows if r.item.endswith("mean Pearson rho (λ=0.3)")]
    assert len(rho) == 25 and sum(r.published is not None for r in rho) == 24
    assert all(abs(r.diff) < 0.07 for r in rho if r.published is not None)
    # the literal CI test passes 21 of 24 at the default λ = 0.3 (misses at k = 32), but only 7
    # agree at the printed precision: the headline counts those; x=5, k=2 is the baseline itself
    assert sum(bool(r.agrees) for r in rho) == 21
    assert Counter(r.category for r in rho) == {
        "printed precision": 7,
        "named test": 13,
        "not reproduced": 3,
        "structural": 1,
        "descriptive": 1,  # x=4, k=2: not in the paper's text
    }
    assert {r.item.split(" /")[0] for r in rho if r.category == "not reproduced"} == {
        "x=5, k=32",
        "x=4, k=32",
        "x=2, k=32",
    }
    assert all("λ=0.1: " in r.note for r in rho)  # the release's λ beside each row
    assert "λ=0.3: 21 of 24 published rows pass; λ=0.1: 22 of 24" in " ".join(section.notes)
    # 23: the §3.6 gain row derives from two Table 1 cells and is not counted (derived)
    assert section.summary().startswith(
        "7 of 23 independent published figures reproduced at the printed precision. 13 more "
        "agree within a named test (each ρ̄ inside the other's 95% CI; argbench above the "
        "paper in "  # the direction of the looser agreements is said (issue 38)
    )
    counts = {r.item: r for r in section.rows if "judgments" in r.item}
    circular = counts["x=2, k=4 / judgments (the paper's formula)"]
    assert circular.kind == "structural" and circular.reproduced is None  # not counted
    assert "true count: 736" in circular.note and circular.note.startswith("circular")
    assert (tmp_path / "webis_sparsification.png").is_file()
