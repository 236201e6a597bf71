"""ClaimDiff relation classification (Tables 2 and 4): AUROC from scores, and F1 / precision /
recall of the positive class at a threshold given or chosen to maximise F1 on development data.

The curve points and the AUROC follow scikit-learn's ``precision_recall_curve`` and
``roc_auc_score`` (same values, ties included) without depending on it.
See ``metrics/claim_relation/README.md``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from argbench.scoring._checks import as_plain, check_same_length, harmonic_f1
from argbench.scoring.declaration import Figure, Headline, Metric
from argbench.signature import Signature

# the metric's features (see argbench.scoring): one example = one value of each
INPUTS = {"predictions": "float64", "references": "int64"}

# the ClaimDiff paper reports AUROC (Table 2): a ranking figure, no per-item value
METRIC = Metric(
    inputs=INPUTS,
    columns={"predictions": "score", "references": "label"},
    headline=Headline("auroc", None, False),
    figures={key: Figure(key) for key in ("auroc", "f1", "precision", "recall")},
    curve=True,
)

__all__ = [
    "best_f1_threshold",
    "claim_relation",
    "precision_recall_curve",
    "roc_auc",
]


def _labels(field: str, values) -> np.ndarray:
    out = np.empty(len(values), dtype=np.int8)
    for i, value in enumerate(values):
        if isinstance(value, (bool, np.bool_)):
            value = int(value)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if not isinstance(value, (int, np.integer)) or value not in (0, 1):
            raise ValueError(f"{field}[{i}] must be 0 or 1, got {value!r}")
        out[i] = value
    return out


def _scores(field: str, values) -> np.ndarray:
    for i, value in enumerate(values):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
            raise TypeError(f"{field}[{i}] must be a number (a score), got {value!r}")
        if not math.isfinite(value):
            raise ValueError(f"{field}[{i}] must be finite, got {value!r}")
    return np.asarray(values, dtype=float)


def roc_auc(labels, scores) -> float:
    """Area under the ROC curve as the Mann–Whitney rank statistic with average ranks for
    ties (a tied positive–negative pair counts one half), equal to sklearn's roc_auc_score.
    NaN when ``labels`` hold one class only (sklearn raises there)."""
    labels, scores = np.asarray(labels), np.asarray(scores, dtype=float)
    n_pos = int(labels.sum())
    n_neg = len(labels) - n_pos
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    order = np.argsort(scores, kind="mergesort")
    ordered = scores[order]
    # average rank (1-based) of each run of equal scores
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    ends = np.r_[starts[1:], len(ordered)]
    ranks = np.empty(len(scores))
    ranks[order] = np.repeat((starts + ends + 1) / 2, ends - starts)
    u = ranks[labels == 1].sum() - n_pos * (n_pos + 1) / 2
    return float(u / (n_pos * n_neg))


def precision_recall_curve(labels, scores) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(precision, recall, thresholds) as sklearn's precision_recall_curve: one point per
    distinct score ``t`` (positive when ``score >= t``), by increasing threshold, then the
    point (precision 1, recall 0) with no threshold."""
    labels, scores = np.asarray(labels), np.asarray(scores, dtype=float)
    order = np.argsort(-scores, kind="mergesort")
    scores, labels = scores[order], labels[order]
    last_of_run = np.r_[np.flatnonzero(scores[1:] != scores[:-1]), len(scores) - 1]
    tps = np.cumsum(labels)[last_of_run].astype(float)
    predicted = last_of_run + 1.0
    precision = tps / predicted
    recall = tps / tps[-1] if tps[-1] else np.ones_like(tps)
    return (
        np.r_[precision[::-1], 1.0],
        np.r_[recall[::-1], 0.0],
        scores[last_of_run][::-1],
    )


def best_f1_threshold(labels, scores) -> tuple[float, float]:
    """(threshold, F1): the curve threshold with the highest F1 on these (development) data;
    among equal F1 the highest threshold."""
    precision, recall, thresholds = precision_recall_curve(labels, scores)
    p, r = precision[:-1], recall[:-1]
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = np.where(p + r > 0, 2 * p * r / (p + r), 0.0)
    best = len(f1) - 1 - int(np.argmax(f1[::-1]))  # last maximum = highest threshold
    return float(thresholds[best]), float(f1[best])


def _prf(labels: np.ndarray, predicted: np.ndarray) -> dict:
    tp = int((labels & predicted).sum())
    n_pred, n_pos = int(predicted.sum()), int(labels.sum())
    precision = tp / n_pred if n_pred else 0.0
    recall = tp / n_pos if n_pos else 0.0
    return {
        "f1": harmonic_f1(precision, recall),
        "precision": precision,
        "recall": recall,
        "n_predicted_positive": n_pred,
    }


def _all_zero_one(values) -> bool:
    try:
        array = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        return False
    return array.ndim == 1 and array.size > 0 and bool(np.isin(array, (0.0, 1.0)).all())


def claim_relation(
    predictions: Sequence,
    references: Sequence,
    threshold: float | None = None,
    dev_predictions: Sequence | None = None,
    dev_references: Sequence | None = None,
    hard_labels: bool = False,
    curve: bool = True,
) -> dict:
    """Relation classification scores of one relation (ClaimDiff-S or -W), label 1 positive.

    ``predictions`` are scores (higher = more likely positive) unless ``hard_labels`` (0/1
    decisions, as zero-shot generation gives: AUROC is then undefined, NaN). A score is a
    positive decision when ``score >= threshold``; ``threshold`` is given, or chosen on
    ``dev_predictions`` / ``dev_references`` to maximise F1 (the paper's model selection).
    """
    # torch tensors, numpy arrays, pandas Series, datasets columns: as Python values
    predictions, references = as_plain(predictions), as_plain(references)
    dev_predictions, dev_references = as_plain(dev_predictions), as_plain(dev_references)
    n = check_same_length(predictions=predictions, references=references)
    labels = _labels("references", references)
    result: dict = {"n_examples": n, "n_positive": int(labels.sum())}
    dev_given = dev_predictions is not None or dev_references is not None
    if not hard_labels and threshold is None and not dev_given and _all_zero_one(predictions):
        # 0/1 predictions and no threshold: decisions, as evaluate's evaluator passes them
        # (label ids); the signature says hard-labels
        hard_labels = True
    if hard_labels:
        if threshold is not None or dev_given:
            raise ValueError("hard_labels=True takes no threshold and no development data")
        decided = _labels("predictions", predictions).astype(bool)
        return {
            "auroc": float("nan"),
            **_prf(labels.astype(bool), decided),
            "threshold": None,
            **result,
            "signature": _signature("hard-labels", None, "none"),
        }
    scores = _scores("predictions", predictions)
    if dev_given:
        if threshold is not None:
            raise ValueError("give threshold= or development data (dev_predictions), not both")
        if dev_predictions is None or dev_references is None:
            raise ValueError("threshold selection needs both dev_predictions and dev_references")
        check_same_length(dev_predictions=dev_predictions, dev_references=dev_references)
        dev_labels = _labels("dev_references", dev_references)
        if not dev_labels.any():
            raise ValueError("dev_references has no positive example: F1 cannot choose a threshold")
        threshold, result["dev_f1"] = best_f1_threshold(
            dev_labels, _scores("dev_predictions", dev_predictions)
        )
    elif threshold is None:
        raise ValueError(
            "scores need a threshold: pass threshold=, or dev_predictions and dev_references "
            "to choose it (or hard_labels=True for 0/1 decisions)"
        )
    elif isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise TypeError(f"threshold must be a number, got {threshold!r}")
    elif not math.isfinite(threshold):
        raise ValueError(f"threshold must be a finite number, got {threshold!r}")
    out = {
        "auroc": roc_auc(labels, scores),
        **_prf(labels.astype(bool), scores >= threshold),
        "threshold": float(threshold),
        **result,
        "signature": _signature("scores", threshold, "dev-max-f1" if dev_given else "given"),
    }
    if curve:
        precision, recall, thresholds = precision_recall_curve(labels, scores)
        out["pr_curve"] = {
            "precision": precision.tolist(),
            "recall": recall.tolist(),
            "thresholds": thresholds.tolist(),
        }
    return out


def _signature(decisions: str, threshold, chosen: str) -> str:
    """decisions (scores or hard labels), the threshold applied (``>=``) and where it came
    from: given, or chosen on development data (then the value depends on that data)."""
    thr = "none" if threshold is None else f">={float(threshold)!r}"
    fields = [("decisions", decisions), ("thr", thr), ("thr_from", chosen)]
    return Signature("claim_relation", fields).render()


def draw_pr_curve(ax, result: dict, label: str, color=None) -> None:
    """Draw ``result["pr_curve"]`` (a claim_relation result) on a matplotlib axis, as a step
    curve, with its operating point (precision, recall at ``result["threshold"]``) marked."""
    curve = result["pr_curve"]
    name = f"{label} (AUROC {result['auroc']:.3f})"
    (line,) = ax.plot(
        curve["recall"], curve["precision"], drawstyle="steps-post", label=name, color=color
    )
    ax.plot(
        [result["recall"]],
        [result["precision"]],
        marker="o",
        color=line.get_color(),
        linestyle="none",
    )
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
