"""Label sets, sentinel values and protocol constants of the corpora, shared by loaders,
scoring and reproduction."""

from __future__ import annotations

# CQs-Gen: reference-question labels, in the order of the cqs_gen ClassLabel
CQ_LABELS = ("Useful", "Unhelpful", "Invalid")
# CQs-Gen: the sentence-transformers model of the paper's STS matching (and its Space's)
CQS_GEN_STS_MODEL = "stsb-mpnet-base-v2"

# Webis-ArgQuality-20: quality dimensions (the webis_argquality20 ClassLabel order) and the
# placeholders the release writes where a score does not exist
WEBIS_DIMENSIONS = ("rhetorical", "logical", "dialectical")
WEBIS_NON_ARGUMENT = -4.0  # every score column of a non-argument
WEBIS_NEVER_COMPARED = -3.0  # the quality columns of an argument that occurs in no judgment

# Pairwise outcomes: the order of webis_argquality20's ClassLabel `winner`
PAIRWISE_OUTCOMES = ("a", "b", "tie")

# LLM judges (argbench.llm.ChatEndpoint): the options that say how to reach and pace the
# servers, not what judges; two runs that differ only in these judge alike (the signature
# names the model by its identity), so the shards of one run may set them apart
LLM_CONNECTION_OPTIONS = (
    "base_url",
    "api_key",
    "timeout",
    "max_retries",
    "stall_timeout",
    "max_workers",
    "progress",
    "progress_every",
    "cache_dir",
)
# options never written to a file (a run's record): read from the environment instead
LLM_SECRET_OPTIONS = ("api_key",)

# Judge cards (argbench judge-card --task): the people's labels a judge is checked against.
# Per card: what it holds, whether an STS matcher can be its judge (else an LLM only), the
# options that take its sample (the command refuses the others before any work), and the function that builds it (``module:function``, imported when the card is made: the
# command line reads this table without importing the leaderboard).
JUDGE_CARD_TASKS = {
    "cqs_gen": {
        "help": "CQs-Gen's 1,528 labelled shared-task questions and §6.1's ranking of the 15 "
        "submissions (an STS matcher or an LLM)",
        "sts": True,
        "sample": ("interventions", "submissions"),
        "build": "argbench.leaderboard.judge_cards:cqs_gen_card",
    },
    "cam_relevance": {
        "help": "CAM §3.4: an LLM labelling argument relevance 0-3 against the experts' "
        "labels of the expert sheets' 467 sentences (26 object pairs)",
        "sts": False,
        "sample": ("items",),
        "build": "argbench.leaderboard.judge_cards:relevance_card",
    },
    **{
        f"webis_{dimension}": {
            "help": f"Webis-ArgQuality-20, {dimension} quality: an LLM judging which of two "
            "arguments is better against the crowd's 13,952 pairwise judgments, and the "
            "Bradley-Terry merits fitted from its judgments against those from the people's",
            "sts": False,
            "sample": ("items",),
            "build": "argbench.leaderboard.judge_cards:webis_pairwise_card",
            "options": {"dimension": dimension},
        }
        for dimension in WEBIS_DIMENSIONS
    },
}
