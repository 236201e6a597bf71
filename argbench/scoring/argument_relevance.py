"""CAM argument relevance (AR precision / recall / F1 over the arguments an answer cites).

Citations are read by :mod:`argbench.citations`; every number is defined in the
``argument_relevance`` metric card.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

from argbench.citations import notebook_citations, parse_citations
from argbench.scoring._checks import check_same_length, check_str, harmonic_f1, mean_or_nan
from argbench.scoring.declaration import Figure, Headline, Metric
from argbench.signature import Signature

MAX_LABEL = 3  # relevance labels are 0 (not relevant) .. 3 (highly relevant)
# the metric's features (see argbench.scoring): one example = one value of each
INPUTS = {"predictions": "string", "references": ["int64"]}

METRIC = Metric(
    inputs=INPUTS,
    columns={"predictions": "answer", "references": "argument_relevance"},
    headline=Headline("f1", "f1", True),
    figures={
        "ar_precision": Figure("precision"),
        "ar_recall": Figure("recall"),
        "ar_f1": Figure("f1"),
    },
)


def argument_relevance(
    predictions: Sequence[str],
    references: Sequence[Sequence[int | None]],
    relevance_threshold: int = 2,
    semantics: str = "strict",
) -> dict:
    """Precision/recall/F1 of the arguments an answer cites against the relevant ones.

    ``references[i][N-1]`` is the relevance label of argument ``[N]`` of answer ``i`` (-1 or
    None: unknown). ``semantics="strict"`` reads citations with :func:`parse_citations` and
    scores an answer that cites nothing as 0/0/0; ``"notebook"`` reads them as the authors'
    notebook does and skips such answers. Both skip answers whose arguments hold no relevant
    one (recall is undefined) and report how many.
    """
    if semantics not in ("strict", "notebook"):
        raise ValueError(f'semantics must be "strict" or "notebook", got {semantics!r}')
    if isinstance(relevance_threshold, bool) or not isinstance(relevance_threshold, int):
        raise TypeError(f"relevance_threshold must be an int, got {relevance_threshold!r}")
    if not 0 <= relevance_threshold <= MAX_LABEL:
        raise ValueError(
            f"relevance_threshold must be a label 0..{MAX_LABEL}, got {relevance_threshold}"
        )
    n = check_same_length(predictions=predictions, references=references)
    per_item: dict[str, list[float | None]] = {"precision": [], "recall": [], "f1": []}
    counts = dict.fromkeys(
        ("n_without_citations", "n_without_relevant", "n_out_of_range", "n_unknown_cited"), 0
    )
    counts["n_unparsed"] = 0
    groups = generated = 0
    for i in range(n):
        answer = check_str("predictions", i, predictions[i])
        labels = references[i]
        if isinstance(labels, (str, bytes)) or not isinstance(labels, Sequence):
            raise TypeError(
                f"references[{i}] must be a list of int labels, got {type(labels).__name__}"
            )
        for j, label in enumerate(labels):
            if label is None:
                continue
            if isinstance(label, bool) or not isinstance(label, numbers.Integral):
                raise TypeError(
                    f"references[{i}][{j}] must be an int label (-1 or None: unknown), "
                    f"got {label!r}"
                )
            if not -1 <= label <= MAX_LABEL:
                raise ValueError(
                    f"references[{i}][{j}]: label {label} outside 0..{MAX_LABEL} (-1 or None: "
                    "unknown), the CAM relevance scale"
                )
        excerpts = parse_citations(
            answer, f"predictions[{i}]"
        )  # descriptive counts use argbench's reading
        groups += len(excerpts)
        generated += sum(e.generated for e in excerpts)
        counts["n_unparsed"] += sum(len(e.unparsed) for e in excerpts)
        if semantics == "strict":
            used = {num for e in excerpts for num in e.numbers}
        else:
            used = {
                num for _, ids in notebook_citations(answer, f"predictions[{i}]") for num in ids
            }
        relevant = {
            j + 1 for j, lab in enumerate(labels) if lab is not None and lab >= relevance_threshold
        }
        known = {j + 1 for j, lab in enumerate(labels) if lab is not None and lab >= 0}
        counts["n_out_of_range"] += sum(1 for u in used if not 1 <= u <= len(labels))
        counts["n_unknown_cited"] += sum(
            1 for u in used if 1 <= u <= len(labels) and u not in known
        )
        if not used:
            counts["n_without_citations"] += 1
        if not relevant:
            counts["n_without_relevant"] += 1
            p = r = f = None
        elif not used:
            p = r = f = None if semantics == "notebook" else 0.0
        else:
            hit = len(used & relevant)
            p, r = hit / len(used), hit / len(relevant)
            f = harmonic_f1(p, r)
        for key, value in (("precision", p), ("recall", r), ("f1", f)):
            per_item[key].append(value)
    scored = {key: [v for v in values if v is not None] for key, values in per_item.items()}
    fields = [("parser", semantics), ("relevant", f">={relevance_threshold}")]
    return {
        **{key: mean_or_nan(values) for key, values in scored.items()},
        "n_answers": n,
        "n_scored": len(scored["f1"]),
        **counts,
        "generated_share": generated / groups if groups else 0.0,
        "signature": Signature("argument_relevance", fields).render(),
        "per_item": per_item,
    }


def notebook_labels(arguments: Sequence[str], labels: Sequence[int | None]) -> list[int | None]:
    """Labels as the authors' notebook sees them (to reproduce its printed numbers).

    The notebook matches ``arg.split('. ')[1]`` -- the text only up to its first ``". "`` --
    against the relevant texts, so an argument of several sentences counts as non-relevant
    (0) unless its first sentence is itself a relevant argument of the list.
    """
    relevant = {a for a, lab in zip(arguments, labels, strict=True) if lab is not None and lab >= 2}
    return [
        lab if ". " not in a else (3 if a.split(". ")[0] in relevant else 0)
        for a, lab in zip(arguments, labels, strict=True)
    ]
