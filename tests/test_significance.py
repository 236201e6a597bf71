"""Bootstrap intervals against scipy.stats.bootstrap, the randomisation p-value against exact
enumeration, and the comparison on systems with a known difference and on identical ones."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from argbench.scoring.significance import (
    bootstrap_means,
    compare_systems,
    percentile_interval,
    permutation_pvalues,
)

stats = pytest.importorskip("scipy.stats")


def systems(n=400, seed=3):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 4, n) / 3  # CQ-like per-item scores: 0, 1/3, 2/3, 1
    b = np.clip(a + rng.choice([-1 / 3, 0, 0, 1 / 3], n), 0, 1)
    c = rng.random(n)
    return np.vstack([a, b, c])


def test_intervals_equal_scipy_bootstrap_percentile_with_the_same_seed():
    """Same draws as scipy (default_rng(seed).integers(0, n, (resamples, n))): the same
    intervals, for each system and for the paired differences."""
    scores = systems()
    means = bootstrap_means(scores, 3000, seed=11)
    ours = percentile_interval(means, 0.9)

    def each_mean(*samples, axis=-1):
        return tuple(s.mean(axis=axis) for s in samples)

    reference = stats.bootstrap(
        tuple(scores),
        each_mean,
        paired=True,
        vectorized=True,
        method="percentile",
        confidence_level=0.9,
        n_resamples=3000,
        rng=np.random.default_rng(11),
    ).confidence_interval
    np.testing.assert_allclose(ours, [reference.low, reference.high], rtol=0, atol=1e-12)
    difference = stats.bootstrap(
        (scores[0], scores[1]),
        lambda x, y, axis=-1: x.mean(axis=axis) - y.mean(axis=axis),
        paired=True,
        vectorized=True,
        method="percentile",
        n_resamples=3000,
        rng=np.random.default_rng(11),
    ).confidence_interval
    low, high = percentile_interval(means[:, 0] - means[:, 1], 0.95)
    assert (low, high) == pytest.approx((difference.low, difference.high), abs=1e-12)


def test_intervals_agree_with_scipy_across_seeds_within_resampling_noise():
    scores = systems()[2]
    ours = percentile_interval(bootstrap_means(scores, 10_000, seed=1))[:, 0]
    theirs = stats.bootstrap(
        (scores,), np.mean, method="percentile", n_resamples=10_000, rng=np.random.default_rng(2)
    ).confidence_interval
    se = scores.std() / np.sqrt(len(scores))
    assert ours == pytest.approx([theirs.low, theirs.high], abs=0.1 * se)


def test_unscored_items_are_left_out_of_each_mean_like_nanmean():
    scores = systems(n=200)[:2].copy()
    scores[0, ::7] = np.nan
    means = bootstrap_means(scores, 500, seed=4)
    reference = stats.bootstrap(
        tuple(scores),
        lambda *s, axis=-1: tuple(np.nanmean(x, axis=axis) for x in s),
        paired=True,
        vectorized=True,
        method="percentile",
        n_resamples=500,
        rng=np.random.default_rng(4),
    )
    np.testing.assert_allclose(means.T, reference.bootstrap_distribution, atol=1e-12)


def exact_p(a, b):
    """Two-sided paired permutation p by enumerating every swap pattern."""
    observed = abs(a.mean() - b.mean())
    hits = 0
    for pattern in itertools.product([False, True], repeat=len(a)):
        swap = np.array(pattern)
        x, y = np.where(swap, b, a), np.where(swap, a, b)
        hits += abs(x.mean() - y.mean()) >= observed - 1e-12
    return hits / 2 ** len(a)


def test_permutation_p_value_matches_exact_enumeration():
    rng = np.random.default_rng(5)
    a = rng.integers(0, 4, 14) / 3
    b = np.clip(a - rng.choice([0, 1 / 3, 2 / 3], 14), 0, 1)
    truth = exact_p(a, b)
    assert 0.001 < truth < 0.5
    (exact,), enumerated = permutation_pvalues([a, b], [(0, 1)], resamples=2**14)
    assert enumerated and exact == pytest.approx(truth, abs=1e-12)
    (shuffled,), enumerated = permutation_pvalues([a, b], [(0, 1)], resamples=10_000, seed=2)
    assert not enumerated  # 2^14 > 10,000: random swaps
    assert shuffled == pytest.approx(truth, abs=4 * np.sqrt(truth * (1 - truth) / 10_000))


def test_a_known_difference_is_found():
    rng = np.random.default_rng(0)
    good = rng.integers(0, 4, 300) / 3
    worse = np.clip(good - rng.choice([0, 1 / 3], 300, p=[0.6, 0.4]), 0, 1)
    result = compare_systems([good, worse], ["good", "worse"], resamples=5000, seed=1)
    (pair,) = result["pairs"]
    assert pair["difference"] == pytest.approx(good.mean() - worse.mean())
    assert 0 < pair["low"] < pair["difference"] < pair["high"]
    assert pair["p_value"] == pytest.approx(1 / 5001)  # no shuffle is as extreme
    for system, values in zip(result["systems"], (good, worse), strict=True):
        assert system["low"] < values.mean() < system["high"]


def test_two_copies_of_one_system_are_not_different():
    scores = systems()[0]
    result = compare_systems([scores, scores.copy()], ["a", "b"], resamples=2000)
    (pair,) = result["pairs"]
    assert pair["difference"] == 0 and pair["low"] == pair["high"] == 0
    assert pair["p_value"] == 1.0
    assert result["systems"][0]["low"] == result["systems"][1]["low"]


def test_one_resample_matrix_serves_every_system_and_pair():
    scores = systems()
    together = compare_systems(scores, resamples=1000, seed=9)
    alone = compare_systems(scores[[0, 2]], resamples=1000, seed=9)
    relative = ("rank_low", "rank_high", "group")  # a rank depends on who else is ranked

    def own(system):
        return {k: v for k, v in system.items() if k not in relative}

    assert own(together["systems"][2]) == {**own(alone["systems"][1]), "name": "system 2"}
    assert together["pairs"][1]["p_value"] == alone["pairs"][0]["p_value"]
    assert len(together["pairs"]) == 3


def test_bad_input_is_an_error():
    with pytest.raises(ValueError, match="no scored item"):
        compare_systems([[np.nan, np.nan], [1.0, 0.0]])
    with pytest.raises(ValueError, match="infinite"):
        bootstrap_means([[np.inf, 1.0]])
    with pytest.raises(ValueError, match="confidence"):
        percentile_interval(np.zeros((3, 1)), 95)
    with pytest.raises(ValueError, match="2 names for 3 systems"):
        compare_systems(systems(), ["a", "b"])
