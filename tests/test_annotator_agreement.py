"""Agreement statistics and the annotator_agreement evaluate module."""

from __future__ import annotations

import numpy as np
import pytest

from argbench.scoring.annotator_agreement import (
    agreement,
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
    mean_pairwise_cohen_kappa,
    ratings_matrix,
)

# items (rows) × raters (columns); None = missing. Hand-computed below.
SMALL = [[0, 0, 1], [2, 2, 2], [1, None, 1], [3, 3, 2]]


def _raters_by_items(rows):
    return np.array(rows, dtype=float).T


def test_fleiss_and_cohen_by_hand():
    matrix = _raters_by_items(SMALL)
    # P_i = 1/3, 1, 1, 1/3 -> 2/3; shares 2,3,4,2 of 11 -> P_e = 33/121; κ = 13/24
    assert fleiss_kappa(matrix) == pytest.approx(13 / 24, abs=1e-12)
    # rater pairs: (1,2) identical on 3 common items -> 1; (1,3) -> 1/3; (2,3) -> 1/7
    mean, pairs, undefined = mean_pairwise_cohen_kappa(matrix)
    assert mean == pytest.approx((1 + 1 / 3 + 1 / 7) / 3, abs=1e-12)
    assert (pairs, undefined) == (3, 0)


def test_fleiss_textbook_example():
    """Fleiss (1971) as worked on Wikipedia: 10 items, 14 raters, 5 categories, κ ≈ 0.210."""
    counts = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
    items = [[c for c, k in enumerate(row) for _ in range(k)] for row in counts]
    assert fleiss_kappa(_raters_by_items(items)) == pytest.approx(0.20993, abs=1e-5)


def test_cohen_matches_sklearn():
    sklearn = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(0)
    for _ in range(5):
        x, y = rng.integers(0, 4, (2, 40)).astype(float)
        same = rng.random(40) < 0.5
        y[same] = x[same]  # some agreement beyond chance
        expected = sklearn.cohen_kappa_score(x, y)
        assert cohen_kappa(x, y) == pytest.approx(expected, abs=1e-12)
    x = np.array([0, 1, 2, np.nan, 3])
    y = np.array([0, 1, np.nan, 2, 2])
    assert cohen_kappa(x, y) == pytest.approx(sklearn.cohen_kappa_score([0, 1, 3], [0, 1, 2]))


def test_undefined_cohen_pairs_are_counted():
    matrix = np.array([[1, 1, np.nan], [1, 1, np.nan], [np.nan, np.nan, 2.0]])
    assert np.isnan(cohen_kappa(matrix[0], matrix[1]))  # both always 1
    assert np.isnan(cohen_kappa(matrix[0], matrix[2]))  # nothing in common
    mean, pairs, undefined = mean_pairwise_cohen_kappa(matrix)
    assert np.isnan(mean) and (pairs, undefined) == (0, 3)


def test_krippendorff_package_example_orientation():
    """The krippendorff package's documented example (raters × items with NaN)."""
    nan = np.nan
    data = [
        [nan, nan, nan, nan, nan, 3, 4, 1, 2, 1, 1, 3, 3, nan, 3],
        [1, nan, 2, 1, 3, 3, 4, 3, nan, nan, nan, nan, nan, nan, nan],
        [nan, nan, 2, 1, 3, 4, 4, nan, 2, 1, 1, 3, 3, nan, 4],
    ]
    assert krippendorff_alpha(data, "nominal") == pytest.approx(0.691358, abs=1e-6)
    assert krippendorff_alpha(data, "interval") == pytest.approx(0.810845, abs=1e-6)
    with pytest.raises(ValueError, match="level"):
        krippendorff_alpha(data, "ratio")


def test_agreement_counts_and_categories():
    result = agreement(_raters_by_items(SMALL))
    assert result["raters"] == 3 and result["items"] == 4 and result["ratings"] == 11
    assert result["items_with_two_or_more_ratings"] == 4
    with pytest.raises(ValueError, match="rater 0, item 1: rating 2 is not one of"):
        agreement(_raters_by_items(SMALL), categories=[0, 1, 3])
    # an unused category changes ordinal α only through the value domain
    wider = agreement(_raters_by_items(SMALL), categories=[0, 1, 2, 3, 4])
    assert wider["fleiss_kappa"] == pytest.approx(result["fleiss_kappa"])


def test_bad_matrices():
    with pytest.raises(ValueError, match="at least 2 raters"):
        agreement([[1, 2, 3]])
    with pytest.raises(ValueError, match="2-D"):
        agreement([1, 2, 3])
    with pytest.raises(ValueError, match="numbers"):
        agreement([["a", "b"], ["c", "d"]])


def test_ratings_matrix_pivot():
    matrix, raters, items = ratings_matrix([1, 1, 2, 3], ["r1", "r2", "r1", "r2"], [0, 1, 2, None])
    assert raters == ["r1", "r2"] and items == [1, 2, 3]
    np.testing.assert_array_equal(matrix, [[0, 2, np.nan], [1, np.nan, np.nan]])
    with pytest.raises(ValueError, match="row 2: rater 'r1' rated item 1 twice"):
        ratings_matrix([1, 1, 1], ["r1", "r2", "r1"], [0, 1, 2])


def test_evaluate_module():
    import argbench

    metric = argbench.load_metric("annotator_agreement")
    result = metric.compute(ratings=SMALL)
    assert result == pytest.approx(agreement(_raters_by_items(SMALL)), nan_ok=True)
    assert result["fleiss_kappa"] == pytest.approx(13 / 24)
    # ClassLabel ints straight from a dataset column, added in batches
    metric.add_batch(ratings=SMALL[:2])
    metric.add_batch(ratings=SMALL[2:])
    assert metric.compute()["cohen_kappa_mean"] == pytest.approx((1 + 1 / 3 + 1 / 7) / 3)
    with pytest.raises(ValueError, match="item 1 has 2 ratings but item 0 has 3"):
        metric.compute(ratings=[[0, 1, 1], [1, 1]])


def test_cam_expert_figure(real_mirror, real_corpora, tmp_path):
    """The release's stored α and κ, reproduced to every digit, with no annotator's name."""
    from openpyxl import load_workbook

    from argbench.loaders.registry import path_of
    from argbench.reproduce import reproduce
    from argbench.reproduce.report import published_value

    (section,) = reproduce(
        tmp_path,
        only=["cam_expert_agreement"],
        sources=str(real_mirror),
        cache_dir=real_corpora.cache,
        log=lambda m: None,
    )
    rows = {r.item: r for r in section.rows}
    alpha = rows["krippendorff_alpha (ordinal) (without 'Cats vs Dogs', 29 items x 4 raters)"]
    kappa = rows["fleiss_kappa (without 'Cats vs Dogs', 29 items x 4 raters)"]
    sheet = published_value("cam/expert_sheet/krippendorff_alpha")
    assert alpha.argbench == pytest.approx(sheet, abs=1e-12)
    assert kappa.argbench == pytest.approx(
        published_value("cam/expert_sheet/fleiss_kappa"), abs=1e-12
    )
    assert round(alpha.argbench, 2) == alpha.published == 0.89
    sheets = load_workbook(
        path_of("cam_relevance", "expert", real_mirror), read_only=True
    ).sheetnames
    report = (tmp_path / "report.json").read_text() + (tmp_path / "report.md").read_text()
    assert sheets and not any(name in report for name in sheets)
