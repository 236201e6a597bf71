"""Bradley–Terry scores from pairwise judgments, as in Webis-ArgQuality-20 (Gienapp et al., 2020).

The model follows the authors' reference implementation (``bradleyterry.py`` in
webis-de/acl20-efficient-argument-quality-annotation):

- merits ``m`` are log-strengths; P(i beats j) = e^m_i / (e^m_i + θ e^m_j) and
  P(i ties j) = e^m_i e^m_j (θ² − 1) / ((e^m_i + θ e^m_j)(θ e^m_i + e^m_j)), θ = e^τ
  (Rao–Kupper ties with threshold τ);
- the regulariser: each item beats a dummy item of fixed merit (1, as in the authors' code)
  once and loses to it once, without threshold, both weighted by λ.

Both likelihood terms are products of logistic functions, so the log-likelihood, its
gradient and its Hessian are sums of ``log σ``, ``σ`` and ``σ(1 − σ)`` over arrays: one
vectorised pass per evaluation. The negative log-likelihood is minimised by a damped Newton
method (analytic Hessian, Armijo backtracking), which converges in a handful of steps. The
step is solved with the dense n × n Hessian for up to 100 items (the corpus's topics have
31–81) and by conjugate gradients with Hessian–vector products over the comparison graph
above that, so time and memory stay linear in items + judgments (20,000 items, 200,000
judgments: ~0.3 s, ~80 MB; ``scripts/bench_pairwise.py``; the minimiser is
:mod:`argbench.scoring.bt_newton`). A fit that misses the gradient
tolerance warns. The authors minimise the log10 likelihood with BFGS on numeric differences;
the base only rescales the objective (same optimum), and the log-likelihood reported here is
in natural log.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from argbench.constants import PAIRWISE_OUTCOMES, WEBIS_DIMENSIONS, WEBIS_NEVER_COMPARED
from argbench.scoring import Labels
from argbench.scoring.bt_newton import DENSE_MAX_ITEMS, SOLVERS, Objective, newton
from argbench.scoring.declaration import Metric
from argbench.scoring.pair_design import (  # the design the fits are drawn for, here as before
    cyclic_group_design,
    cyclic_group_pair_count,
    paper_pair_count,
)
from argbench.signature import Signature

__all__ = [
    "BradleyTerryFit",
    "bradley_terry",
    "NotIdentifiableError",
    "WEBIS_PARAMETERS",
    "combined_quality",
    "cyclic_group_design",
    "cyclic_group_pair_count",
    "fit_bradley_terry",
    "paper_pair_count",
    "webis_scores",
    "fit_webis",
]

OUTCOMES = PAIRWISE_OUTCOMES

# the metric's features (see argbench.scoring): one example = one judgment. An item (or a
# group) named by several fields is read with "field+field" (argbench.records.field_value).
INPUTS = {
    "item_a": "string",
    "item_b": "string",
    "outcome": Labels(OUTCOMES),
    "group": "string",
}

# the default columns read webis_argquality20's pairwise config: an argument is
# (discussion, argument), one fit per topic and quality dimension
METRIC = Metric(
    inputs=INPUTS,
    columns={
        "item_a": "discussion_id_a+argument_id_a",
        "item_b": "discussion_id_b+argument_id_b",
        "outcome": "winner",
        "group": "topic_id+dimension",
    },
    measurement=True,
)

# (regularisation λ, threshold τ) per quality dimension that reproduce the released
# Webis-ArgQuality-20 scores (found by refitting; the release's model example uses 0.3, 0.01).
WEBIS_PARAMETERS = {
    "logical": (0.1, 0.05),
    "rhetorical": (0.1, 0.05),
    "dialectical": (0.25, 0.1),
}
WEBIS_EXAMPLE_PARAMETERS = (0.3, 0.01)


class NotIdentifiableError(ValueError):
    """Without regularisation the likelihood has no finite maximum for these judgments."""


@dataclass
class BradleyTerryFit:
    """Merits per item and how the optimiser got there."""

    items: list
    merits: np.ndarray  # log-strengths, the authors' scale (before any normalisation)
    log_likelihood: float  # natural log, judgments + λ-weighted dummy comparisons
    iterations: int
    gradient_norm: float  # max |∂ log L / ∂ m_i| at the solution
    converged: bool
    message: str
    regularization: float
    threshold: float
    n_comparisons: int
    extra: dict = field(default_factory=dict)

    def normalized(self, normalize: str | None = "zscore") -> np.ndarray:
        """Merits, z-scored (population SD), min–max scaled (the authors' ``normalize=True``),
        or raw (``None``)."""
        return normalize_merits(self.merits, normalize)

    def scores(self, normalize: str | None = None) -> dict:
        """``{item: score}``."""
        return dict(zip(self.items, self.normalized(normalize).tolist(), strict=True))


def normalize_merits(merits, normalize: str | None):
    merits = np.asarray(merits, dtype=float)
    if normalize is None:
        return merits.copy()
    if normalize == "zscore":
        sd = merits.std()
        return (merits - merits.mean()) / sd if sd > 0 else np.zeros_like(merits)
    if normalize == "minmax":
        span = merits.max() - merits.min()
        return (merits - merits.min()) / span if span > 0 else np.zeros_like(merits)
    raise ValueError(f"normalize must be None, 'zscore' or 'minmax', not {normalize!r}")


def _plain_ids(every: list) -> bool:
    """All ids of one numpy-able kind (ints or strs), so the vectorised path merges nothing:
    ``np.asarray([1, "1"])`` would read both as the string "1"."""
    kinds = {type(v) for v in every}
    return all(issubclass(k, (str, np.str_)) for k in kinds) or all(
        issubclass(k, (int, np.integer)) and not issubclass(k, bool) for k in kinds
    )


def _encode(item_a: Sequence, item_b: Sequence, outcome: Sequence, outcome_names):
    """Sorted item list, index arrays and outcome codes; errors name the judgment and field."""
    if not len(item_a) == len(item_b) == len(outcome):
        raise ValueError(
            f"item_a, item_b and outcome must have the same length, not "
            f"{len(item_a)}, {len(item_b)}, {len(outcome)}"
        )
    if len(item_a) == 0:
        raise ValueError("no judgments to fit")
    m = len(item_a)
    every = list(item_a) + list(item_b)

    def where(position: int) -> str:  # position in ``every``
        return f"judgment {position % m}, field {'item_a' if position < m else 'item_b'!r}"

    ids = np.asarray(every) if _plain_ids(every) else None
    if ids is not None and ids.ndim == 1 and ids.dtype.kind in "iuU":  # vectorised
        items, inverse = np.unique(ids, return_inverse=True)
        items = items.tolist()
    else:  # tuples, mixed types, possibly None
        index: dict[Hashable, int] = {}
        try:
            inverse = np.array([index.setdefault(v, len(index)) for v in every], dtype=np.intp)
        except TypeError:
            bad = next(p for p, v in enumerate(every) if not isinstance(v, Hashable))
            raise ValueError(f"{where(bad)}: item {every[bad]!r:.60} is not hashable") from None
        items = list(index)
        shown: dict[str, int] = {}
        for position, value in enumerate(items):
            if value is None or (isinstance(value, float) and math.isnan(value)):
                raise ValueError(f"{where(every.index(value))}: missing item id")
            other = items[shown.setdefault(str(value), position)]
            if other is not value:  # 1 and "1": different ids that read the same in a file
                raise ValueError(
                    f"{where(every.index(value))}: item {value!r} ({type(value).__name__}) and item "
                    f"{other!r} ({type(other).__name__}) are different ids that print the "
                    "same; give every id one type"
                )
        try:
            order = sorted(range(len(items)), key=items.__getitem__)
        except TypeError:  # unorderable ids keep their first-appearance order
            order = list(range(len(items)))
        rank = np.empty(len(items), dtype=np.intp)
        rank[order] = np.arange(len(items))
        items, inverse = [items[i] for i in order], rank[inverse]
    a_idx, b_idx = inverse[:m].astype(np.intp), inverse[m:].astype(np.intp)
    same = np.flatnonzero(a_idx == b_idx)
    if len(same):
        raise ValueError(
            f"judgment {same[0]}: item {items[a_idx[same[0]]]!r} is compared with itself"
        )

    names = list(outcome_names)
    values = np.asarray(outcome)
    if values.ndim != 1 or values.dtype.kind not in "iuU":
        values = np.fromiter(outcome, dtype=object, count=m)
    if values.dtype.kind in "iu":
        code = values.astype(np.int64)
    else:
        is_int = np.fromiter(
            (isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values),
            dtype=bool,
            count=m,
        )
        code = np.full(m, -1, dtype=np.int64)
        code[is_int] = values[is_int].astype(np.int64)
        for position, name in enumerate(names):
            code[~is_int & (values == name)] = position
    bad = np.flatnonzero((code < 0) | (code >= len(names)))
    if len(bad):
        value = values[bad[0]]
        value = value.item() if isinstance(value, np.generic) else value
        raise ValueError(
            f"judgment {bad[0]}, field 'outcome': {value!r} is not one of {names} "
            f"(or their indices 0..{len(names) - 1})"
        )
    return items, a_idx, b_idx, code


def _check_identifiable(items, winner, loser, tie):
    """λ = 0: a finite maximum exists iff the 'beat or tied' graph is strongly connected."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n = len(items)
    # edge loser -> winner for a win; both directions for a tie (it bounds the gap both ways)
    src = np.concatenate([loser, winner[tie]])
    dst = np.concatenate([winner, loser[tie]])
    graph = coo_matrix((np.ones(len(src)), (src, dst)), shape=(n, n)).tocsr()
    count, labels = connected_components(graph, directed=True, connection="strong")
    if count == 1:
        return
    out_degree = np.bincount(src, minlength=n)  # times the item lost or tied
    in_degree = np.bincount(dst, minlength=n)  # times the item won or tied

    def show(idx):
        names = [repr(items[i]) for i in idx[:10]]
        more = f" and {len(idx) - 10} more" if len(idx) > 10 else ""
        return ", ".join(names) + more

    problems = []
    only_win = np.flatnonzero(out_degree == 0)
    only_lose = np.flatnonzero(in_degree == 0)
    if len(only_win):
        problems.append(f"items that only win (merit → +∞): {show(only_win)}")
    if len(only_lose):
        problems.append(f"items that only lose (merit → −∞): {show(only_lose)}")
    if not problems:
        sizes = np.bincount(labels)
        smallest = np.flatnonzero(labels == np.argmin(sizes))
        problems.append(
            f"{count} groups of items, and some group never loses (or never wins) against the "
            f"rest; e.g. the group {show(smallest)}"
        )
    raise NotIdentifiableError(
        "with regularization=0 the Bradley–Terry likelihood has no finite maximum: the "
        "comparison graph is not strongly connected; "
        + "; ".join(problems)
        + ". Use regularization > 0 (the dummy item) or add judgments."
    )


def fit_bradley_terry(
    item_a: Sequence,
    item_b: Sequence,
    outcome: Sequence,
    *,
    regularization: float = WEBIS_EXAMPLE_PARAMETERS[0],
    threshold: float = WEBIS_EXAMPLE_PARAMETERS[1],
    dummy_merit: float = 1.0,
    outcome_names: Iterable = OUTCOMES,
    gtol: float = 1e-9,
    max_iter: int = 200,
    method: str = "auto",
) -> BradleyTerryFit:
    """Fit merits to judgments ``outcome[k]`` ∈ {"a", "b", "tie"} (or 0/1/2) of
    ``item_a[k]`` vs ``item_b[k]``.

    ``regularization`` is λ (weight of one win and one loss against a dummy item of merit
    ``dummy_merit``), ``threshold`` is τ (θ = e^τ; must be > 0 when there are ties). Defaults
    are the release example's λ = 0.3, τ = 0.01; ``WEBIS_PARAMETERS`` holds the settings that
    reproduce the released corpus. The log-likelihood is strictly concave (λ > 0, or λ = 0
    with the mean pinned), so damped Newton reaches the unique maximum in a handful of steps.
    ``method``: ``"newton"`` solves each step with the dense n × n Hessian (fastest for small
    topics, O(n²) memory); ``"newton-cg"`` solves it by conjugate gradients with Hessian–vector
    products over the comparison graph (time and memory linear in items + judgments);
    ``"auto"`` takes dense Newton up to 100 items (see ``DENSE_MAX_ITEMS``). Both stop at
    max |∂ log L / ∂ m_i| ≤ ``gtol`` after at most ``max_iter`` Newton steps; a fit that does
    not get there warns (``RuntimeWarning``) and has ``converged=False``. ``extra`` holds the
    method used and the CG iterations. Items come out sorted (first-appearance order if their
    ids cannot be sorted). With λ = 0 the merits are centred at 0; ``NotIdentifiableError``
    when no finite maximum exists.
    """
    if method not in ("auto", *SOLVERS):
        raise ValueError(f"method must be 'auto', 'newton' or 'newton-cg', not {method!r}")
    for name, value in (("regularization", regularization), ("threshold", threshold)):
        if not (isinstance(value, numbers.Real) and math.isfinite(value) and value >= 0):
            raise ValueError(f"{name} must be a finite number >= 0, not {value!r}")
    if not (isinstance(dummy_merit, numbers.Real) and math.isfinite(dummy_merit)):
        raise ValueError(f"dummy_merit must be a finite number, not {dummy_merit!r}")
    try:
        math.expm1(2 * threshold)  # the tie factor θ² − 1
    except OverflowError:
        raise ValueError(
            f"threshold τ = {threshold:g} is too large: θ² = e^(2τ) overflows a float (τ must "
            "be below 354; it is a log-ratio, the release uses 0.01 to 0.1)"
        ) from None
    items, a_idx, b_idx, code = _encode(item_a, item_b, outcome, outcome_names)
    tie = code == 2
    if tie.any() and threshold == 0:
        raise ValueError(
            f"{int(tie.sum())} tie(s) but threshold=0: the Rao–Kupper tie probability is 0; "
            "use threshold > 0"
        )
    a_won = code != 1  # winner first; for ties the order does not matter
    winner = np.where(a_won, a_idx, b_idx)
    loser = np.where(a_won, b_idx, a_idx)
    n = len(items)
    if regularization == 0:
        _check_identifiable(items, winner, loser, tie)
    if method == "auto":
        method = "newton" if n <= DENSE_MAX_ITEMS else "newton-cg"
    objective = Objective(regularization, threshold, dummy_merit, winner, loser, tie, n)
    merits, iterations, message, inner = newton(
        objective, n, dummy_merit, gtol, max_iter, SOLVERS[method]
    )
    value, grad = objective(merits)
    gradient_norm = float(np.abs(grad).max())
    converged = gradient_norm <= gtol
    if not converged:
        advice = (
            f"raise max_iter (now {max_iter}), or gtol if the gradient is near float precision"
            if message == "max_iter reached"
            else f"the log-likelihood is flat at float precision there: loosen gtol (now {gtol:g})"
        )
        warnings.warn(
            f"Bradley–Terry fit of {n} items, {len(code)} judgments did not converge "
            f"(method {method!r}): {message} after {iterations} iterations, "
            f"max |gradient| {gradient_norm:.2e} > gtol {gtol:g}; {advice}",
            RuntimeWarning,
            stacklevel=2,
        )
    return BradleyTerryFit(
        items=items,
        merits=merits,
        log_likelihood=-float(value),
        iterations=iterations,
        gradient_norm=gradient_norm,
        converged=converged,
        message=message,
        regularization=float(regularization),
        threshold=float(threshold),
        n_comparisons=len(code),
        extra={"method": method, "cg_iterations": inner},
    )


# ---------------------------------------------------------------------------------------------
# Webis-ArgQuality-20: per-topic fits, the release's global z-score and Combined Quality

COMBINED_SHIFT = 10.0  # Combined Quality = z(‖(rhetorical, logical, dialectical) + 10‖₂)


def combined_quality(rhetorical, logical, dialectical, shift: float = COMBINED_SHIFT):
    """The release's Combined Quality: the Euclidean length of the three dimension z-scores
    after shifting them positive by ``shift``, z-scored (population SD) over the rows given.

    The paper proposes the length of the shifted score vector; refitting the release found the
    shift: +10 reproduces its column to 4e-15 over the 1,271 argument rows (the two rows of
    the never-compared argument enter with their −3.0 placeholders)."""
    scores = np.column_stack([rhetorical, logical, dialectical]).astype(float)
    if np.isnan(scores).any():
        raise ValueError("combined_quality: missing dimension scores (NaN)")
    length = np.sqrt(((scores + shift) ** 2).sum(axis=1))
    return normalize_merits(length, "zscore")


def _webis_parameters(parameters, dimension):
    if parameters == "release":
        return WEBIS_PARAMETERS[dimension]
    if parameters == "example":
        return WEBIS_EXAMPLE_PARAMETERS
    regularization, threshold = parameters
    return float(regularization), float(threshold)


def fit_webis(pairwise, parameters="release", dimensions=WEBIS_DIMENSIONS) -> dict:
    """One fit per (topic, dimension) of the ``webis_argquality20`` ``pairwise`` config.

    ``parameters``: ``"release"`` (``WEBIS_PARAMETERS``, reproduces the released scores),
    ``"example"`` (the release's model example, λ = 0.3, τ = 0.01) or ``(λ, τ)``. Items are
    ``(discussion_id, argument_id)``. Returns ``{(topic_id, dimension): BradleyTerryFit}``.
    """
    columns = pairwise.with_format("numpy")[:]
    names = pairwise.features["dimension"].names
    # one int64 key per item so the fit takes the vectorised path
    for side in ("a", "b"):
        for part in ("discussion_id", "argument_id"):
            values = columns[f"{part}_{side}"]
            if (values < 0).any():
                index = int(np.flatnonzero(values < 0)[0])
                raise ValueError(f"pairwise example {index}, field {part}_{side!r}: negative id")
    key_a = (columns["discussion_id_a"].astype(np.int64) << 32) | columns["argument_id_a"]
    key_b = (columns["discussion_id_b"].astype(np.int64) << 32) | columns["argument_id_b"]
    topic, dim = columns["topic_id"], columns["dimension"]
    order = np.lexsort((dim, topic))
    bounds = np.flatnonzero(np.diff(topic[order]) | np.diff(dim[order])) + 1
    fits = {}
    for group in np.split(order, bounds):
        dimension = names[dim[group[0]]]
        if dimension not in dimensions:
            continue
        regularization, threshold = _webis_parameters(parameters, dimension)
        fit = fit_bradley_terry(
            key_a[group],
            key_b[group],
            columns["winner"][group],
            regularization=regularization,
            threshold=threshold,
        )
        fit.items = [(key >> 32, key & 0xFFFFFFFF) for key in fit.items]
        fits[(int(topic[group[0]]), dimension)] = fit
    return fits


def webis_scores(fits: dict, unjudged=()) -> list[dict]:
    """Rows ``{topic_id, discussion_id, argument_id, <dimension>..., combined}``.

    Each dimension is z-scored over all topics at once, as the release does (one global
    z-score per dimension, population SD, over the compared (topic, argument) rows).
    ``combined`` (when all three dimensions are fitted) follows ``combined_quality``. The
    release also lists arguments no judgment covers, gives them −3.0 in each dimension and
    lets them into Combined Quality's z-score; pass their ``(topic_id, discussion_id,
    argument_id)`` as ``unjudged`` to do the same: they come out with ``None`` scores.
    """
    rows: dict[tuple, dict] = {}
    dimensions = sorted({d for _, d in fits}, key=WEBIS_DIMENSIONS.index)
    for dimension in dimensions:
        keys = [(t, d) for t, d in sorted(fits) if d == dimension]
        z = normalize_merits(np.concatenate([fits[k].merits for k in keys]), "zscore")
        position = 0
        for topic, _ in keys:
            for item in fits[(topic, dimension)].items:
                row = rows.setdefault(
                    (topic, *item),
                    {"topic_id": topic, "discussion_id": item[0], "argument_id": item[1]},
                )
                row[dimension] = float(z[position])
                position += 1
    table = list(rows.values())
    if tuple(dimensions) != WEBIS_DIMENSIONS:
        return table
    missing = [r for r in table if any(d not in r for d in WEBIS_DIMENSIONS)]
    if missing:
        raise ValueError(
            f"item {missing[0]['discussion_id']}/{missing[0]['argument_id']} of topic "
            f"{missing[0]['topic_id']} is judged in some dimensions only; no combined score"
        )
    extra = [
        {"topic_id": t, "discussion_id": d, "argument_id": a, **dict.fromkeys(WEBIS_DIMENSIONS)}
        for t, d, a in unjudged
        if (t, d, a) not in rows
    ]
    filled = [[r[d] for r in table] + [WEBIS_NEVER_COMPARED] * len(extra) for d in WEBIS_DIMENSIONS]
    combined = combined_quality(*filled)
    for row, value in zip(table, combined[: len(table)], strict=True):
        row["combined"] = float(value)
    for row in extra:
        row["combined"] = None
    return table + extra


def bradley_terry(
    item_a,
    item_b,
    outcome,
    group=None,
    regularization: float = WEBIS_EXAMPLE_PARAMETERS[0],
    threshold: float = WEBIS_EXAMPLE_PARAMETERS[1],
    normalize: str | None = "zscore",
) -> dict:
    """The metric: one Bradley–Terry fit (:func:`fit_bradley_terry`) per ``group`` of the
    judgments ``outcome[k]`` of ``item_a[k]`` vs ``item_b[k]`` (one fit of all, group
    ``"all"``, when ``group`` is None); ``fits`` lists, per group in sorted order, its items
    (sorted), their merits and scores (``normalize`` within the group: ``"zscore"``,
    ``"minmax"`` or None for the raw merit).

    A fit is a function of every judgment of its group at once, never of parts of them: a
    sharded run (``argbench evaluate bradley_terry --dataset ... --shard I/N``) keeps the
    judgments in its fragment, and ``argbench merge`` fits again on all of them, in the
    split's order, so the merged figures are this function's on the whole split."""
    if not len(item_a):
        raise ValueError("no judgments: nothing to score")
    if normalize not in ("zscore", "minmax", None):
        raise ValueError(f"normalize must be 'zscore', 'minmax' or None, not {normalize!r}")
    groups: dict = {}
    keys = ["all"] * len(item_a) if group is None else [str(g) for g in group]
    if len(keys) != len(item_a):
        raise ValueError(f"group has {len(keys)} values for {len(item_a)} judgments")
    for index, key in enumerate(keys):
        groups.setdefault(key, []).append(index)
    fits, table = [], []
    for key in sorted(groups):
        indices = groups[key]
        try:
            fit = fit_bradley_terry(
                [item_a[i] for i in indices],
                [item_b[i] for i in indices],
                [outcome[i] for i in indices],
                regularization=regularization,
                threshold=threshold,
            )
        except ValueError as error:
            raise ValueError(f"group {key!r}: {error}") from None
        fits.append(fit)
        table.append(
            {
                "group": key,
                "items": list(fit.items),
                "merits": fit.merits.tolist(),
                "scores": fit.normalized(normalize).tolist(),
                "log_likelihood": fit.log_likelihood,
                "converged": fit.converged,
            }
        )
    signature = Signature(
        "bradley_terry",
        [
            ("lambda", float(regularization)),
            ("tau", float(threshold)),
            ("ties", "rao-kupper"),
            ("dummy", 1.0),
            ("normalize", normalize),
            ("grouped", group is not None),
        ],
    ).render()
    return {
        "n_judgments": len(keys),
        "n_groups": len(groups),
        "n_items": sum(len(fit.items) for fit in fits),
        "log_likelihood": float(sum(fit.log_likelihood for fit in fits)),
        "converged": all(fit.converged for fit in fits),
        "max_gradient": max(fit.gradient_norm for fit in fits),
        "fits": table,
        "signature": signature,
    }
