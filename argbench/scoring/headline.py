"""The headline figure of each metric, in one table, and what its per-item values are.

Two questions that used to be answered in three places (the results module, the Hub's
eval-results entries, the harness import) and with two meanings:

- which value a leaderboard shows (``value``: a key of the metric's result), and
- which per-item key ``argbench compare`` pairs systems on (``pair``: a key of
  ``result["per_item"]``, or None for a corpus-level figure such as AUROC).

``decomposes``: the headline is the mean of the per-item values that are not None (so a
results file can be checked by recomputing it). ``low``/``high``: the range every per-item
value and the headline lie in (the card defines each).

Here, low in the house (scoring), so results, hub_eval, the harness and the leaderboard all
read it and none defines its own.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["HEADLINES", "Headline", "headline_of", "pair_keys"]


@dataclass(frozen=True)
class Headline:
    value: str  # the result key a leaderboard shows
    pair: str | None  # the per-item key compare pairs on; None: no per-item values
    decomposes: bool  # value == mean of the non-None per_item[pair]
    low: float = 0.0
    high: float = 1.0


HEADLINES: dict[str, Headline] = {
    "argument_relevance": Headline("f1", "f1", True),
    "argument_overlap": Headline("jaccard_text", "jaccard_text", True),
    "rationale_f1": Headline("token_f1", "token_f1", True),
    "cq_reference_match": Headline("score", "score", True),
    "argument_answer_coherence": Headline("aac_by_answer", "aac_by_answer", True),
    # the ClaimDiff paper reports AUROC (Table 2); a ranking figure, no per-item value
    "claim_relation": Headline("auroc", None, False),
}


def headline_of(metric: str) -> Headline:
    """The metric's headline; a metric without one (cr_diversity, annotator_agreement: no
    system score a leaderboard ranks) is an error naming the metrics that have one."""
    try:
        return HEADLINES[metric]
    except KeyError:
        raise ValueError(
            f"{metric} has no headline figure (metrics with one: {', '.join(HEADLINES)})"
        ) from None


def pair_keys() -> dict[str, str]:
    """metric -> the per-item key compare pairs on (results.PRIMARY)."""
    return {metric: h.pair for metric, h in HEADLINES.items() if h.pair is not None}
