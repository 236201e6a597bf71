"""Bradley–Terry with Rao–Kupper ties and the dummy regulariser; the cyclic-group design."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from argbench.cli import main
from argbench.scoring.bradley_terry import (
    NotIdentifiableError,
    _encode,
    combined_quality,
    fit_bradley_terry,
)
from argbench.scoring.bt_newton import DENSE_MAX_ITEMS, Objective
from argbench.scoring.pair_design import (
    cyclic_group_design,
    cyclic_group_pair_count,
    paper_pair_count,
)


def _random_judgments(seed, n_items=8, n=60):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n_items, n)
    b = (a + rng.integers(1, n_items, n)) % n_items
    outcome = rng.choice(["a", "b", "tie"], n, p=[0.4, 0.35, 0.25])
    return a.tolist(), b.tolist(), outcome.tolist()


def _objective(a, b, outcome, lam, tau, dummy=1.0):
    items, ai, bi, code = _encode(a, b, outcome, ("a", "b", "tie"))
    tie = code == 2
    winner = np.where(code != 1, ai, bi)
    loser = np.where(code != 1, bi, ai)
    return Objective(lam, tau, dummy, winner, loser, tie, len(items)), len(items)


def _direct_log_likelihood(a, b, outcome, merits, lam, tau, dummy=1.0):
    """The issue's formulas, one judgment at a time (p = e^merit)."""
    theta = math.exp(tau)
    p = {item: math.exp(m) for item, m in merits.items()}
    total = 0.0
    for x, y, o in zip(a, b, outcome, strict=True):
        if o == "tie":
            total += math.log(
                p[x] * p[y] * (theta**2 - 1) / ((p[x] + theta * p[y]) * (theta * p[x] + p[y]))
            )
        else:
            w, lo = (x, y) if o == "a" else (y, x)
            total += math.log(p[w] / (p[w] + theta * p[lo]))
    d = math.exp(dummy)
    for value in p.values():
        total += lam * (math.log(value / (value + d)) + math.log(d / (d + value)))
    return total


@pytest.mark.parametrize("lam, tau", [(0.3, 0.01), (0.1, 0.05), (0.0, 0.2), (1.0, 0.5)])
def test_gradient_and_hessian_match_numeric_differences(lam, tau):
    a, b, outcome = _random_judgments(1)
    objective, n = _objective(a, b, outcome, lam, tau)
    rng = np.random.default_rng(2)
    for _ in range(3):
        m = rng.normal(1, 1, n)
        _, grad = objective(m)
        eps = 1e-6
        numeric = np.array(
            [(objective(m + eps * e)[0] - objective(m - eps * e)[0]) / (2 * eps) for e in np.eye(n)]
        )
        np.testing.assert_allclose(grad, numeric, atol=1e-6)
        numeric_hessian = np.array(
            [(objective(m + eps * e)[1] - objective(m - eps * e)[1]) / (2 * eps) for e in np.eye(n)]
        )
        np.testing.assert_allclose(objective.hessian(m), numeric_hessian, atol=1e-5)
        weight, item_weight, diagonal = objective.curvature(m)
        np.testing.assert_allclose(diagonal, np.diag(objective.hessian(m)), rtol=1e-12)
        v = rng.normal(size=n)  # the matrix-free product is the dense Hessian's
        apply = objective.hessp(weight, item_weight)
        np.testing.assert_allclose(apply(v), objective.hessian(m) @ v, rtol=1e-10, atol=1e-12)


def test_log_likelihood_is_the_issue_formula():
    a, b, outcome = _random_judgments(3)
    fit = fit_bradley_terry(a, b, outcome, regularization=0.3, threshold=0.1)
    direct = _direct_log_likelihood(a, b, outcome, fit.scores(), 0.3, 0.1)
    assert fit.log_likelihood == pytest.approx(direct, rel=1e-12)
    assert fit.converged and fit.gradient_norm < 1e-9 and fit.iterations < 20


def test_release_example_merits():
    """Webis-ArgQuality-20-Model/example.py documents these merits for λ=0.3, τ=0.01."""
    pairs = [("A", "B"), ("A", "C"), ("A", "D"), ("B", "C"), ("B", "D"), ("C", "B")]
    pairs += [("C", "D"), ("D", "A")]
    outcome = ["a", "a", "a", "tie", "a", "a", "a", "a"]
    fit = fit_bradley_terry(*zip(*pairs, strict=True), outcome)
    expected = {"D": 0.32692689118596696, "B": 0.7570454645168428, "C": 1.2429546060392827}
    expected["A"] = 1.673073287350478
    for item, merit in expected.items():
        assert fit.scores()[item] == pytest.approx(merit, abs=1e-5)  # their BFGS tolerance
    minmax = fit.scores("minmax")
    assert minmax["D"] == 0 and minmax["A"] == 1
    assert minmax["B"] == pytest.approx(0.3195185203522548, abs=1e-5)


@pytest.mark.parametrize("wins, losses", [(3, 1), (1, 4), (7, 2)])
def test_two_items_closed_form(wins, losses):
    """No ties, τ = 0, λ = 0: σ(m_A − m_B) = wins / (wins + losses)."""
    outcome = ["a"] * wins + ["b"] * losses
    fit = fit_bradley_terry(
        ["A"] * len(outcome), ["B"] * len(outcome), outcome, regularization=0, threshold=0
    )
    scores = fit.scores()
    assert scores["A"] - scores["B"] == pytest.approx(math.log(wins / losses), abs=1e-8)
    assert scores["A"] + scores["B"] == pytest.approx(0, abs=1e-12)  # λ = 0: centred


def test_ties_two_items():
    """A balanced record with ties gives equal merits; a win plus ties a closed-form gap."""
    outcome = ["a", "b", "tie", "tie", "tie"]
    fit = fit_bradley_terry(["A"] * 5, ["B"] * 5, outcome, regularization=0, threshold=0.3)
    assert fit.scores()["A"] == pytest.approx(fit.scores()["B"], abs=1e-10)
    # one win of A and one tie: the direct formula's derivative vanishes at the fitted gap
    a, b, o = ["A", "A"], ["B", "B"], ["a", "tie"]
    gap = fit_bradley_terry(a, b, o, regularization=0, threshold=0.3).scores()
    gap = gap["A"] - gap["B"]
    h = 1e-5
    slope = (
        _direct_log_likelihood(a, b, o, {"A": gap + h, "B": 0.0}, 0, 0.3)
        - _direct_log_likelihood(a, b, o, {"A": gap - h, "B": 0.0}, 0, 0.3)
    ) / (2 * h)
    assert abs(slope) < 1e-8 and gap > 0


def test_regulariser_pulls_towards_the_dummy():
    a, b, outcome = ["A"], ["B"], ["a"]
    fits = [
        fit_bradley_terry(a, b, outcome, regularization=lam, threshold=0) for lam in (0.1, 1, 10)
    ]
    for fit in fits:
        s = fit.scores()
        assert s["A"] - 1 == pytest.approx(1 - s["B"], abs=1e-10)  # symmetric about the dummy
    gaps = [f.scores()["A"] - f.scores()["B"] for f in fits]
    assert gaps[0] > gaps[1] > gaps[2] > 0
    shifted = fit_bradley_terry(a, b, outcome, regularization=1, threshold=0, dummy_merit=0.0)
    assert shifted.scores()["A"] == pytest.approx(fits[1].scores()["A"] - 1, abs=1e-10)


def test_ids_of_any_hashable_type_give_the_same_fit():
    a, b, outcome = _random_judgments(4)
    plain = fit_bradley_terry(a, b, outcome)
    tuples = fit_bradley_terry([(x, 0) for x in a], [(x, 0) for x in b], outcome)
    strings = fit_bradley_terry([f"i{x}" for x in a], [f"i{x}" for x in b], outcome)
    ints = fit_bradley_terry(a, b, [("a", "b", "tie").index(o) for o in outcome])
    assert [t[0] for t in tuples.items] == plain.items
    np.testing.assert_allclose(tuples.merits, plain.merits)
    np.testing.assert_allclose(ints.merits, plain.merits)
    assert sorted(strings.scores().values()) == pytest.approx(sorted(plain.scores().values()))


def test_normalisation():
    a, b, outcome = _random_judgments(5)
    fit = fit_bradley_terry(a, b, outcome)
    z = fit.normalized("zscore")
    assert z.mean() == pytest.approx(0, abs=1e-12) and z.std() == pytest.approx(1)
    np.testing.assert_allclose(fit.normalized(None), fit.merits)
    with pytest.raises(ValueError, match="normalize"):
        fit.normalized("rank")


def test_only_winning_item_is_named():
    a, b, outcome = ["A", "B", "C", "A"], ["B", "C", "A", "C"], ["a", "a", "a", "a"]
    fit_bradley_terry(a[:3], b[:3], outcome[:3], regularization=0)  # a cycle: fine
    a, b, outcome = a + ["D", "D"], b + ["A", "B"], outcome + ["a", "a"]
    with pytest.raises(NotIdentifiableError, match=r"only win.*'D'"):
        fit_bradley_terry(a, b, outcome, regularization=0)
    with pytest.raises(NotIdentifiableError, match=r"only lose.*'E'"):
        fit_bradley_terry(
            ["A", "B", "C", "E"], ["B", "C", "A", "A"], ["a", "a", "a", "b"], regularization=0
        )
    # with the regulariser the same judgments have a finite maximum
    assert fit_bradley_terry(a, b, outcome, regularization=0.1).converged


def test_disconnected_groups_are_named():
    # two 3-cycles that never meet, and two cycles joined by one one-way edge
    a, b = ["A", "B", "C", "X", "Y", "Z"], ["B", "C", "A", "Y", "Z", "X"]
    with pytest.raises(NotIdentifiableError, match="2 groups"):
        fit_bradley_terry(a, b, ["a"] * 6, regularization=0)
    with pytest.raises(NotIdentifiableError, match="not strongly connected"):
        fit_bradley_terry(a + ["A"], b + ["X"], ["a"] * 7, regularization=0)
    # a tie bounds the gap both ways: joined by a tie the graph is fine
    fit = fit_bradley_terry(a + ["A"], b + ["X"], ["a"] * 6 + ["tie"], regularization=0)
    assert fit.converged and abs(fit.merits.mean()) < 1e-12


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        ((["A"], ["B", "C"], ["a"]), {}, "same length"),
        ((["A", "B"], ["B", "B"], ["a", "a"]), {}, "judgment 1: item 'B' is compared with itself"),
        ((["A", "B"], ["B", "C"], ["a", "win"]), {}, "judgment 1, field 'outcome'"),
        ((["A", None], ["B", "C"], ["a", "a"]), {}, "judgment 1, field 'item_a': missing"),
        ((["A", "B"], ["B", "C"], ["a", 3]), {}, "judgment 1, field 'outcome'"),
        ((["A"], ["B"], ["tie"]), {"threshold": 0}, "threshold=0"),
        ((["A"], ["B"], ["a"]), {"regularization": -1}, "regularization"),
        (([], [], []), {}, "no judgments"),
    ],
)
def test_bad_input_is_named(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        fit_bradley_terry(*args, **kwargs)


def test_custom_outcome_names():
    fit = fit_bradley_terry(["x", "y"], ["y", "x"], ["A", "Tie"], outcome_names=["A", "B", "Tie"])
    assert fit.n_comparisons == 2 and fit.scores()["x"] > fit.scores()["y"]


def _ring_judgments(n_items, per_item=10, seed=0, tau=0.3):
    """A connected graph: a ring of ties (so even λ = 0 is identifiable) plus random pairs
    with Rao–Kupper outcomes from normal merits."""
    rng = np.random.default_rng(seed)
    true = rng.normal(0, 1, n_items)
    ring = np.arange(n_items)
    a = np.concatenate([ring, rng.integers(0, n_items, (per_item - 1) * n_items)])
    b = (a + rng.integers(1, n_items, len(a))) % n_items
    b[:n_items] = (ring + 1) % n_items
    d = true[a] - true[b]
    win_a, win_b = 1 / (1 + np.exp(tau - d)), 1 / (1 + np.exp(tau + d))
    u = rng.random(len(a))
    outcome = np.where(u < win_a, 0, np.where(u < win_a + win_b, 1, 2))
    outcome[:n_items] = 2
    return a, b, outcome


@pytest.mark.parametrize("lam", [0.3, 0.0])
def test_newton_cg_reaches_the_dense_newton_optimum(lam):
    a, b, outcome = _ring_judgments(400, seed=1)
    dense = fit_bradley_terry(a, b, outcome, regularization=lam, threshold=0.3, method="newton")
    cg = fit_bradley_terry(a, b, outcome, regularization=lam, threshold=0.3, method="newton-cg")
    assert dense.extra["method"] == "newton" and cg.extra["method"] == "newton-cg"
    assert dense.converged and cg.converged and cg.extra["cg_iterations"] > 0
    assert cg.log_likelihood == pytest.approx(dense.log_likelihood, rel=1e-12)
    np.testing.assert_allclose(cg.merits, dense.merits, atol=1e-8)
    assert cg.items == dense.items


def test_auto_takes_dense_newton_for_small_fits_only():
    for n_items, method in [(DENSE_MAX_ITEMS, "newton"), (DENSE_MAX_ITEMS + 1, "newton-cg")]:
        a, b, outcome = _ring_judgments(n_items, per_item=3)
        fit = fit_bradley_terry(a, b, outcome, threshold=0.3)
        assert len(fit.items) == n_items and fit.extra["method"] == method and fit.converged
    with pytest.raises(ValueError, match="method must be"):
        fit_bradley_terry(a, b, outcome, threshold=0.3, method="bfgs")


@pytest.mark.parametrize("method", ["newton", "newton-cg"])
def test_non_convergence_warns(method):
    a, b, outcome = _ring_judgments(200, seed=2)
    with pytest.warns(RuntimeWarning, match=r"did not converge .*after 2 iterations.*max_iter"):
        fit = fit_bradley_terry(a, b, outcome, threshold=0.3, max_iter=2, method=method)
    assert not fit.converged and fit.iterations == 2 and fit.gradient_norm > 1e-9
    assert fit.message == "max_iter reached"


def test_identifiability_is_checked_on_large_graphs():
    """The check is the same whatever the size (sparse, linear in the graph)."""
    a, b, outcome = _ring_judgments(3000, per_item=2)
    fit = fit_bradley_terry(a, b, outcome, regularization=0, threshold=0.3)
    assert fit.converged and fit.extra["method"] == "newton-cg"
    a, b = np.append(a, [3000, 3000]), np.append(b, [0, 1])  # a new item that only wins
    with pytest.raises(NotIdentifiableError, match=r"only win \(merit → \+∞\): 3000\."):
        fit_bradley_terry(a, b, np.append(outcome, [0, 0]), regularization=0, threshold=0.3)
    # and two rings that never meet: two groups, neither one-sided
    a2, b2, o2 = _ring_judgments(2000, per_item=2, seed=4)
    a3, b3 = np.append(a[:-2], a2 + 4000), np.append(b[:-2], b2 + 4000)
    with pytest.raises(NotIdentifiableError, match="2 groups of items"):
        fit_bradley_terry(a3, b3, np.append(outcome, o2), regularization=0, threshold=0.3)


# --------------------------------------------------------------------------- design


@settings(max_examples=150, deadline=None)
@given(n=st.integers(1, 60), data=st.data(), seed=st.integers(0, 2**16))
def test_cyclic_group_design_counts(n, data, seed):
    k = data.draw(st.integers(1, n))
    items = [f"item{i}" for i in range(n)]
    pairs = cyclic_group_design(items, k, seed=seed)
    unordered = {frozenset(p) for p in pairs}
    assert len(unordered) == len(pairs)  # each pair once, never an item with itself
    assert all(len(p) == 2 for p in unordered)
    assert len(pairs) == cyclic_group_pair_count(n, k)
    if k >= 3 and n % k == 0:
        assert len(pairs) == paper_pair_count(n, k)
    if k <= 2:
        assert len(pairs) == n * (n - 1) // 2
    assert cyclic_group_design(items, k, seed=seed) == pairs  # seeded: reproducible


def test_cyclic_group_design_structure():
    """9 items, 3 groups of 3: every item meets its own group and both neighbouring groups —
    here that is everybody — while 12 items in 4 groups leave the opposite group out."""
    pairs = cyclic_group_design(range(12), 4, seed=0)
    assert len(pairs) == paper_pair_count(12, 4) == 48
    partners = {i: set() for i in range(12)}
    for x, y in pairs:
        partners[x].add(y)
        partners[y].add(x)
    assert all(len(p) == 2 + 3 + 3 for p in partners.values())  # own group + 2 neighbours
    # the non-partners of each item form exactly one group of 3 (the opposite group)
    opposite = {frozenset(set(range(12)) - p - {i}) for i, p in partners.items()}
    assert len(opposite) == 4 and all(len(g) == 3 for g in opposite)
    assert paper_pair_count(4, 2) != cyclic_group_pair_count(4, 2) == 6  # k = 2


def test_cyclic_group_design_errors():
    with pytest.raises(ValueError, match="distinct"):
        cyclic_group_design(["a", "a", "b"], 1)
    with pytest.raises(ValueError, match="k must be"):
        cyclic_group_design(["a", "b"], 3)


# --------------------------------------------------------------------------- combined


def test_combined_quality_is_the_shifted_length_z_scored():
    rng = np.random.default_rng(0)
    r, lo, d = rng.normal(size=(3, 50))
    length = np.sqrt((r + 10) ** 2 + (lo + 10) ** 2 + (d + 10) ** 2)
    np.testing.assert_allclose(
        combined_quality(r, lo, d), (length - length.mean()) / length.std(), atol=1e-12
    )
    with pytest.raises(ValueError, match="missing"):
        combined_quality([1.0, np.nan], [0.0, 0.0], [0.0, 0.0])


# --------------------------------------------------------------------------- CLI


def test_cli_fit_csv_and_jsonl(tmp_path, capsys):
    judgments = tmp_path / "j.csv"
    judgments.write_text(
        "topic,first,second,result\n"
        + "\n".join(
            f"{t},{x},{y},{o}"
            for t, x, y, o in [
                ("t1", "x", "y", "A"),
                ("t1", "y", "z", "Tie"),
                ("t1", "z", "x", "B"),
                ("t1", "x", "z", "B"),
                ("t2", "p", "q", "A"),
            ]
        )
        + "\n"
    )
    out = tmp_path / "scores.jsonl"
    argv = ["pairwise", "fit", str(judgments), "--group", "topic", "--item-a", "first"]
    argv += ["--item-b", "second", "--winner", "result", "--labels", "A,B,Tie", "--out", str(out)]
    argv += ["--normalize", "none"]
    assert main(argv) == 0
    assert "2 fit(s), 5 judgments" in capsys.readouterr().out
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    expected = fit_bradley_terry(
        ["x", "y", "z", "x"], ["y", "z", "x", "z"], ["a", "tie", "b", "b"]
    ).scores()
    assert {r["item"]: r["merit"] for r in rows if r["topic"] == "t1"} == pytest.approx(expected)
    assert [r["item"] for r in rows if r["topic"] == "t2"] == ["p", "q"]

    csv_out = tmp_path / "scores.csv"
    argv[argv.index("--out") + 1] = str(csv_out)
    assert main(argv[:-2]) == 0  # z-scores by default
    lines = csv_out.read_text().splitlines()
    assert lines[0] == "topic,item,merit,score" and len(lines) == 6


def test_cli_errors(tmp_path, capsys):
    judgments = tmp_path / "j.jsonl"
    judgments.write_text('{"item_a": "x", "item_b": "y", "winner": "a"}\n{"item_a": "x"}\n')
    assert main(["pairwise", "fit", str(judgments), "--out", str(tmp_path / "o.csv")]) == 2
    assert "row 1: no column 'item_b'" in capsys.readouterr().err
    judgments.write_text('{"item_a": "x", "item_b": "y", "winner": "a"}\n')
    argv = ["pairwise", "fit", str(judgments), "--out", str(tmp_path / "o.csv")]
    assert main(argv + ["--regularization", "0"]) == 2
    assert "only win" in capsys.readouterr().err


def test_pair_enumeration_helper_matches_itertools():
    """cyclic_group_design with k = 1 is plain itertools.combinations of the shuffled items."""
    pairs = cyclic_group_design(list("abcdef"), 1, seed=3)
    order = [pairs[0][0]] + [y for x, y in pairs[:5]]
    assert pairs == list(itertools.combinations(order, 2))


# --------------------------------------------------------------------------- the real corpus


def test_webis_reproduction(real_corpora):
    """60 topic × dimension fits against the released scores, both parameter settings."""
    from argbench.reproduce.webis import reproduce_webis

    table = reproduce_webis(sources=str(real_corpora.mirror), cache_dir=real_corpora.cache)
    for parameters in ("example", "release"):
        fits = [r for r in table if r["parameters"] == parameters and r["dimension"] != "combined"]
        assert len(fits) == 60 and sum(r["judgments"] for r in fits) == 41_856
        assert min(r["pearson"] for r in fits) >= 0.99
    exact = [r for r in table if r["parameters"] == "release" and r["dimension"] != "combined"]
    assert min(r["pearson"] for r in exact) > 0.99999999
    assert max(r["max_abs_diff"] for r in exact) < 1e-3  # the authors' BFGS tolerance
    combined = {r["parameters"]: r for r in table if r["dimension"] == "combined"}
    assert combined["released scores"]["max_abs_diff"] < 1e-12  # the formula is exact
    assert combined["release"]["max_abs_diff"] < 1e-3 and combined["release"]["items"] == 1269


def test_cli_webis(real_corpora, tmp_path, capsys):
    out = tmp_path / "webis.csv"
    argv = ["pairwise", "fit", "--webis", "--sources", str(real_corpora.mirror)]
    assert main(argv + ["--cache-dir", real_corpora.cache, "--out", str(out)]) == 0
    assert "60 fit(s), 41,856 judgments, 1,271 score rows" in capsys.readouterr().out
    lines = out.read_text().splitlines()
    assert lines[0] == "topic_id,discussion_id,argument_id,rhetorical,logical,dialectical,combined"
    assert sum(line.endswith(",,,,") for line in lines) == 2  # the never-compared argument
