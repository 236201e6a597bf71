"""Confidence intervals and significance for systems scored on the same items.

Input: a systems × items matrix of per-item scores (a metric's ``per_item`` values; NaN where
an item is not scored, e.g. an answer without relevant arguments). A system's score is the
mean over its scored items, as the metrics average them.

- Paired percentile bootstrap: resample items with replacement, the same resamples for
  every system, so the differences between systems are paired. The item indices come from
  ``numpy.random.default_rng(seed).integers(0, n, (resamples, n))``, drawn in batches (the
  stream is the same), which is what ``scipy.stats.bootstrap(..., paired=True,
  method="percentile", rng=numpy.random.default_rng(seed))`` draws: the intervals are
  scipy's. Interval ends are linear-interpolated percentiles at (1 ± confidence) / 2.
- Paired approximate randomisation (Noreen 1989; Riezler & Maxwell 2005): for each shuffle,
  each item's two scores are swapped with probability 1/2; p = (1 + shuffles with
  |difference| >= the observed |difference|) / (1 + shuffles). When 2^items <= shuffles
  every swap pattern is enumerated instead and p is exact. Shuffles come from
  ``default_rng(SeedSequence(seed, spawn_key=(1,)))``, a stream independent of the
  bootstrap's.

Vectorised: a batch of resamples becomes a resamples × items count (or swap) matrix, and
one matrix product with the items × systems score matrix gives every system's resampled
sums at once, so the cost barely grows with the number of systems.

Bounded memory: the resamples are drawn in chunks (:func:`bootstrap_chunks`), and what is
computed per pair (a difference's resampled values, a shuffle's means) is computed for a
block of pairs at a time, at most :data:`PAIR_BLOCK_BYTES` of working arrays. What grows is
the resamples × systems matrix of resampled means, 8 bytes each (80 MB for 1,000 systems at
10,000 resamples), never resamples × pairs (40 GB for the same board). The blocks change the
order of nothing: the numbers are those of one whole-matrix computation, bit for bit.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from itertools import combinations

import numpy as np

from argbench.scoring.statistics import RankCounter, resample_counts, tie_groups

__all__ = [
    "PAIR_BLOCK_BYTES",
    "TIE_ALPHA",
    "bootstrap_chunks",
    "bootstrap_means",
    "compare_systems",
    "difference_intervals",
    "percentile_interval",
    "permutation_pvalues",
    "rank_intervals_of",
]

TIE_ALPHA = 0.05  # family-wise error of the tie groups (Holm over every pair)
BATCH = 64  # resamples per batch: small enough for the counts to stay in cache (2× faster than 512)
# working memory for the arrays computed per pair (a block of pairs at a time): 32 MB
PAIR_BLOCK_BYTES = 32 * 1024 * 1024


def _one_blas_thread():
    """The products here are items × a few systems: BLAS threads only contend (3× slower on a
    busy 2-core machine). threadpoolctl comes with scikit-learn; without it, no limit."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(1, user_api="blas")


def _matrix(scores) -> np.ndarray:
    matrix = np.array(scores, dtype=float)
    if matrix.ndim == 1:
        matrix = matrix[None, :]
    if matrix.ndim != 2 or matrix.shape[1] == 0:
        raise ValueError(f"scores must be a systems × items matrix, got shape {matrix.shape}")
    if np.isinf(matrix).any():
        raise ValueError("scores hold an infinite value: per-item scores must be finite or NaN")
    empty = np.flatnonzero(np.isnan(matrix).all(axis=1))
    if len(empty):
        raise ValueError(f"system {empty[0]} has no scored item (all NaN)")
    return matrix


def _sums(weights: np.ndarray, values: np.ndarray, scored: np.ndarray | None):
    """Weighted sums and weighted counts of the scored items, per system."""
    sums = weights @ values
    counts = weights.sum(axis=1, keepdims=True) if scored is None else weights @ scored
    return sums, counts


def bootstrap_chunks(scores, resamples: int = 10_000, seed: int = 0) -> Iterator[np.ndarray]:
    """The paired resamples, a chunk at a time: each chunk is size × systems, every system's
    mean over the scored items of one resample per row (NaN: no scored item drawn), in the
    order :func:`bootstrap_means` stacks them. A statistic over the same resamples as the
    score intervals (a system's rank in each resample) reads these chunks, holding one chunk
    at a time. The scores are checked here, before the first chunk is asked for."""
    matrix = _matrix(scores)
    if resamples < 1:
        raise ValueError(f"resamples must be >= 1, got {resamples}")
    return _bootstrap_chunks(matrix, resamples, seed)


def _bootstrap_chunks(matrix: np.ndarray, resamples: int, seed: int) -> Iterator[np.ndarray]:
    """(the checks done) BLAS is held to one thread while the chunks are drawn."""
    n = matrix.shape[1]
    missing = np.isnan(matrix)
    values = np.where(missing, 0.0, matrix).T  # items × systems
    scored = None if not missing.any() else (~missing).T.astype(float)
    with _one_blas_thread():
        # the draws of scipy.stats.bootstrap, batch after batch of the same stream
        for counts in resample_counts(n, resamples, seed, BATCH):
            sums, totals = _sums(counts.astype(float), values, scored)
            with np.errstate(invalid="ignore", divide="ignore"):
                yield sums / totals  # 0/0: no scored item drawn


def bootstrap_means(scores, resamples: int = 10_000, seed: int = 0) -> np.ndarray:
    """resamples × systems: each system's mean over the scored items of each paired resample
    (the chunks of :func:`bootstrap_chunks`, stacked)."""
    matrix = _matrix(scores)
    chunks = bootstrap_chunks(matrix, resamples, seed)  # checks resamples
    out = np.empty((resamples, matrix.shape[0]))
    start = 0
    for chunk in chunks:
        out[start : start + len(chunk)] = chunk
        start += len(chunk)
    return out


def percentile_interval(distribution: np.ndarray, confidence: float = 0.95) -> np.ndarray:
    """(low, high) per column: percentile interval of a bootstrap distribution (NaN ignored),
    a block of columns at a time (percentile works on a copy of what it is given)."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    alpha = (1 - confidence) / 2
    q = [100 * alpha, 100 * (1 - alpha)]
    distribution = np.asarray(distribution)
    if distribution.ndim < 2:
        return _percentiles(distribution, q)
    out = np.empty((2, *distribution.shape[1:]))
    for block in _blocks(distribution.shape[1], 8 * distribution.shape[0]):
        out[:, block] = _percentiles(distribution[:, block], q)
    return out


def _percentiles(distribution: np.ndarray, q: list[float]) -> np.ndarray:
    # numpy's nanpercentile loops over the columns in Python; without NaN, percentile gives
    # the same numbers (the same partition and interpolation per column) several times faster
    if np.isnan(distribution).any():
        return np.nanpercentile(distribution, q, axis=0)
    return np.percentile(distribution, q, axis=0)


def _blocks(n: int, bytes_each: int) -> Iterator[slice]:
    """Consecutive slices of ``n`` pairs (or columns), each holding at most PAIR_BLOCK_BYTES
    of arrays when one takes ``bytes_each``."""
    step = max(1, PAIR_BLOCK_BYTES // max(1, bytes_each))
    for start in range(0, n, step):
        yield slice(start, min(start + step, n))


def _pair_arrays(pairs) -> tuple[np.ndarray, np.ndarray]:
    """(a, b) index arrays of ``pairs``: a list of (a, b) tuples or a pairs × 2 array (for
    many systems: ``numpy.triu_indices`` gives every pair without a tuple per pair)."""
    indices = np.asarray(pairs, dtype=int).reshape(-1, 2)
    return indices[:, 0], indices[:, 1]


def difference_intervals(means: np.ndarray, pairs, confidence: float = 0.95) -> np.ndarray:
    """(low, high) per pair (a, b): the percentile interval of mean a − mean b over the
    resamples of ``means`` (:func:`bootstrap_means`), computed a block of pairs at a time
    (the resamples × pairs matrix of differences is never held whole)."""
    a, b = _pair_arrays(pairs)
    out = np.empty((2, len(a)))
    # a block's differences, and percentile's copy of them
    for block in _blocks(len(a), 2 * 8 * means.shape[0]):
        out[:, block] = percentile_interval(means[:, a[block]] - means[:, b[block]], confidence)
    return out


def _swaps(rng, size: int, n: int) -> np.ndarray:
    """size × n swap indicators (0/1 floats), one random bit each."""
    packed = rng.integers(0, 256, (size, (n + 7) // 8), dtype=np.uint8)
    return np.unpackbits(packed, axis=1, count=n).astype(float)


def permutation_pvalues(
    scores, pairs, resamples: int = 10_000, seed: int = 0
) -> tuple[np.ndarray, bool]:
    """Two-sided paired approximate-randomisation p-value of each pair's mean difference.

    Returns (p per pair, exact): exact when all 2^items swap patterns were enumerated."""
    matrix = _matrix(scores)
    n = matrix.shape[1]
    missing = np.isnan(matrix)
    values = np.where(missing, 0.0, matrix).T
    scored = (~missing).T.astype(float)
    total, count = values.sum(axis=0), scored.sum(axis=0)
    a, b = _pair_arrays(pairs)
    observed = np.abs(total[a] / count[a] - total[b] / count[b])
    tolerance = 1e-9 * max(1.0, float(np.abs(values).max()))  # sums in another order
    exact = n < 63 and 2**n <= resamples
    draws = 2**n if exact else resamples
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1,)))
    with _one_blas_thread():
        extreme = _count_extreme(values, scored, a, b, observed - tolerance, n, draws, exact, rng)
    if exact:
        return extreme / draws, True
    return (extreme + 1) / (draws + 1), False


def _count_extreme(values, scored, a, b, bound, n, draws, exact, rng) -> np.ndarray:
    """Per pair: how many swap patterns give |mean a − mean b| >= bound."""
    total, count = values.sum(axis=0), scored.sum(axis=0)
    # every item scored: each system keeps its count whatever is swapped (count − s + s is
    # count exactly, integers in floats), so the counts' arithmetic is left out
    all_scored = bool(scored.all())
    extreme = np.zeros(len(a))
    # per shuffle and pair below: about ten arrays of BATCH × pairs floats at once
    blocks = list(_blocks(len(a), 10 * 8 * BATCH))
    for start in range(0, draws, BATCH):
        size = min(BATCH, draws - start)
        if exact:
            patterns = np.arange(start, start + size, dtype=np.uint64)[:, None]
            swaps = ((patterns >> np.arange(n, dtype=np.uint64)) & np.uint64(1)).astype(float)
        else:
            swaps = _swaps(rng, size, n)
        moved, moved_count = swaps @ values, swaps @ scored  # what the swaps take from each
        for block in blocks:
            x, y = a[block], b[block]
            from_x, from_y = moved[:, x], moved[:, y]
            if all_scored:
                count_a, count_b = count[x], count[y]
            else:
                taken_x, taken_y = moved_count[:, x], moved_count[:, y]
                count_a, count_b = count[x] - taken_x + taken_y, count[y] - taken_y + taken_x
            with np.errstate(invalid="ignore", divide="ignore"):
                mean_a = (total[x] - from_x + from_y) / count_a
                mean_b = (total[y] - from_y + from_x) / count_b
            extreme[block] += (np.abs(mean_a - mean_b) >= bound[block]).sum(axis=0)
    return extreme


def compare_systems(
    scores, names=None, resamples: int = 10_000, seed: int = 0, confidence: float = 0.95
) -> dict:
    """Every system's score with its paired bootstrap interval and its rank interval (the
    same resamples: :class:`~argbench.scoring.statistics.RankCounter`), for each pair (a, b)
    the difference a − b with its interval and the randomisation p-value, and ``ties``: the
    groups of systems that cannot be told apart after Holm's correction over every pair
    (:func:`~argbench.scoring.statistics.tie_groups`); higher scores rank first."""
    matrix = _matrix(scores)
    k = matrix.shape[0]
    names = [f"system {i}" for i in range(k)] if names is None else list(names)
    if len(names) != k:
        raise ValueError(f"{len(names)} names for {k} systems")
    means = bootstrap_means(matrix, resamples, seed)
    point = np.nanmean(matrix, axis=1)
    low, high = percentile_interval(means, confidence)
    rank_ci = rank_intervals_of(means, confidence)
    pairs = list(combinations(range(k), 2))
    result = {
        "n_items": int(matrix.shape[1]),
        "resamples": resamples,
        "seed": seed,
        "confidence": confidence,
        "systems": [
            {
                "name": names[i],
                "score": float(point[i]),
                "low": float(low[i]),
                "high": float(high[i]),
                "rank_low": rank_ci[i][0],
                "rank_high": rank_ci[i][1],
            }
            for i in range(k)
        ],
        "pairs": [],
    }
    p_of = np.ones((k, k))
    if pairs:
        d_low, d_high = difference_intervals(means, pairs, confidence)
        p_values, exact = permutation_pvalues(matrix, pairs, resamples, seed)
        a, b = _pair_arrays(pairs)
        p_of[a, b] = p_of[b, a] = p_values
        for j, (i, m) in enumerate(pairs):
            result["pairs"].append(
                {
                    "a": names[i],
                    "b": names[m],
                    "difference": float(point[i] - point[m]),
                    "low": float(d_low[j]),
                    "high": float(d_high[j]),
                    "p_value": float(p_values[j]),
                }
            )
        result["p_exact"] = exact
    ties = tie_groups(point, p_of, alpha=TIE_ALPHA)
    for i, letters in enumerate(ties["letters"]):
        result["systems"][i]["group"] = letters
    result["ties"] = {
        "method": ties["method"],
        "alpha": ties["alpha"],
        "groups": [[names[i] for i in group] for group in ties["groups"]],
    }
    return result


def rank_intervals_of(means: np.ndarray, confidence: float = 0.95) -> list[tuple[int, int]]:
    """Each system's rank interval over the resamples of ``means`` (resamples × systems), fed
    to :class:`~argbench.scoring.statistics.RankCounter` a batch of resamples at a time."""
    counter = RankCounter(means.shape[1])
    for start in range(0, len(means), BATCH):
        counter.add(means[start : start + BATCH])
    return counter.intervals(confidence)
