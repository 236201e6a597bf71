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


# ---------------------------------------------------------------- bounded memory (issue 35)


def old_input():
    rng = np.random.default_rng(35)
    scores = rng.integers(0, 4, (3, 30)) / 3
    scores[rng.random((3, 30)) < 0.15] = np.nan
    return scores


# compare_systems(old_input(), ["a", "b", "c"], resamples=400, seed=7, confidence=0.9) as
# argbench computed it before the resamples came in chunks and the pairs in blocks (commit
# 1957694): the same numbers, to the last bit
BEFORE_SYSTEMS = [
    ("a", 0.5641025641025641, 0.4442460317460317, 0.6817168338907464),
    ("b", 0.4137931034482758, 0.3111111111111111, 0.5222222222222223),
    ("c", 0.46376811594202894, 0.3333333333333333, 0.5972222222222222),
]
BEFORE_PAIRS = [
    ("a", "b", 0.1503094606542883, 0.005818965517241403, 0.2820770704391393, 0.10723192019950124),
    ("a", "c", 0.10033444816053516, -0.08087667887667888, 0.2822185061315494, 0.39650872817955113),
    ("b", "c", -0.049975012493753135, -0.1995674755214985, 0.11182121060681775, 0.6384039900249376),
]  # fmt: skip


@pytest.mark.parametrize("block_bytes", [None, 1, 4000])
def test_chunks_and_blocks_change_no_number(block_bytes, monkeypatch):
    """One pair (or one column) per block, a few per block, or the default: the numbers of
    the whole-matrix computation before, bit for bit."""
    from argbench.scoring import significance

    if block_bytes is not None:
        monkeypatch.setattr(significance, "PAIR_BLOCK_BYTES", block_bytes)
    result = compare_systems(old_input(), ["a", "b", "c"], resamples=400, seed=7, confidence=0.9)
    # the figures the code before had (rank intervals and tie groups came later)
    before = ("name", "score", "low", "high")
    assert [tuple(s[k] for k in before) for s in result["systems"]] == BEFORE_SYSTEMS
    assert [tuple(p.values()) for p in result["pairs"]] == BEFORE_PAIRS


def test_the_resample_chunks_are_the_resamples_of_the_intervals():
    """bootstrap_chunks gives, a chunk at a time, the very resamples bootstrap_means stacks
    (what a rank interval over the same resamples reads); bad scores fail at the call."""
    from argbench.scoring.significance import BATCH, bootstrap_chunks

    scores = old_input()
    chunks = list(bootstrap_chunks(scores, 300, seed=2))
    assert all(len(c) <= BATCH for c in chunks) and sum(len(c) for c in chunks) == 300
    np.testing.assert_array_equal(np.vstack(chunks), bootstrap_means(scores, 300, seed=2))
    with pytest.raises(ValueError, match="no scored item"):
        bootstrap_chunks([[np.nan, np.nan]], 10)  # before the first chunk is asked for
    with pytest.raises(ValueError, match="resamples must be >= 1"):
        bootstrap_chunks(scores, 0)


def test_a_board_of_many_systems_stays_within_its_memory_bound(monkeypatch):
    """Old: the board's statistics held resamples × pairs floats and copies of them (169 MB
    for this column of 120 systems at 1,000 resamples; 10.6 GB for 300 at 10,000). New:
    the resamples × systems means and blocks of at most PAIR_BLOCK_BYTES (here 2 MB)."""
    import sys
    import tracemalloc
    from pathlib import Path

    from argbench.leaderboard.table import columns
    from argbench.scoring import significance

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
    try:
        from bench_board import documents
    finally:
        sys.path.pop(0)
    monkeypatch.setattr(significance, "PAIR_BLOCK_BYTES", 2 * 1024 * 1024, raising=False)
    systems, resamples = 120, 1000
    docs = documents(systems, 30)
    tracemalloc.start()
    try:
        [column], _ = columns(docs, resamples=resamples)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    means = 8 * resamples * systems  # the resampled means, and percentile's copy of them
    bound = 2 * means + 3 * 2 * 1024 * 1024 + 64 * systems**2 + 4 * 1024 * 1024
    assert peak < bound, f"peak {peak / 2**20:.1f} MB above the bound {bound / 2**20:.1f} MB"
    # control: the board is whole, and the same with the default blocks
    assert len(column.rows) == systems
    monkeypatch.setattr(significance, "PAIR_BLOCK_BYTES", 32 * 1024 * 1024)
    [default], _ = columns(docs, resamples=resamples)
    assert default.rows == column.rows


def test_percentile_blocks_with_and_without_unscored_resamples(monkeypatch):
    """Columns with NaN (a resample that drew no scored item) and columns without, in blocks
    of one or a few columns: nanpercentile's numbers over the whole matrix."""
    from argbench.scoring import significance

    rng = np.random.default_rng(8)
    distribution = rng.random((101, 9))
    distribution[rng.random((101, 9)) < 0.05] = np.nan
    distribution[:, [2, 5]] = rng.random((101, 2))  # two columns without NaN
    alpha = (1 - 0.95) / 2  # as percentile_interval computes it (2.5000000000000022)
    whole = np.nanpercentile(distribution, [100 * alpha, 100 * (1 - alpha)], axis=0)
    for block in (1, 8 * 101 * 2, significance.PAIR_BLOCK_BYTES):
        monkeypatch.setattr(significance, "PAIR_BLOCK_BYTES", block)
        np.testing.assert_array_equal(percentile_interval(distribution), whole)
