"""A judge checked against people on CQs-Gen: the computation of a judge card.

A judge is what turns a generated question into a label: the STS matcher with its model and
threshold, an LLM with its prompt (``cq_reference_match``'s ``matcher`` and options). The
release holds people's labels for 1,528 questions of the 15 shared-task submissions
(``cqs_gen`` config ``extended``); a card says how far the judge agrees with them:

- question level (:func:`question_level`): each labelled question matched against the
  intervention's original test references (as the report's matcher-against-humans row),
  the judge's label against the people's (Useful / Unhelpful / Invalid, NAE a class of its
  own): agreement, Cohen's κ with a percentile-bootstrap interval over interventions (the
  questions of one intervention share its references: they are resampled together), the
  confusion matrix, the share the judge could not label (NAE) and the share it gave no
  usable reply for (unscored, never counted as a disagreement);
- system level (:func:`system_level`): the §6.1 protocol
  (:func:`argbench.scoring.cq_submissions.score_systems`): each submission scored against the
  test references plus the other submissions' questions, its ranking correlated with the
  human ranking (share of its questions people labelled Useful): Pearson on the scores,
  Spearman, Kendall's τ-b (:func:`argbench.scoring.statistics.ranking_correlation`), each with
  a percentile-bootstrap interval over interventions (both scores of every system recomputed
  on the same resampled interventions).

The reproduction report's §5-6 κ row and §6.1 row call these same functions.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

import numpy as np

from argbench.scoring.bradley_terry import WEBIS_PARAMETERS, fit_bradley_terry
from argbench.scoring.cq_human_agreement import CATEGORIES, cq_human_agreement
from argbench.scoring.cq_reference_match import ISSUE, LABELS, cq_reference_match
from argbench.scoring.cq_submissions import N_SUBMISSIONS, score_systems
from argbench.scoring.significance import percentile_interval
from argbench.scoring.statistics import (
    correlations_rows,
    kappa_rows,
    ranking_correlation,
    resample_counts,
)

__all__ = [
    "answers_changed",
    "bradley_terry_level",
    "item_agreement",
    "kappa_interval",
    "llm_consistency",
    "question_level",
    "ranking_level",
    "system_level",
    "test_questions",
]

RESAMPLES = 1_000
CORRELATIONS = ("pearson_scores", "spearman_ranks", "kendall_tau")


def test_questions(rows) -> tuple[list[str], list[list[str]], list[list], list[list[dict]]]:
    """(intervention ids, questions, human labels, test references) per intervention of the
    extended rows: the submitted (labelled) questions and the original references."""
    ids, questions, human, refs = [], [], [], []
    for i, row in enumerate(rows):
        references = row.get("references") if isinstance(row, dict) else None
        if not references or any("submission" not in r for r in references):
            raise ValueError(
                f"rows[{i}]: needs 'references' whose items carry 'submission' (cqs_gen config "
                "'extended')"
            )
        ids.append(str(row["intervention_id"]))
        questions.append([r["cq"] for r in references if r["submission"] >= 0])
        human.append([r["label"] for r in references if r["submission"] >= 0])
        refs.append([r for r in references if r["submission"] < 0])
    return ids, questions, human, refs


def _code(labels: Sequence, classes: Sequence = CATEGORIES, unscored=ISSUE) -> np.ndarray:
    """Labels as class indices; ``unscored`` (no usable reply) is the index past the classes.
    Anything else is an error naming the label: a label is never silently dropped."""
    code = {name: k for k, name in enumerate([*classes, unscored])}
    try:
        return np.array([code[label] for label in labels], dtype=int)
    except KeyError as error:
        raise ValueError(f"label {error.args[0]!r} is none of {list(classes)}") from None


def kappa_interval(
    predicted: Sequence[Sequence],
    human: Sequence[Sequence],
    *,
    classes: Sequence = CATEGORIES,
    unscored=ISSUE,
    resamples: int = RESAMPLES,
    seed: int = 0,
    confidence: float = 0.95,
) -> tuple[float, float]:
    """Percentile-bootstrap interval of Cohen's κ over groups: ``predicted[g]`` and
    ``human[g]`` are the labels (of ``classes``) of group g's items; a judge's ``unscored``
    label is left out. A resample's confusion matrix is the count-weighted sum of the
    groups'."""
    per_group = _group_matrices(predicted, human, classes, unscored)
    k = len(classes)
    flat = per_group.reshape(len(predicted), k * k)
    kappas = [
        kappa_rows((counts.astype(float) @ flat).reshape(-1, k, k))
        for counts in resample_counts(len(predicted), resamples, seed)
    ]
    return _interval(np.concatenate(kappas), confidence)


def _group_matrices(predicted, human, classes, unscored) -> np.ndarray:
    """Per group, the confusion matrix (rows: people, columns: the judge) of its scored items."""
    k = len(classes)
    per_group = np.zeros((len(predicted), k, k))
    for g, (p, h) in enumerate(zip(predicted, human, strict=True)):
        p, h = _code(p, classes, unscored), _code(h, classes, unscored)
        if (h >= k).any():
            raise ValueError(
                f"group {g}: a human label is {unscored!r}: people's labels are all scored"
            )
        kept = p < k
        np.add.at(per_group[g], (h[kept], p[kept]), 1)
    return per_group


def item_agreement(
    predicted: Sequence[Sequence],
    human: Sequence[Sequence],
    *,
    classes: Sequence,
    unscored=None,
    resamples: int = RESAMPLES,
    seed: int = 0,
    confidence: float = 0.95,
) -> dict:
    """A judge's labels against people's, item by item, items grouped by the bootstrap's unit
    (``predicted[g]``, ``human[g]``: group g's labels, of ``classes``; the judge's
    ``unscored`` label: no usable reply, left out of every figure and counted). Returns
    agreement (``accuracy``), Cohen's κ (:func:`kappa_rows` on the summed matrix, the formula
    of its bootstrap rows) with its percentile interval over groups, the confusion matrix
    (rows: people, columns: the judge), ``n`` scored, ``n_unscored``, ``unscored_rate``.
    Nothing scored: every figure NaN, never zero."""
    per_group = _group_matrices(predicted, human, classes, unscored)
    matrix = per_group.sum(axis=0)
    n = int(matrix.sum())
    total = sum(len(p) for p in predicted)
    kappa = float(kappa_rows(matrix[None])[0])
    low, high = kappa_interval(
        predicted,
        human,
        classes=classes,
        unscored=unscored,
        resamples=resamples,
        seed=seed,
        confidence=confidence,
    )
    return {
        "kappa": kappa,
        "kappa_low": low,
        "kappa_high": high,
        "accuracy": float(np.trace(matrix) / n) if n else float("nan"),
        "n": n,
        "n_unscored": total - n,
        "unscored_rate": (total - n) / total if total else float("nan"),
        "confusion": {
            "labels": [str(c) for c in classes],
            "matrix": matrix.astype(int).tolist(),
        },
        "n_groups": len(predicted),
    }


def answers_changed(first: Sequence, second: Sequence) -> tuple[float, int]:
    """The share of answers that differ between two runs of the same requests, over the
    answers usable both times (None: unusable), and how many those are (NaN share: none)."""
    both = [(x, y) for x, y in zip(first, second, strict=True) if x is not None and y is not None]
    share = sum(x != y for x, y in both) / len(both) if both else float("nan")
    return share, len(both)


def _interval(values: np.ndarray, confidence: float) -> tuple[float, float]:
    """The percentile interval of bootstrap values (NaN ignored; NaN when none is defined)."""
    if np.isnan(values).all():
        return float("nan"), float("nan")
    low, high = percentile_interval(values[:, None], confidence)
    return float(low[0]), float(high[0])


def question_level(
    rows,
    *,
    thresholds: Sequence[float] = (0.65,),
    label_names: Sequence[str] = LABELS,
    resamples: int = RESAMPLES,
    seed: int = 0,
    confidence: float = 0.95,
    **judge,
) -> dict:
    """The judge's label of every labelled submitted question (matched against the test
    references) against the people's: :func:`cq_human_agreement` (one matching, every STS
    threshold applied to the same similarities) with, per threshold, κ's bootstrap interval
    over interventions (``kappa_low``, ``kappa_high``) and ``seconds`` (the matching's wall
    time). ``judge``: ``cq_human_agreement``'s matcher options (``model``; ``matcher="llm"``,
    ``llm``, ``on_failure="incomplete"``: an unusable reply is unscored)."""
    ids, questions, human, refs = test_questions(rows)
    start = time.perf_counter()
    result = cq_human_agreement(
        questions, human, refs, thresholds=thresholds, label_names=label_names, **judge
    )
    result["seconds"] = time.perf_counter() - start
    kept = [i for i, qs in enumerate(questions) if qs]
    names = list(label_names)
    human_names = [[h if isinstance(h, str) else names[int(h)] for h in human[i]] for i in kept]
    bounds = np.cumsum([0, *(len(questions[i]) for i in kept)])
    for threshold, labels in result["labels"].items():
        grouped = [labels[a:b] for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
        low, high = kappa_interval(
            grouped, human_names, resamples=resamples, seed=seed, confidence=confidence
        )
        result["by_threshold"][threshold].update(kappa_low=low, kappa_high=high)
    result["intervention_ids"] = [ids[i] for i in kept]
    result["question_ids"] = [f"{ids[i]}#{k}" for i in kept for k in range(len(questions[i]))]
    result["human"] = [h for group in human_names for h in group]
    result.update(resamples=resamples, seed=seed, confidence=confidence)
    return result


def system_level(
    rows,
    label_names: Sequence[str] = LABELS,
    *,
    model=None,
    threshold: float = 0.65,
    resamples: int = RESAMPLES,
    seed: int = 0,
    confidence: float = 0.95,
    match: dict | None = None,
    expected: int | None = N_SUBMISSIONS,
) -> dict:
    """§6.1: the judge's ranking of the submissions against the human ranking.

    Returns ``correlation`` (:func:`ranking_correlation` of the judge's scores and the human
    scores: ``pearson_scores``, ``spearman_ranks``, ``kendall_tau``, ``n``), each figure's
    bootstrap interval over interventions in ``intervals``, ``systems`` (name, judge score,
    human score), ``signature`` (the §6.1 scoring's), ``scored`` (score_systems's output) and
    ``seconds``. ``model``, ``threshold``, ``match``: :func:`score_systems`'s; ``expected``:
    the number of submissions the rows hold (None: any)."""
    start = time.perf_counter()
    scored = score_systems(
        rows, model, label_names, threshold=threshold, baselines=(), match=match, expected=expected
    )
    seconds = time.perf_counter() - start
    level = ranking_level(scored, resamples=resamples, seed=seed, confidence=confidence)
    correlation, intervals = level["correlation"], level["intervals"]
    interventions = level["intervention_ids"]
    return {
        "correlation": correlation,
        "intervals": intervals,
        "systems": [
            {"system": system["system"], "score": result["score"], "human": result["human_score"]}
            for system, result in scored
        ],
        "signature": scored[0][1]["signature"],
        "n_interventions": len(interventions),
        "n_judgments": sum(result["n_questions"] for _, result in scored),
        "n_unscored": sum(result["label_counts"].get(ISSUE, 0) for _, result in scored),
        "seconds": seconds,
        "scored": scored,
        "resamples": resamples,
        "seed": seed,
        "confidence": confidence,
    }


def ranking_level(
    scored, *, resamples: int = RESAMPLES, seed: int = 0, confidence: float = 0.95
) -> dict:
    """§6.1's correlations of ``scored`` (:func:`score_systems`'s output; the systems with
    human labels) with the people's ranking, each with its percentile-bootstrap interval over
    interventions: both scores of every system recomputed on the same resampled
    interventions. The judge card and ``argbench submissions``'s table both call it."""
    scored = [(system, result) for system, result in scored if system.get("human")]
    interventions = scored[0][1]["intervention_ids"]
    judge = np.full((len(scored), len(interventions)), np.nan)
    useful = np.zeros((len(scored), len(interventions)))
    asked = np.zeros((len(scored), len(interventions)))
    for s, (system, result) in enumerate(scored):
        for i, (iid, value) in enumerate(
            zip(result["intervention_ids"], result["intervention_scores"], strict=True)
        ):
            judge[s, i] = np.nan if value is None else value
            labels = system["human"].get(iid, [])
            useful[s, i], asked[s, i] = labels.count("Useful"), len(labels)
    scores = [result["score"] for _, result in scored]
    humans = [result["human_score"] for _, result in scored]
    correlation = ranking_correlation(scores, humans)
    scored_mask = ~np.isnan(judge)
    values = np.where(scored_mask, judge, 0.0)
    rows_ = {name: [] for name in CORRELATIONS}
    for counts in resample_counts(len(interventions), resamples, seed):
        w = counts.astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            a = (w @ values.T) / (w @ scored_mask.T.astype(float))
            h = (w @ useful.T) / (w @ asked.T)
        for name, column in correlations_rows(a, h).items():
            rows_[name].append(column)
    intervals = {}
    for name in CORRELATIONS:
        low, high = _interval(np.concatenate(rows_[name]), confidence)
        intervals[name] = {"low": low, "high": high}
    return {"correlation": correlation, "intervals": intervals, "intervention_ids": interventions}


def _reordered(refs: list[list[dict]], seed: int) -> list[list[dict]]:
    rng = random.Random(seed)
    out = []
    for group in refs:
        group = list(group)
        rng.shuffle(group)
        out.append(group)
    return out


def llm_consistency(rows, *, label_names: Sequence[str] = LABELS, seed: int = 0, **judge) -> dict:
    """How stable an LLM judge's answers are, on the question-level matching: the share of
    questions whose matched reference (or NAE) changes when the same requests are sent again
    (``repeat_changed``) and when each intervention's references are listed in another order
    (``reorder_changed``, a seeded shuffle; the answer compared by the reference's id, not
    its position). Only questions answered usably both times count (``n_repeat``,
    ``n_reorder``). Run with the reply cache off: a cached reply repeats by construction."""
    _, questions, _, refs = test_questions(rows)
    kept = [i for i, qs in enumerate(questions) if qs]
    questions, refs = [questions[i] for i in kept], [refs[i] for i in kept]
    options = dict(judge, label_names=label_names, max_questions="all")

    def answers(references) -> list:
        matched = cq_reference_match(questions, references, **options)
        flat_ids = [x for row in matched["matched_ids"] for x in row]
        flat_labels = [x for row in matched["labels"] for x in row]
        return [
            None if label == ISSUE else ("NAE" if i is None else str(i))
            for i, label in zip(flat_ids, flat_labels, strict=True)
        ]

    first, again, shuffled = answers(refs), answers(refs), answers(_reordered(refs, seed))
    repeat, n_repeat = answers_changed(first, again)
    reorder, n_reorder = answers_changed(first, shuffled)
    return {
        "repeat_changed": repeat,
        "n_repeat": n_repeat,
        "reorder_changed": reorder,
        "n_reorder": n_reorder,
        "reorder_seed": seed,
    }


def bradley_terry_level(
    groups: Sequence[Sequence[tuple]],
    judge: Sequence[Sequence],
    human: Sequence[Sequence],
    *,
    dimension: str,
    resamples: int = RESAMPLES,
    seed: int = 0,
    confidence: float = 0.95,
) -> dict:
    """The ranking a pairwise judge implies against the people's: per group (a Webis topic),
    Bradley–Terry merits fitted (:func:`fit_bradley_terry` with the release's parameters of
    ``dimension``) from the judge's outcomes and from the people's, on the same pairs (those
    the judge answered usably: ``judge[g][k]`` None is left out of both fits).
    ``groups[g][k]``: the (item a, item b) of pair k; outcomes "a", "b" or "tie". The merits
    of every argument of every group are pooled (a topic's merits are on the scale its dummy
    item sets, the same in every topic) and correlated by :func:`ranking_correlation`, each
    figure with a percentile-bootstrap interval over groups (a resample's arguments: each
    drawn group's, as often as it is drawn)."""
    regularization, threshold = WEBIS_PARAMETERS[dimension]
    merits = []  # per group: (judge merits, human merits) of its arguments
    for pairs, j, h in zip(groups, judge, human, strict=True):
        kept = [k for k, x in enumerate(j) if x is not None]
        if not kept:
            continue
        a = [pairs[k][0] for k in kept]
        b = [pairs[k][1] for k in kept]
        fits = [
            fit_bradley_terry(
                a, b, [o[k] for k in kept], regularization=regularization, threshold=threshold
            )
            for o in (j, h)
        ]
        human_by_item = dict(zip(fits[1].items, fits[1].merits, strict=True))
        merits.append((fits[0].merits, np.array([human_by_item[item] for item in fits[0].items])))
    n = sum(len(m[0]) for m in merits)
    if n < 3:
        nan = float("nan")
        empty = {name: {"low": nan, "high": nan} for name in CORRELATIONS}
        return {"correlation": {**{k: nan for k in CORRELATIONS}, "n": n}, "intervals": empty}
    a = np.concatenate([m[0] for m in merits])
    h = np.concatenate([m[1] for m in merits])
    correlation = ranking_correlation(a, h)
    rows = {name: [] for name in CORRELATIONS}
    for batch in resample_counts(len(merits), resamples, seed):
        for counts in batch:
            ja = np.concatenate([np.tile(merits[g][0], c) for g, c in enumerate(counts) if c])
            ha = np.concatenate([np.tile(merits[g][1], c) for g, c in enumerate(counts) if c])
            for name, value in correlations_rows(ja[None], ha[None]).items():
                rows[name].append(value)
    intervals = {}
    for name in CORRELATIONS:
        low, high = _interval(np.concatenate(rows[name]), confidence)
        intervals[name] = {"low": low, "high": high}
    return {"correlation": correlation, "intervals": intervals, "n_groups": len(merits)}
