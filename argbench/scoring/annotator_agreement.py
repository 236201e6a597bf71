"""Inter-annotator agreement over a raters × items matrix with missing values (NaN).

Krippendorff's α comes from the ``krippendorff`` package; Fleiss' κ and Cohen's κ are the
textbook formulas, vectorised over a one-hot count tensor.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import numpy as np

from argbench.scoring.declaration import Metric
from argbench.signature import Signature

# the metric's features (see argbench.scoring): one example = one value of each
INPUTS = {"ratings": ["float64"]}

METRIC = Metric(inputs=INPUTS, columns={"ratings": "ratings"}, measurement=True)

__all__ = [
    "agreement",
    "cohen_kappa",
    "fleiss_kappa",
    "krippendorff_alpha",
    "majority",
    "mean_pairwise_cohen_kappa",
    "ratings_matrix",
]

LEVELS = ("nominal", "ordinal", "interval")


def majority(labels) -> int:
    """The most frequent label, the higher one on a tie (the CAM paper's rule for the crowd;
    the reproduction and the relevance judge card both take the people's label this way)."""
    counts = Counter(labels)
    top = max(counts.values())
    return max(label for label, n in counts.items() if n == top)


def _matrix(ratings) -> np.ndarray:
    """Raters × items float matrix; None becomes NaN (missing)."""
    try:
        matrix = np.array(ratings, dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError(
            f"ratings must be a raters × items matrix of numbers (NaN or None for missing): {error}"
        ) from None
    if matrix.ndim != 2:
        raise ValueError(f"ratings must be 2-D (raters × items), got shape {matrix.shape}")
    if matrix.shape[0] < 2:
        raise ValueError(f"agreement needs at least 2 raters, got {matrix.shape[0]}")
    if matrix.shape[1] == 0:
        raise ValueError("ratings hold no items: nothing to score")
    bad = np.isinf(matrix)
    if bad.any():
        rater, item = np.argwhere(bad)[0]
        raise ValueError(
            f"rater {rater}, item {item}: rating {matrix[rater, item]:g} is not a finite "
            "number (NaN or None: missing)"
        )
    return matrix


def _check_variation(matrix) -> None:
    """α and κ compare observed with expected disagreement; without two ratings of one item,
    or when those ratings all share one value, both are 0 and every statistic is 0/0."""
    rated = (~np.isnan(matrix)).sum(axis=0)
    paired = matrix[:, rated >= 2]
    values = np.unique(paired[~np.isnan(paired)])
    if len(values) == 0:
        raise ValueError(
            "no item is rated by two or more raters, so agreement is undefined; give each "
            "item one position per rater (None if missing) and check raters are not all missing"
        )
    if len(values) == 1:
        raise ValueError(
            f"all {int(rated[rated >= 2].sum())} ratings of the items rated twice or more are "
            f"{values[0]:g}: with no variation α and κ are 0/0, undefined (not 1). Check the "
            "ratings were read right; if they are, report the raw agreement instead"
        )


def _categories(matrix, categories):
    observed = np.unique(matrix[~np.isnan(matrix)])
    if categories is None:
        return observed
    categories = np.asarray(categories, dtype=float)
    unknown = np.setdiff1d(observed, categories)
    if len(unknown):
        rater, item = np.argwhere(np.isin(matrix, unknown))[0]
        raise ValueError(
            f"rater {rater}, item {item}: rating {matrix[rater, item]:g} is not one of the "
            f"categories {categories.tolist()}"
        )
    return categories


def _counts(matrix, categories) -> np.ndarray:
    """items × categories: how many raters gave each category to each item."""
    onehot = matrix[:, :, None] == categories[None, None, :]  # NaN matches nothing
    return onehot.sum(axis=0)


def ratings_matrix(items, raters, values):
    """Pivot long-format annotations (one row per (item, rater)) to the raters × items matrix.

    Returns ``(matrix, rater_ids, item_ids)``; absent pairs are NaN. A repeated (item, rater)
    pair is an error (naming the row), not silently overwritten.
    """
    if not len(items) == len(raters) == len(values):
        raise ValueError(
            f"items, raters and values must have the same length, not "
            f"{len(items)}, {len(raters)}, {len(values)}"
        )
    item_ids = sorted(set(items), key=lambda x: (str(type(x)), x))
    rater_ids = sorted(set(raters), key=lambda x: (str(type(x)), x))
    item_pos = {item: i for i, item in enumerate(item_ids)}
    rater_pos = {rater: r for r, rater in enumerate(rater_ids)}
    matrix = np.full((len(rater_ids), len(item_ids)), np.nan)
    seen = np.zeros(matrix.shape, dtype=bool)
    for row, (item, rater, value) in enumerate(zip(items, raters, values, strict=True)):
        r, i = rater_pos[rater], item_pos[item]
        if seen[r, i]:
            raise ValueError(f"row {row}: rater {rater!r} rated item {item!r} twice")
        seen[r, i] = True
        matrix[r, i] = np.nan if value is None else float(value)
    return matrix, rater_ids, item_ids


def krippendorff_alpha(ratings, level: str = "nominal", value_domain=None) -> float:
    """Krippendorff's α (``krippendorff.alpha``) at level nominal, ordinal or interval.

    For the ordinal level the distances depend on which values exist; ``value_domain``
    (default: the values observed) fixes the ordered list of possible values."""
    import krippendorff

    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, not {level!r}")
    matrix = _matrix(ratings)
    _check_variation(matrix)
    return float(
        krippendorff.alpha(
            reliability_data=matrix, level_of_measurement=level, value_domain=value_domain
        )
    )


def fleiss_kappa(ratings, categories=None) -> float:
    """Fleiss' κ. Items with fewer than two ratings carry no agreement and are left out;
    items with different numbers of raters use the usual generalisation (per-item agreement
    over its own n_i raters, category shares over all ratings)."""
    matrix = _matrix(ratings)
    _check_variation(matrix)
    counts = _counts(matrix, _categories(matrix, categories))
    n = counts.sum(axis=1)
    counts, n = counts[n >= 2], n[n >= 2]
    if len(n) == 0:
        raise ValueError("Fleiss' κ needs at least one item rated by two or more raters")
    per_item = ((counts**2).sum(axis=1) - n) / (n * (n - 1))
    shares = counts.sum(axis=0) / n.sum()
    expected = float((shares**2).sum())  # < 1: _check_variation saw two values
    return float((per_item.mean() - expected) / (1 - expected))


def cohen_kappa(x, y, categories=None) -> float:
    """Cohen's κ of two raters over the items both rated (NaN elsewhere); NaN when it is
    undefined (no common item, or chance agreement 1: both used one and the same category)."""
    matrix = _matrix([x, y])
    both = ~np.isnan(matrix).any(axis=0)
    if not both.any():
        return float("nan")
    matrix = matrix[:, both]
    cats = _categories(matrix, categories)
    a = matrix[0][:, None] == cats
    b = matrix[1][:, None] == cats
    observed = float((matrix[0] == matrix[1]).mean())
    expected = float((a.mean(axis=0) * b.mean(axis=0)).sum())
    if expected == 1:
        return float("nan")
    return (observed - expected) / (1 - expected)


def mean_pairwise_cohen_kappa(ratings, categories=None) -> tuple[float, int, int]:
    """Mean Cohen's κ over rater pairs; returns ``(mean, pairs used, pairs undefined)`` —
    pairs without a common item or with chance agreement 1 have no κ and are counted."""
    matrix = _matrix(ratings)
    cats = _categories(matrix, categories)
    kappas = [
        cohen_kappa(matrix[i], matrix[j], cats) for i, j in combinations(range(len(matrix)), 2)
    ]
    defined = [k for k in kappas if not np.isnan(k)]
    mean = float(np.mean(defined)) if defined else float("nan")
    return mean, len(defined), len(kappas) - len(defined)


def agreement(ratings, categories=None) -> dict:
    """All statistics at once for a raters × items matrix (NaN = missing)."""
    matrix = _matrix(ratings)
    _check_variation(matrix)
    cats = _categories(matrix, categories)
    rated = (~np.isnan(matrix)).sum(axis=0)
    cohen, pairs, undefined = mean_pairwise_cohen_kappa(matrix, cats)
    result = {
        f"krippendorff_alpha_{level}": krippendorff_alpha(matrix, level, cats) for level in LEVELS
    }
    result.update(
        fleiss_kappa=fleiss_kappa(matrix, cats),
        cohen_kappa_mean=cohen,
        raters=int(matrix.shape[0]),
        items=int(matrix.shape[1]),
        items_with_two_or_more_ratings=int((rated >= 2).sum()),
        ratings=int(rated.sum()),
        rater_pairs=pairs,
        rater_pairs_undefined=undefined,
    )
    listed = "observed" if categories is None else [f"{c:g}" for c in np.asarray(categories, float)]
    result["signature"] = Signature("annotator_agreement", [("categories", listed)]).render()
    return result


def annotator_agreement(ratings, categories=None) -> dict:
    """The metric: ``ratings`` one row per item, one position per rater (None if missing)."""
    if not len(ratings):
        raise ValueError("ratings is empty: nothing to score")
    widths = {len(row) for row in ratings}
    if len(widths) > 1:
        first = next(i for i, row in enumerate(ratings) if len(row) != len(ratings[0]))
        raise ValueError(
            f"item {first} has {len(ratings[first])} ratings but item 0 has "
            f"{len(ratings[0])}: give every item one position per rater (None if missing)"
        )
    return agreement(np.array(ratings, dtype=float).T, categories)  # raters × items
