"""The sampling design of Webis-ArgQuality-20 (Gienapp et al., 2020): which pairs of a topic's
arguments are judged. Shuffle the items, cut them into k groups, and compare every pair within
a group and between neighbouring groups on a cycle (:func:`cyclic_group_design`), about
3n²/(2k) − n/2 pairs instead of n(n − 1)/2 (:func:`paper_pair_count`, and the exact
:func:`cyclic_group_pair_count`). The sparsification study draws its designs here."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["cyclic_group_design", "cyclic_group_pair_count", "paper_pair_count"]


def _group_sizes(n: int, k: int) -> list[int]:
    return [len(g) for g in np.array_split(np.arange(n), k)]


def cyclic_group_pair_count(n: int, k: int) -> int:
    """Exact number of pairs ``cyclic_group_design`` makes for n items in k groups."""
    sizes = _group_sizes(n, k)
    within = sum(s * (s - 1) // 2 for s in sizes)
    if k == 1:
        return within
    if k == 2:  # the two groups are each other's only neighbour: one set of between-pairs
        return within + sizes[0] * sizes[1]
    return within + sum(sizes[i] * sizes[(i + 1) % k] for i in range(k))


def paper_pair_count(n: int, k: int) -> float:
    """The paper's count c = 3n²/(2k) − n/2; exact only when k ≥ 3 and k divides n."""
    return 3 * n * n / (2 * k) - n / 2


def cyclic_group_design(items: Sequence, k: int, seed=None) -> list[tuple]:
    """The paper's sampling design: shuffle ``items``, cut them into ``k`` groups (sizes differ
    by at most one), and compare all pairs within a group and all pairs between neighbouring
    groups on a cycle (group i with i+1, the last with the first).

    Returns the pairs ``(a, b)`` with ``a`` before ``b`` in the shuffled order; each unordered
    pair at most once. The count is c = 3n²/(2k) − n/2 when k ≥ 3 and k divides n. It
    differs when k does not divide n (group sizes vary, ``cyclic_group_pair_count`` gives
    the exact number), for k = 2 (the two groups neighbour each other only once, so it is
    all n(n−1)/2 pairs, not 3n²/4 − n/2), and for k = 1 (all pairs).
    """
    items = list(items)
    n = len(items)
    if len(set(items)) != n:
        raise ValueError("items must be distinct")
    if not isinstance(k, (int, np.integer)) or not 1 <= k <= n:
        raise ValueError(f"k must be an integer between 1 and the number of items ({n}), not {k!r}")
    order = np.random.default_rng(seed).permutation(n)
    groups = [[items[i] for i in g] for g in np.array_split(order, k)]
    pairs = []
    for g, group in enumerate(groups):
        pairs.extend(
            (group[i], group[j]) for i in range(len(group)) for j in range(i + 1, len(group))
        )
        if k >= 2 and (g + 1 < k or k >= 3):
            following = groups[(g + 1) % k]
            pairs.extend((a, b) for a in group for b in following)
    return pairs
