"""claim_relation (ClaimDiff relation classification) and the issue-exclusive dev split."""

from __future__ import annotations

import math

import datasets
import numpy as np
import pytest

import argbench
from argbench.loaders.claimdiff import issue_split
from argbench.scoring.claim_relation import (
    best_f1_threshold,
    claim_relation,
    precision_recall_curve,
    roc_auc,
)

# ---- the metric, by hand ----


def test_auroc_counts_ties_one_half():
    # pairs (pos, neg): (0.5, 0.5) tie -> 0.5, (0.5, 0.1) -> 1, (0.9, 0.5) -> 1, (0.9, 0.1) -> 1
    assert roc_auc([1, 0, 1, 0], [0.5, 0.5, 0.9, 0.1]) == pytest.approx(3.5 / 4)
    assert roc_auc([1, 0], [0.2, 0.8]) == 0.0
    assert math.isnan(roc_auc([1, 1], [0.2, 0.8]))


def test_curve_points_by_hand():
    precision, recall, thresholds = precision_recall_curve([1, 0, 1, 0], [0.9, 0.5, 0.5, 0.1])
    assert thresholds.tolist() == [0.1, 0.5, 0.9]
    assert precision.tolist() == pytest.approx([0.5, 2 / 3, 1.0, 1.0])
    assert recall.tolist() == [1.0, 1.0, 0.5, 0.0]


def test_threshold_from_dev_maximises_f1_and_prefers_the_higher_on_ties():
    # dev: at 0.8 -> P 1 R 1/2 (F1 2/3); at 0.3 -> P 2/3 R 1 (F1 0.8); 0.1 -> P 1/2 R 1 (2/3)
    assert best_f1_threshold([1, 0, 1, 0], [0.8, 0.5, 0.3, 0.1]) == (0.3, pytest.approx(0.8))
    # every threshold gives F1 1/2 ... 2/3: two ties at 2/3 -> the higher threshold (0.9)
    threshold, f1 = best_f1_threshold([1, 0, 0, 1], [0.9, 0.5, 0.4, 0.1])
    assert (threshold, f1) == (0.9, pytest.approx(2 / 3))
    result = claim_relation(
        [0.9, 0.35, 0.3, 0.2], [1, 1, 0, 0], dev_predictions=[0.8, 0.5, 0.3, 0.1],
        dev_references=[1, 0, 1, 0],
    )  # fmt: skip
    assert result["threshold"] == 0.3 and result["dev_f1"] == pytest.approx(0.8)
    assert (result["precision"], result["recall"]) == (pytest.approx(2 / 3), 1.0)
    assert result["n_predicted_positive"] == 3 and result["auroc"] == 1.0


def test_hard_labels_give_prf_and_undefined_auroc():
    result = claim_relation([1, 1, 0, 0, 1], [1, 0, 1, 0, 1], hard_labels=True)
    assert math.isnan(result["auroc"]) and result["threshold"] is None
    assert (result["precision"], result["recall"]) == (pytest.approx(2 / 3), pytest.approx(2 / 3))
    assert "pr_curve" not in result
    none_predicted = claim_relation([0, 0], [1, 0], hard_labels=True)
    assert none_predicted["precision"] == 0.0 and none_predicted["f1"] == 0.0


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"predictions": [0.5, 0.2], "references": [1, 2], "threshold": 0.5}, r"references\[1\]"),
        ({"predictions": [0.5, "x"], "references": [1, 0], "threshold": 0.5}, r"predictions\[1\]"),
        ({"predictions": [0.5, float("nan")], "references": [1, 0], "threshold": 0.5}, "finite"),
        ({"predictions": [0.5, 0.2], "references": [1, 0]}, "need a threshold"),
        ({"predictions": [1, 0.5], "references": [1, 0], "hard_labels": True}, r"predictions\[1\]"),
        ({"predictions": [1, 0], "references": [1, 0], "hard_labels": True, "threshold": 0.5},
         "no threshold"),
        ({"predictions": [0.5], "references": [1], "dev_predictions": [0.1]}, "both"),
        ({"predictions": [0.5], "references": [1], "dev_predictions": [0.1],
          "dev_references": [0]}, "no positive"),
        ({"predictions": [0.5], "references": [1, 0], "threshold": 0.5}, "lengths"),
    ],
)  # fmt: skip
def test_bad_input_is_an_error_naming_the_field(kwargs, error):
    with pytest.raises((ValueError, TypeError), match=error):
        claim_relation(**kwargs)


def test_metric_module_matches_the_function():
    metric = argbench.load_metric("claim_relation")
    result = metric.compute(predictions=[0.9, 0.1, 0.5], references=[1, 0, 1], threshold=0.5)
    assert result == claim_relation([0.9, 0.1, 0.5], [1, 0, 1], threshold=0.5)


# ---- against scikit-learn ----


def test_agrees_with_scikit_learn_with_and_without_ties():
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(13)
    checked = 0
    for trial in range(200):
        n = int(rng.integers(2, 80))
        labels = rng.integers(0, 2, n)
        if labels.min() == labels.max():
            continue
        scores = rng.integers(0, 6, n) / 5 if trial % 2 else rng.random(n)
        assert roc_auc(labels, scores) == pytest.approx(metrics.roc_auc_score(labels, scores))
        ours, theirs = (
            precision_recall_curve(labels, scores),
            metrics.precision_recall_curve(labels, scores),
        )
        for a, b in zip(ours, theirs, strict=True):
            np.testing.assert_allclose(a, b)
        threshold = float(rng.choice(scores))
        result = claim_relation(scores.tolist(), labels.tolist(), threshold=threshold)
        decided = scores >= threshold
        assert result["f1"] == pytest.approx(metrics.f1_score(labels, decided, zero_division=0))
        assert result["precision"] == pytest.approx(
            metrics.precision_score(labels, decided, zero_division=0)
        )
        assert result["recall"] == pytest.approx(metrics.recall_score(labels, decided))
        best, f1 = best_f1_threshold(labels, scores)
        assert f1 == pytest.approx(metrics.f1_score(labels, scores >= best))
        f1_all = [claim_relation(scores, labels, threshold=t)["f1"] for t in set(scores)]
        assert f1 == pytest.approx(max(f1_all))
        checked += 1
    assert checked > 150


# ---- the issue split ----


def _pairs():
    """8 issues; issue k has pairs pk-0 (+ its _rev twin) and pk-1; issue 7's twin is filed
    under another topic spelling, which must not separate it from its pair."""
    topics, ids = [], []
    for k in range(8):
        topics += [f"issue {k}"] * 3
        ids += [f"p{k}-0", f"p{k}-0_rev", f"p{k}-1"]
    topics[-2] = "issue 7 (other spelling)"
    return datasets.Dataset.from_dict({"topic": topics, "pair_id": ids, "label": [0, 1, 1] * 8})


def _twin(pair_id: str) -> str:
    return pair_id.removesuffix("_rev") if pair_id.endswith("_rev") else pair_id + "_rev"


def test_issue_split_is_issue_exclusive_keeps_twins_and_is_seeded():
    data = _pairs()
    seen = set()
    for seed in range(12):
        train, dev = issue_split(data, fraction=0.3, seed=seed)
        assert len(train) + len(dev) == len(data)
        assert not set(train["topic"]) & set(dev["topic"])
        for side, other in ((train, dev), (dev, train)):
            assert not {_twin(p) for p in side["pair_id"]} & set(other["pair_id"])
        # 8 groups (issue 7's two spellings are one) -> round(2.4) = 2 in dev
        assert len({t.split(" (")[0] for t in dev["topic"]}) == 2
        again = issue_split(data, fraction=0.3, seed=seed)[1]
        assert again["pair_id"] == dev["pair_id"]
        seen.add(tuple(dev["pair_id"]))
    assert len(seen) > 1  # the seed matters


def test_issue_split_rejects_a_fraction_that_empties_a_side():
    with pytest.raises(ValueError, match="fraction"):
        issue_split(_pairs(), fraction=1.0)
    with pytest.raises(ValueError, match="one side empty"):
        issue_split(_pairs(), fraction=0.01)


@pytest.mark.mirror
def test_issue_split_on_the_release(real_corpora):
    strength = real_corpora.load("claimdiff", "S", "train")
    weak = real_corpora.load("claimdiff", "W", "train")
    train, dev = issue_split(strength, seed=0)
    assert (len(set(dev["topic"])), len(dev), len(train)) == (28, 586, 1271)
    assert not {_twin(p) for p in dev["pair_id"]} & set(train["pair_id"])
    assert issue_split(weak, seed=0)[1]["pair_id"] == dev["pair_id"]
