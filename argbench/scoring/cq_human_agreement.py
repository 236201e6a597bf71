"""How far the reference-based CQs-Gen evaluation agrees with human labels (the paper's §5-6,
Figures 3, 4 and 7), on any labelled questions.

The labels come from :func:`~argbench.scoring.cq_reference_match.cq_reference_match` (its
matcher, one implementation) and the agreement from
:func:`~argbench.scoring.annotator_agreement.cohen_kappa`: Cohen's κ between the metric's label
and the human label of each question, *not able to evaluate* (NAE) kept as a category of its
own, as the authors' ``eval-experiments/compare_evals.py`` does (a question the metric cannot
evaluate counts as a disagreement). See ``docs/cq_human_agreement.md``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from argbench.constants import CQS_GEN_STS_MODEL
from argbench.embedding import Embedder
from argbench.scoring.annotator_agreement import cohen_kappa
from argbench.scoring.cq_reference_match import (
    ISSUE,
    LABELS,
    NAE,
    _label_name,
    check_threshold,
    cq_reference_match,
    threshold_field,
)
from argbench.signature import Signature

__all__ = ["cq_human_agreement", "label_agreement", "leave_one_submission_out"]

CATEGORIES = [*LABELS, NAE]


def label_agreement(predicted: Sequence[str], human: Sequence, label_names=LABELS) -> dict:
    """Cohen's κ, NAE rate, accuracy and confusion matrix of flat label lists.

    ``predicted``: the metric's labels (names, NAE allowed; ``evaluation_issue``, an LLM reply
    that could not be used, is left out of every figure and counted in ``n_unscored``);
    ``human``: names or ClassLabel indices of ``label_names``. κ is undefined (NaN) when both sides use one and the same
    label for every question."""
    if len(predicted) != len(human):
        raise ValueError(f"{len(predicted)} predicted labels but {len(human)} human labels")
    if not len(predicted):
        raise ValueError("no labelled questions: nothing to compare")
    names = list(label_names)
    categories = [*names, NAE]
    truth = [_label_name(h, names, f"human[{i}]") for i, h in enumerate(human)]
    for i, p in enumerate(predicted):
        if p not in categories and p != ISSUE:
            raise ValueError(f"predicted[{i}]: label {p!r} is not one of {categories}")
    # a judgment the judge gave no usable reply for is unscored: left out, never a disagreement
    n_all = len(predicted)
    kept = [i for i, p in enumerate(predicted) if p != ISSUE]
    if not kept:  # no figure to give: undefined, not zero (no judgment counts as wrong)
        return {
            "kappa": float("nan"),
            "nae_rate": float("nan"),
            "accuracy": float("nan"),
            "n": 0,
            "n_unscored": n_all,
            "unscored_rate": 1.0,
            "confusion": {
                "labels": categories,
                "matrix": [[0] * len(categories)] * len(categories),
            },
        }
    predicted, truth = [predicted[i] for i in kept], [truth[i] for i in kept]
    code = {name: k for k, name in enumerate(categories)}
    x = [code[t] for t in truth]
    y = [code[p] for p in predicted]
    matrix = np.zeros((len(categories), len(categories)), dtype=int)
    np.add.at(matrix, (x, y), 1)
    nae = sum(1 for p in predicted if p == NAE)
    return {
        "kappa": cohen_kappa(x, y, categories=list(range(len(categories)))),
        "nae_rate": nae / len(predicted),
        "accuracy": float(np.trace(matrix)) / len(predicted),
        "n": len(predicted),
        "n_unscored": n_all - len(predicted),
        "unscored_rate": (n_all - len(predicted)) / n_all,
        # rows: human label; columns: the metric's label (NAE last)
        "confusion": {"labels": categories, "matrix": matrix.tolist()},
    }


def _check_nested(questions, human_labels, references) -> None:
    if not len(questions) == len(human_labels) == len(references):
        raise ValueError(
            f"{len(questions)} question lists, {len(human_labels)} label lists and "
            f"{len(references)} reference lists: one of each per intervention"
        )
    for i, (qs, hs) in enumerate(zip(questions, human_labels, strict=True)):
        if isinstance(qs, str) or len(qs) != len(hs):
            raise ValueError(
                f"intervention {i}: {len(qs)} questions but {len(hs)} human labels "
                "(a list of questions and one label per question)"
            )


def cq_human_agreement(
    questions: Sequence[Sequence[str]],
    human_labels: Sequence[Sequence],
    references: Sequence,
    *,
    thresholds: Sequence[float] = (0.65,),
    matcher="sts",
    model=CQS_GEN_STS_MODEL,
    label_names: Sequence[str] = LABELS,
    **match_options,
) -> dict:
    """Agreement of the reference-based labels with human labels.

    ``questions[i]``: the questions (any number) generated for intervention i, labelled by
    people with ``human_labels[i]``; ``references[i]``: its reference questions, as
    ``cq_reference_match`` takes them. The STS matcher runs once and every threshold of
    ``thresholds`` is applied to the same similarities (strict ``>``, as the metric); another
    matcher (``"llm"``, a callable) has no threshold and gives one result.

    Returns ``by_threshold`` (threshold -> :func:`label_agreement`; key ``None`` for a
    matcher without threshold), ``signature`` (the matcher's, threshold left out) and
    ``labels`` (the metric's label per question at each threshold)."""
    _check_nested(questions, human_labels, references)
    if isinstance(thresholds, (str, bytes)) or not hasattr(thresholds, "__iter__"):
        raise TypeError(f"thresholds must be a sequence of cosines, got {thresholds!r}")
    thresholds = list(thresholds)
    if matcher == "sts" and not thresholds:
        raise ValueError("thresholds is empty: give at least one cosine, e.g. (0.65,)")
    for i, threshold in enumerate(thresholds):
        check_threshold(threshold, f"thresholds[{i}]")
    kept = [i for i, qs in enumerate(questions) if len(qs)]
    if not kept:
        raise ValueError("no questions to compare")
    sts = matcher == "sts"
    matched = cq_reference_match(
        [list(questions[i]) for i in kept],
        [references[i] for i in kept],
        matcher=matcher,
        model=model,
        threshold=-1.0 if sts else match_options.pop("threshold", 0.65),
        label_names=label_names,
        max_questions="all",  # every question is labelled: the study compares labels
        **match_options,
    )
    raw = [label for row in matched["labels"] for label in row]
    human = [h for i in kept for h in human_labels[i]]
    by_threshold, labels = {}, {}
    if sts:
        sims = [s for row in matched["similarities"] for s in row]
        for threshold in thresholds:
            labels[threshold] = [
                label if sim > threshold else NAE for label, sim in zip(raw, sims, strict=True)
            ]
    else:
        labels[None] = raw
    for threshold, predicted in labels.items():
        by_threshold[threshold] = label_agreement(predicted, human, label_names)
    signature = Signature.parse(matched["signature"])
    if sts:
        signature = signature.replace(thr="swept")
    return {
        "by_threshold": by_threshold,
        "labels": labels,
        "signature": signature.render(),
        "n_questions": len(human),
    }


def extended_references(interventions: Sequence[dict]) -> list[list[dict]]:
    """Each row's ``references``, checked to carry ``submission`` (-1: an original reference;
    k >= 0: a question of submission k), as ``cqs_gen`` config ``extended`` gives them."""
    rows = []
    for i, row in enumerate(interventions):
        refs = row.get("references") if isinstance(row, dict) else None
        if not refs or any("submission" not in r for r in refs):
            raise ValueError(
                f"interventions[{i}]: needs 'references' whose items carry 'submission' "
                "(-1 for an original reference), e.g. cqs_gen config 'extended'"
            )
        rows.append(refs)
    return rows


def leave_one_submission_out(
    interventions: Sequence[dict],
    *,
    batch_size: int = 5,
    threshold: float = 0.65,
    matcher="sts",
    model=CQS_GEN_STS_MODEL,
    label_names: Sequence[str] = LABELS,
    **match_options,
) -> list[dict]:
    """The paper's Fig. 4 protocol on held-out labelled submissions: each submission in turn
    is evaluated against the original references plus the other submissions' questions,
    added in batches of ``batch_size`` per intervention (file order); κ and NAE rate are
    pooled over the held-out submissions at each step.

    ``interventions``: rows whose ``references`` carry ``submission`` (-1: an original
    reference; k >= 0: a labelled question of submission k), as ``cqs_gen`` config
    ``extended`` gives them. Returns one dict per step: ``added`` (references added per
    intervention, at most), ``kappa``, ``nae_rate``, ``n`` (questions) and ``confusion``."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    if matcher == "sts":
        if not isinstance(model, Embedder):  # load once, reuse in every step
            options = ("revision", "cache_dir", "batch_size", "device")
            model = Embedder(
                model, **{k: match_options.pop(k) for k in options if k in match_options}
            )
    rows = extended_references(interventions)
    submissions = sorted({r["submission"] for refs in rows for r in refs} - {-1})
    if len(submissions) < 2:
        raise ValueError("leave-one-out needs at least two submissions")
    most = max(
        sum(1 for r in refs if r["submission"] not in (-1, s)) for refs in rows for s in submissions
    )
    steps = range(0, -(-most // batch_size) + 1)
    curve = []
    for step in steps:
        predicted, human = [], []
        for held in submissions:
            questions, labels, references = [], [], []
            for refs in rows:
                mine = [r for r in refs if r["submission"] == held]
                if not mine:
                    continue
                others = [r for r in refs if r["submission"] not in (-1, held)]
                base = [r for r in refs if r["submission"] == -1]
                questions.append([r["cq"] for r in mine])
                labels.append([r["label"] for r in mine])
                references.append(base + others[: step * batch_size])
            matched = cq_reference_match(
                questions,
                references,
                matcher=matcher,
                model=model,
                threshold=threshold,
                label_names=label_names,
                max_questions="all",
                **match_options,
            )
            predicted += [label for row in matched["labels"] for label in row]
            human += [h for hs in labels for h in hs]
        result = label_agreement(predicted, human, label_names)
        curve.append({"added": min(step * batch_size, most), **result})
    signature = Signature.parse(matched["signature"])
    if matcher == "sts":
        signature = signature.replace(thr=threshold_field(threshold))
    for point in curve:
        point["signature"] = signature.render()
    return curve
