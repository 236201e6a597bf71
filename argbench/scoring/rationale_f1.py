"""ClaimDiff rationales: ERASER IoU-F1 and token F1 over spaCy-equal tokens (:mod:`argbench.tokenize`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from argbench.scoring._checks import (
    check_same_length,
    check_str,
    check_str_list,
    harmonic_f1,
    mean_or_nan,
)
from argbench.scoring.declaration import Headline, Metric
from argbench.signature import Signature
from argbench.tokenize import get_tokenizer, tokenizer_name

# the metric's features (see argbench.scoring): one example = one value of each
INPUTS = {"predictions": ["string"], "references": ["string"]}

METRIC = Metric(
    inputs=INPUTS,
    columns={
        "predictions": "predicted_rationales",
        "references": "rationales",
        "contexts": "claim_a",
    },
    headline=Headline("token_f1", "token_f1", True),
)

Span = tuple[int, int]  # token indices, end exclusive


def _phrase_spans(
    phrases: list[str], context: str, tokens: list[Span], field: str, index: int
) -> set[Span]:
    """Token span of each phrase's first occurrence in the context."""
    spans: set[Span] = set()
    for j, phrase in enumerate(phrases):
        start = context.find(phrase) if phrase else -1
        if start < 0:
            raise ValueError(
                f"{field}[{index}][{j}] = {phrase!r} does not occur in contexts[{index}]; "
                "rationales must be substrings of their context (or pass no contexts)"
            )
        end = start + len(phrase)
        inside = [k for k, (a, b) in enumerate(tokens) if a < end and b > start]
        if inside:
            spans.add((inside[0], inside[-1] + 1))
    return spans


def rationale_f1(
    predictions: Sequence[Sequence[str]],
    references: Sequence[Sequence[str]],
    contexts: Sequence[str] | None = None,
    iou_threshold: float = 0.5,
    tokenizer: str = "argbench",
) -> dict:
    """ERASER partial-match IoU-F1 (micro, macro) and per-example token F1 of rationale phrases.

    With ``contexts`` each phrase becomes the token span of its first occurrence in the
    context (ERASER's positional spans). Without, a phrase is the set of its token strings and
    an example's rationale tokens are the union of those sets (positions unknown).
    """
    tok = get_tokenizer(tokenizer)
    if not 0 <= iou_threshold <= 1:
        raise ValueError(f"iou_threshold must be in [0, 1], got {iou_threshold!r}")
    if contexts is None:
        n = check_same_length(predictions=predictions, references=references)
    else:
        n = check_same_length(predictions=predictions, references=references, contexts=contexts)
    tp = n_pred = n_gold = 0
    macro_p: list[float] = []
    macro_r: list[float] = []
    per_item: dict[str, list[float | None]] = {
        "token_f1": [],
        "token_precision": [],
        "token_recall": [],
    }
    for i in range(n):
        pred = check_str_list("predictions", i, predictions[i])
        gold = check_str_list("references", i, references[i])
        if contexts is not None:
            context = check_str("contexts", i, contexts[i])
            tokens = tok(context)
            pred_units = [
                set(range(*s)) for s in _phrase_spans(pred, context, tokens, "predictions", i)
            ]
            gold_units = [
                set(range(*s)) for s in _phrase_spans(gold, context, tokens, "references", i)
            ]
        else:
            pred_units = _unique_sets(_phrase_tokens(p, tok) for p in pred)
            gold_units = _unique_sets(_phrase_tokens(g, tok) for g in gold)
        # partial match: a predicted span is a hit when its best IoU with a gold span >= threshold
        hits = sum(
            1
            for p in pred_units
            if max((len(p & g) / len(p | g) for g in gold_units), default=0.0) >= iou_threshold
        )
        tp += hits
        n_pred += len(pred_units)
        n_gold += len(gold_units)
        if gold_units:
            macro_r.append(hits / len(gold_units))
        if pred_units:
            macro_p.append(hits / len(pred_units))
        # token level: sets of covered tokens
        pt = set().union(*pred_units)
        gt = set().union(*gold_units)
        p = r = f = None  # no predicted or gold token: not scored
        if pt or gt:
            both = len(pt & gt)
            p = both / len(pt) if pt else 0.0
            r = both / len(gt) if gt else 0.0
            f = harmonic_f1(p, r)
        for key, value in (("token_f1", f), ("token_precision", p), ("token_recall", r)):
            per_item[key].append(value)
    micro_p = tp / n_pred if n_pred else 0.0
    micro_r = tp / n_gold if n_gold else 0.0
    mp = mean_or_nan(macro_p) if macro_p else 0.0
    mr = mean_or_nan(macro_r) if macro_r else 0.0
    return {
        "iou_f1": harmonic_f1(micro_p, micro_r),
        "iou_precision": micro_p,
        "iou_recall": micro_r,
        "iou_f1_macro": harmonic_f1(mp, mr),
        "iou_precision_macro": mp,
        "iou_recall_macro": mr,
        **{key: mean_or_nan(_scored(values)) for key, values in per_item.items()},
        "n_examples": n,
        "n_token_scored": len(_scored(per_item["token_f1"])),
        "signature": Signature(
            "rationale_f1",
            [
                ("tok", tokenizer_name(tokenizer)),
                ("spans", "positions" if contexts is not None else "token-sets"),
                ("iou", f">={float(iou_threshold)!r}"),
            ],
        ).render(),
        "per_item": per_item,
    }


def _scored(values: list) -> list[float]:
    return [v for v in values if v is not None]


def _phrase_tokens(phrase: str, tok: Callable) -> frozenset:
    return frozenset(phrase[a:b] for a, b in tok(phrase) if not phrase[a:b].isspace())


def _unique_sets(sets) -> list[set]:
    """Distinct non-empty sets, first-seen order (ERASER collapses duplicate spans)."""
    return [set(s) for s in dict.fromkeys(s for s in sets if s)]
