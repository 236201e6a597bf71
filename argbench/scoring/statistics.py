"""Statistics over systems and over a judge's agreement with people, shared by the judge cards,
the reproduction report and the leaderboard.

- :func:`ranks`, :func:`ranking_correlation`: two scorings of the same systems compared
  (Pearson on the scores, Spearman = Pearson on the ranks with ties averaged, Kendall's τ-b);
  :func:`correlations_rows` is the same three figures for many bootstrap rows at once, so an
  interval and its point estimate are one formula.
- :func:`resample_counts`: how often each of ``n`` groups is drawn in each bootstrap resample,
  batch after batch of ``default_rng(seed).integers(0, n, (size, n))`` (the draws of
  :func:`argbench.scoring.significance.bootstrap_means`: the same seed gives the same
  resamples there and here).
- :func:`kappa_rows`: Cohen's κ of each row of a stack of confusion matrices (the bootstrap of
  a κ over groups of items: the resample's matrix is the count-weighted sum of the groups').
- :func:`rank_intervals` and :func:`tie_groups`: a system's 95 % interval on its rank, from
  the per-system bootstrap score arrays (any bootstrap: a chunked one feeds it batch by
  batch through :class:`RankCounter`), and the groups of systems that cannot be told apart,
  from paired p-values with Holm's step-down correction over all pairs (family-wise error
  ≤ alpha).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations

import numpy as np

__all__ = [
    "RankCounter",
    "correlations_rows",
    "group_letter",
    "holm",
    "kappa_rows",
    "rank_intervals",
    "ranking_correlation",
    "ranks",
    "resample_counts",
    "tie_groups",
]

DECIMALS = 12  # values equal to 12 decimals are ties (see ranks)


def ranks(values: Sequence[float]) -> np.ndarray:
    """Ranks 1..n, highest value first, ties sharing their mean rank. Values equal to 12
    decimals are ties: a mean of the same fractions summed in another order differs in the
    last bit (20/34 of a third is not always the same float)."""
    return _rank_rows(np.asarray(values, dtype=float)[None, :])[0]


def _rank_rows(values: np.ndarray) -> np.ndarray:
    """:func:`ranks` of each row (rows × systems), vectorised: a system's rank is 1 + the
    systems above it + half of the others tied with it."""
    values = np.round(values, DECIMALS)
    above = (values[:, None, :] > values[:, :, None]).sum(axis=2)
    tied = (values[:, None, :] == values[:, :, None]).sum(axis=2) - 1
    return 1 + above + tied / 2


def _pearson_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = a - a.mean(axis=1, keepdims=True)
    b = b - b.mean(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (a * b).sum(axis=1) / np.sqrt((a * a).sum(axis=1) * (b * b).sum(axis=1))


def _kendall_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Kendall's τ-b (ties in either ranking corrected for, as scipy's default)."""
    i, j = np.triu_indices(a.shape[1], 1)
    sa = np.sign(np.round(a[:, i] - a[:, j], DECIMALS))
    sb = np.sign(np.round(b[:, i] - b[:, j], DECIMALS))
    with np.errstate(invalid="ignore", divide="ignore"):
        return (sa * sb).sum(axis=1) / np.sqrt((sa * sa).sum(axis=1) * (sb * sb).sum(axis=1))


def correlations_rows(automatic: np.ndarray, human: np.ndarray) -> dict[str, np.ndarray]:
    """Pearson on the scores, Spearman (Pearson on the ranks, ties averaged) and Kendall's
    τ-b of each row pair (rows × systems); NaN for a row where one side is constant."""
    a, h = np.atleast_2d(np.asarray(automatic, float)), np.atleast_2d(np.asarray(human, float))
    return {
        "pearson_scores": _pearson_rows(a, h),
        "spearman_ranks": _pearson_rows(_rank_rows(a), _rank_rows(h)),
        "kendall_tau": _kendall_rows(a, h),
    }


def ranking_correlation(automatic: Sequence[float], human: Sequence[float]) -> dict:
    """Pearson's r on the scores, Spearman's rho (Pearson on the ranks, ties averaged) and
    Kendall's τ-b between the automatic and the human scores of the same systems. The
    CQs-Gen paper (§6.1) reports "Pearson's coefficient" between the two rankings without
    saying which; each is given."""
    if len(automatic) != len(human) or len(automatic) < 3:
        raise ValueError(
            f"need the same 3 or more systems on both sides, got {len(automatic)} and {len(human)}"
        )
    rows = correlations_rows(np.asarray(automatic, float)[None], np.asarray(human, float)[None])
    return {**{k: float(v[0]) for k, v in rows.items()}, "n": len(automatic)}


def resample_counts(n: int, resamples: int, seed: int, batch: int = 64) -> Iterator[np.ndarray]:
    """Batches (size × n) of how many times each of ``n`` groups is drawn in each resample."""
    if n < 1 or resamples < 1:
        raise ValueError(f"need n >= 1 groups and resamples >= 1, got {n} and {resamples}")
    rng = np.random.default_rng(seed)
    for start in range(0, resamples, batch):
        size = min(batch, resamples - start)
        index = rng.integers(0, n, (size, n))
        offsets = (np.arange(size, dtype=np.int64) * n)[:, None]
        yield np.bincount((index + offsets).ravel(), minlength=size * n).reshape(size, n)


def kappa_rows(matrices: np.ndarray) -> np.ndarray:
    """Cohen's κ of each confusion matrix of a stack (rows × k × k; rows: one rater, columns:
    the other); NaN where chance agreement is 1 or the matrix is empty."""
    m = np.asarray(matrices, dtype=float)
    total = m.sum(axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = np.trace(m, axis1=1, axis2=2) / total
        expected = (m.sum(axis=2) * m.sum(axis=1)).sum(axis=1) / total**2
        kappa = (observed - expected) / (1 - expected)
    kappa[np.isclose(expected, 1) | (total == 0)] = np.nan
    return kappa


class RankCounter:
    """How often each system takes each rank over bootstrap resamples, fed batch by batch
    (resamples × systems score arrays): a chunked bootstrap never holds all resamples.

    A resample's rank of a system is 1 + the systems scoring higher in it (ties share the
    best place, as competition ranking: a tie never pushes a system down), NaN scores last."""

    def __init__(self, n_systems: int, higher_is_better: bool = True):
        self.counts = np.zeros((n_systems, n_systems), dtype=np.int64)  # system × rank-1
        self.sign = 1.0 if higher_is_better else -1.0

    def add(self, scores: np.ndarray) -> None:
        scores = np.round(self.sign * np.atleast_2d(np.asarray(scores, float)), DECIMALS)
        scores = np.where(np.isnan(scores), -np.inf, scores)
        k = self.counts.shape[0]
        ascending = np.sort(scores, axis=1)
        # systems scoring strictly higher, per resample: k − those at or below (a sort, not
        # a systems × systems comparison: memory stays resamples × systems)
        place = np.stack(
            [
                k - np.searchsorted(row, value, side="right")
                for row, value in zip(ascending, scores, strict=True)
            ]
        )
        flat = (np.arange(k)[None, :] * k + place).ravel()
        self.counts += np.bincount(flat, minlength=k * k).reshape(k, k)

    def intervals(self, confidence: float = 0.95) -> list[tuple[int, int]]:
        """(best, worst) rank per system: the equal-tailed ``confidence`` interval of its
        bootstrap rank distribution (its (1 − c)/2 and (1 + c)/2 quantiles, lower ones)."""
        if not 0 < confidence < 1:
            raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
        total = self.counts.sum(axis=1, keepdims=True)
        if not total.all():
            raise ValueError("no resample added: nothing to take a rank interval from")
        cumulative = np.cumsum(self.counts, axis=1) / total
        alpha = (1 - confidence) / 2
        low = (cumulative >= alpha - 1e-12).argmax(axis=1) + 1
        high = (cumulative >= 1 - alpha - 1e-12).argmax(axis=1) + 1
        return [(int(a), int(b)) for a, b in zip(low, high, strict=True)]


def rank_intervals(
    bootstrap_scores, confidence: float = 0.95, higher_is_better: bool = True
) -> list[tuple[int, int]]:
    """95 % rank interval per system from its bootstrap score array (resamples × systems, the
    same resamples for every system, e.g. ``significance.bootstrap_means``)."""
    scores = np.atleast_2d(np.asarray(bootstrap_scores, float))
    counter = RankCounter(scores.shape[1], higher_is_better)
    counter.add(scores)
    return counter.intervals(confidence)


def holm(p_values: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error over all the tests)."""
    p = np.asarray(p_values, dtype=float)
    order = np.argsort(p, kind="stable")
    m = len(p)
    steps = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(steps) if m else steps
    return adjusted


def tie_groups(
    scores: Sequence[float], p_values, alpha: float = 0.05, higher_is_better: bool = True
) -> dict:
    """Groups of systems that cannot be told apart, after Holm's correction over every pair.

    ``p_values``: the paired test's p-value of systems i and j, as a systems × systems array
    or as a dict ``{(i, j): p}`` (one of the two orders per pair). Systems are ordered best
    first; a group is a maximal run of adjacent systems in which no pair differs
    significantly (Holm-adjusted p < alpha), the compact letter display of a sorted list: a
    system can sit in two overlapping groups. Returns ``{"order", "groups" (lists of indices,
    best group first), "adjusted" (systems × systems), "letters" (per system, "a", "ab",
    ...), "method", "alpha"}``."""
    k = len(scores)
    matrix = _p_matrix(p_values, k)
    sign = 1.0 if higher_is_better else -1.0
    order = sorted(range(k), key=lambda i: -sign * np.nan_to_num(scores[i], nan=-np.inf))
    a, b = np.triu_indices(k, 1)
    adjusted = np.ones((k, k))
    adjusted[a, b] = adjusted[b, a] = holm(matrix[a, b])
    apart = adjusted[np.ix_(order, order)] < alpha  # in rank order
    # for each place j, the last place above it that differs from it (-1: none)
    upper = np.triu(apart, 1)
    last = np.where(upper.any(axis=0), k - 1 - np.argmax(upper[::-1], axis=0), -1)
    groups: list[list[int]] = []
    for start in range(k):
        breaks = np.flatnonzero(last[start + 1 :] >= start)
        end = start + int(breaks[0]) if len(breaks) else k - 1
        group = order[start : end + 1]
        if not groups or not set(group) <= set(groups[-1]):
            groups.append(group)
    letters = {i: "" for i in range(k)}
    for n, group in enumerate(groups):
        for i in group:
            letters[i] += group_letter(n)
    pairs = len(a)
    return {
        "order": order,
        "groups": groups,
        "adjusted": adjusted,
        "letters": [letters[i] for i in range(k)],
        "method": f"Holm over {pairs} pair{'' if pairs == 1 else 's'}, alpha {alpha:g}",
        "alpha": alpha,
    }


def _p_matrix(p_values, k: int) -> np.ndarray:
    """systems × systems p-values from an array or a dict of pairs (each pair needs one)."""
    if not isinstance(p_values, dict):
        matrix = np.asarray(p_values, dtype=float)
        if matrix.shape != (k, k):
            raise ValueError(f"p-values for {k} systems must be {k} × {k}, got {matrix.shape}")
        return matrix
    matrix = np.ones((k, k))
    for i, j in combinations(range(k), 2):
        p = p_values.get((i, j), p_values.get((j, i)))
        if p is None:
            raise ValueError(f"no p-value for systems {i} and {j}: every pair needs one")
        matrix[i, j] = matrix[j, i] = p
    return matrix


def group_letter(n: int) -> str:
    """The letter of the n-th tie group (0: ``a``, 25: ``z``, 26: ``aa``)."""
    text = ""
    n += 1
    while n:
        n, rest = divmod(n - 1, 26)
        text = chr(ord("a") + rest) + text
    return text
