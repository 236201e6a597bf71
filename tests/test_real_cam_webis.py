"""Integration: the real CAM and Webis-ArgQuality-20 files (skipped without the mirror)."""

import json
import re
from collections import Counter

import datasets
import numpy as np
import pytest

import argbench
from argbench.loaders import builder_class
from argbench.loaders.registry import path_of

pytestmark = pytest.mark.mirror

NAMES = ("cam_relevance", "cam_answers", "webis_argquality20")


@pytest.fixture(scope="module")
def built(real_corpora):
    """(folders, datasets cache) of the session's real corpora (conftest.py)."""
    return {name: real_corpora.folder(name) for name in NAMES}, real_corpora.cache


@pytest.fixture(scope="module")
def load(built, real_mirror):
    _, cache = built

    def load(name, config, split="train"):
        return argbench.load_dataset(
            name, config, split=split, sources=real_mirror, cache_dir=cache
        )

    return load


def source_path(real_mirror, name, key):
    return path_of(name, key, real_mirror)


# -- cam_relevance --------------------------------------------------------------------------


def test_cam_relevance_default_counts_and_labels(load):
    ds = load("cam_relevance", "default")
    assert len(ds) == 1770 and len(set(ds["pair_id"])) == 112
    assert ds["argument"].count(None) == 31
    assert Counter(ds["relevance"]) == {3: 794, 2: 590, 1: 287, 0: 99}
    real = [r for r, a in zip(ds["relevance"], ds["argument"], strict=True) if a is not None]
    assert Counter(real) == {3: 790, 2: 584, 1: 279, 0: 86}
    assert Counter(ds["relevance_gpt4"]) == {2: 959, 3: 393, 1: 377, 0: 41}


def test_cam_relevance_toloka_counts_and_majority(load):
    ds = load("cam_relevance", "toloka")
    assert len(ds) == 6854  # records; the file has 34,270 lines after the header
    assert len(set(ds["task_id"])) == 1729
    status = ds.features["status"]
    assert Counter(status.int2str(s) for s in ds["status"]) == {"APPROVED": 6409, "EXPIRED": 445}
    approved = status.str2int("APPROVED")
    rows = [
        (t, label)
        for t, label, s in zip(ds["task_id"], ds["label"], ds["status"], strict=True)
        if s == approved
    ]
    assert Counter(label for _, label in rows) == {3: 2426, 2: 2117, 1: 1308, 0: 558}
    assert len(ds) - ds["golden_label"].count(None) == 1371
    assert None not in ds["sentence"]
    # the authors' majority label per task (ties: first seen), as in their agreement notebook
    per_task = {}
    for task, label in rows:
        per_task.setdefault(task, []).append(label)
    majority = Counter(Counter(labels).most_common()[0][0] for labels in per_task.values())
    assert majority == {3: 739, 2: 578, 1: 313, 0: 99}


def _fleiss_kappa(ratings: np.ndarray, categories: int) -> float:
    counts = np.stack([(ratings == c).sum(axis=1) for c in range(categories)], axis=1)
    raters = ratings.shape[1]
    p_item = ((counts * (counts - 1)).sum(axis=1) / (raters * (raters - 1))).mean()
    p_cat = counts.sum(axis=0) / counts.sum()
    chance = (p_cat**2).sum()
    return (p_item - chance) / (1 - chance)


def test_cam_relevance_expert_counts_and_sheet_agreement(load):
    krippendorff = pytest.importorskip("krippendorff")
    train = load("cam_relevance", "expert")
    assert Counter(train["annotator"]) == {f"annotator_{k}": 100 for k in range(1, 6)}
    assert Counter(train["label"]) == {3: 243, 2: 169, 0: 46, 1: 40, None: 2}
    control = load("cam_relevance", "expert", "control")
    assert len(control) == 120
    # the sheet's literal alpha / kappa come from the 4 rating columns without "Cats vs Dogs"
    items = {}
    for row in control:
        if (row["object_a"], row["object_b"]) != ("Cats", "Dogs"):
            items.setdefault(row["row"], []).append(row["label"])
    ratings = np.array(list(items.values()))
    assert ratings.shape == (29, 4)
    alpha = krippendorff.alpha(reliability_data=ratings.T, level_of_measurement="ordinal")
    assert alpha == pytest.approx(0.888880679253755, abs=1e-12)
    assert _fleiss_kappa(ratings, 4) == pytest.approx(0.812145748987854, abs=1e-12)


def test_expert_sheet_names_never_published(real_corpora, real_mirror):
    from openpyxl import load_workbook

    # the names are read from the source first: only then is cam_relevance (alone) built
    workbook = load_workbook(source_path(real_mirror, "cam_relevance", "expert"), read_only=True)
    people = [n for n in workbook.sheetnames if not re.fullmatch(r"Sheet\d+|контрольные", n)]
    workbook.close()
    assert len(people) == 5
    folder = real_corpora.folder("cam_relevance")
    card = (folder / "README.md").read_text(encoding="utf-8")
    expert = datasets.load_dataset(str(folder), "expert")
    text = card + json.dumps([split.to_list() for split in expert.values()], ensure_ascii=False)
    for person in people:
        assert person not in text


# -- cam_answers ----------------------------------------------------------------------------


def _authors_relevance(real_mirror):
    """sorted pair -> argument entries, built like the authors' notebook (last entry wins)."""
    with open(source_path(real_mirror, "cam_relevance", "relevance"), encoding="utf-8") as f:
        return {tuple(sorted((p["obj1"], p["obj2"]))): p["arguments"] for p in json.load(f)}


def _authors_relevant_ids(relevance, row):
    """IDs of arguments with a copy of human relevance >= 2 (full text, not the split quirk)."""
    args = relevance.get(tuple(sorted((row["object_a"], row["object_b"]))), [])
    relevant = [a["argument"] for a in args if a["relevance"] >= 2]
    return {n for n, text in enumerate(row["arguments"], start=1) if text in relevant}


def test_cam_answers_counts_and_alignment(load, real_mirror):
    silver = load("cam_answers", "silver")
    subset = load("cam_answers", "silver_subset")
    gold = load("cam_answers", "gold")
    assert (len(silver), len(subset), len(gold)) == (336, 150, 80)
    assert len(set(silver["question_id"])) == 112 and len(set(gold["question_id"])) == 50
    assert Counter(Counter(gold["question_id"]).values()) == {1: 40, 4: 10}
    assert sum(1 for a in silver["arguments"] if not a) == 21 * 3

    with open(source_path(real_mirror, "cam_answers", "silver_112"), encoding="utf-8") as f:
        raw = json.load(f)
    for row in silver.select(range(0, 336, 3)):
        numbered = [f"{n}. {text}" for n, text in enumerate(row["arguments"], start=1)]
        assert (
            numbered == raw[int(row["question_id"].split("-")[-1])]["arguments"]
        )  # [N] is arguments[N-1]

    relevance = _authors_relevance(real_mirror)
    for ds in (silver, subset, gold):
        for row in ds:
            assert len(row["argument_relevance"]) == len(row["arguments"])
            assert None not in row["argument_relevance"]
            assert None not in row["argument_relevance_gpt4"]
            ours = {n for n, r in enumerate(row["argument_relevance"], start=1) if r >= 2}
            assert ours == _authors_relevant_ids(relevance, row)
    human = Counter(r for rs in silver.select(range(0, 336, 3))["argument_relevance"] for r in rs)
    assert human == {3: 769, 2: 59}

    by_pair = {(r["object_a"], r["object_b"]): r["arguments"] for r in subset}
    assert all(by_pair[(r["object_a"], r["object_b"])] == r["arguments"] for r in gold)

    def key(row):
        return row["object_a"], row["object_b"], row["answer_index"]

    def without_id(row):
        return {k: v for k, v in row.items() if k != "question_id"}

    silver_rows = {key(r): without_id(r) for r in silver}
    assert all(silver_rows[key(r)] == without_id(r) for r in subset)


# -- webis_argquality20 ---------------------------------------------------------------------

WINS = {
    "rhetorical": [5833, 5660, 2459],
    "logical": [6222, 5719, 2011],
    "dialectical": [6005, 5767, 2180],
}
PER_TOPIC = {1: 762, 2: 650, 3: 815, 4: 650, 5: 783, 6: 613, 7: 578, 8: 854, 9: 621, 10: 780,
             11: 705, 12: 805, 13: 578, 14: 805, 15: 828, 16: 691, 17: 596, 18: 872, 19: 621,
             20: 345}  # fmt: skip


def test_webis_pairwise_counts(load):
    ds = load("webis_argquality20", "pairwise")
    assert len(ds) == 41856
    names = ds.features["dimension"].names
    pairs = Counter(zip(ds["dimension"], ds["winner"], strict=True))
    for d, name in enumerate(names):
        assert [pairs[(d, w)] for w in range(3)] == WINS[name]
    topics = Counter(zip(ds["dimension"], ds["topic_id"], strict=True))
    for d in range(3):
        assert {t: topics[(d, t)] for t in PER_TOPIC} == PER_TOPIC


def test_webis_scores_and_small_configs(load):
    ds = load("webis_argquality20", "scores")
    assert len(ds) == 1610 and sum(ds["is_argument"]) == 1271
    assert sum(ds["stance"]) == 852
    rows = ds.to_list()
    columns = ("relevance", "rhetorical", "logical", "dialectical", "combined")
    assert all(r[c] is None for r in rows if not r["is_argument"] for c in columns)
    never = [r for r in rows if r["is_argument"] and r["logical"] is None]
    assert {(r["topic_id"], r["discussion_id"], r["argument_id"]) for r in never} == {
        (2, 34949, 126),
        (11, 34949, 126),
    }
    assert all(r["combined"] is None and r["relevance"] is not None for r in never)
    # z-normalised over the argument rows: relevance over all 1,271, quality over the 1,269 compared
    relevance = np.array([r["relevance"] for r in rows if r["is_argument"]])
    assert abs(relevance.mean()) < 1e-9 and relevance.std() == pytest.approx(1, abs=1e-9)
    logical = np.array([r["logical"] for r in rows if r["logical"] is not None])
    assert len(logical) == 1269
    assert abs(logical.mean()) < 1e-3 and logical.std() == pytest.approx(1, abs=1e-3)

    assert len(load("webis_argquality20", "topics")) == 20
    rankings = load("webis_argquality20", "rankings")
    assert Counter(rankings["model"]) == {"DPH": 1000, "DirichletLM": 1000, "BM25": 1000}
    votes = load("webis_argquality20", "relevance_judgments")
    assert Counter(votes["relevance"]) == {3: 3292, 2: 2284, 0: 1258, 1: 1216}
    assert sum(votes["is_argument"]) == 5827


# -- built folders --------------------------------------------------------------------------


def test_built_folders_round_trip(built, real_mirror, tmp_path):
    folders, cache = built
    for name in NAMES:
        for config in (c.name for c in builder_class(name).BUILDER_CONFIGS):
            ours = argbench.load_dataset(name, config, sources=real_mirror, cache_dir=cache)
            plain = datasets.load_dataset(
                str(folders[name]), config, cache_dir=str(tmp_path / "plain")
            )
            assert set(plain) == set(ours)
            for split in ours:
                assert plain[split].features == ours[split].features
                assert len(plain[split]) == len(ours[split])
                assert plain[split][:50] == ours[split][:50]
                assert plain[split][-50:] == ours[split][-50:]
