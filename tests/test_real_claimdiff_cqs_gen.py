"""Integration: the real files of ClaimDiff and CQs-Gen (skipped without the mirror)."""

from collections import Counter

import datasets
import pytest

import argbench

pytestmark = pytest.mark.mirror


@pytest.fixture(scope="module")
def built(real_corpora):
    """(folders, datasets cache) of the session's real corpora (conftest.py)."""
    return {
        name: real_corpora.folder(name) for name in ("claimdiff", "cqs_gen")
    }, real_corpora.cache


PAPER_SHARES = {
    ("S", "train"): 0.6931,
    ("W", "train"): 0.1061,
    ("S", "test"): 0.5664,
    ("W", "test"): 0.2196,
}


def test_claimdiff_counts_and_table1_shares(built, real_mirror):
    _, cache = built
    for config in ("S", "W"):
        ds = argbench.load_dataset("claimdiff", config, sources=real_mirror, cache_dir=cache)
        assert {s: len(d) for s, d in ds.items()} == {"train": 1857, "test": 1084, "test_doc": 3168}
        for split in ("train", "test"):
            share = sum(ds[split]["label"]) / len(ds[split])
            assert round(share, 4) == PAPER_SHARES[(config, split)]
        for split in ds:
            for row in ds[split].select_columns(["claim_a", "rationales", "rationale_spans"]):
                for phrase, span in zip(row["rationales"], row["rationale_spans"], strict=True):
                    assert row["claim_a"][span["start"] : span["end"]] == phrase
    s_train = argbench.load_dataset(
        "claimdiff", "S", split="train", sources=real_mirror, cache_dir=cache
    )
    w_train = argbench.load_dataset(
        "claimdiff", "W", split="train", sources=real_mirror, cache_dir=cache
    )
    assert s_train["pair_id"] == w_train["pair_id"]
    assert sum(s_train["reversed"]) == 958
    unfiltered = argbench.load_dataset(
        "claimdiff", "unfiltered", split="train", sources=real_mirror, cache_dir=cache
    )
    assert len(unfiltered) == 5076
    # the garbled copy of one test title is repaired: 88 articles, as the paper (1.0.0: 89)
    for split in ("test", "test_doc"):
        for version, articles in ((None, 88), ("1.0.0", 89)):
            ds = argbench.load_dataset(
                "claimdiff", "S", split, sources=real_mirror, cache_dir=cache, version=version
            )
            assert len(set(ds["article_a"]) | set(ds["article_b"])) == articles
            titles = list(ds["article_a"]) + list(ds["article_b"])
            assert (not any("Ã" in t for t in titles)) == (version is None)


def test_cqs_gen_counts_and_labels(built, real_mirror):
    _, cache = built
    ds = argbench.load_dataset("cqs_gen", sources=real_mirror, cache_dir=cache)
    assert {s: len(d) for s, d in ds.items()} == {"validation": 186, "test": 34}
    label = ds["validation"].features["references"].feature["label"]
    counts = Counter(
        label.int2str(r["label"]) for refs in ds["validation"]["references"] for r in refs
    )
    assert counts == {"Useful": 2790, "Unhelpful": 893, "Invalid": 453}
    test = Counter(label.int2str(r["label"]) for refs in ds["test"]["references"] for r in refs)
    assert test == {"Useful": 344, "Unhelpful": 250, "Invalid": 212}
    assert all(refs for refs in ds["test"]["references"])
    questions = argbench.load_dataset("cqs_gen", "questions", sources=real_mirror, cache_dir=cache)
    assert {s: len(d) for s, d in questions.items()} == {"validation": 4136, "test": 806}
    old = argbench.load_dataset("cqs_gen", sources=real_mirror, cache_dir=cache, version="1.0.0")
    assert all(refs == [] for refs in old["test"]["references"])
    assert old["test"]["intervention"] == ds["test"]["intervention"]
    assert old["validation"]["references"] == ds["validation"]["references"]


def test_cqs_gen_extended(built, real_mirror):
    _, cache = built
    ext = argbench.load_dataset("cqs_gen", "extended", "test", sources=real_mirror, cache_dir=cache)
    refs = [r for row in ext["references"] for r in row]
    added = [r for r in refs if r["submission"] >= 0]
    assert (len(ext), len(refs), len(added)) == (34, 2334, 1528)
    assert Counter(len([r for r in row if r["submission"] >= 0]) for row in ext["references"]) == {
        45: 32,
        44: 2,
    }
    assert {r["submission"] for r in added} == set(range(15))
    assert sum(1 for r in added if r["reason"] is not None) == 102
    assert [r["label_raw"] for r in refs].count("Wrong reasoning") == 2
    assert sum(1 for r in refs if r["cq"] != r["cq"].strip()) == 127


def test_built_folders_round_trip(built, real_mirror, tmp_path):
    folders, cache = built
    for name, configs in (
        ("claimdiff", ("S", "W", "unfiltered")),
        ("cqs_gen", ("interventions", "questions", "extended")),
    ):
        for config in configs:
            ours = argbench.load_dataset(name, config, sources=real_mirror, cache_dir=cache)
            plain = datasets.load_dataset(
                str(folders[name]), config, cache_dir=str(tmp_path / "plain")
            )
            for split in ours:
                assert plain[split].features == ours[split].features
                assert len(plain[split]) == len(ours[split])
                assert plain[split][:50] == ours[split][:50]
