"""argbench's tasks for inspect-ai: ``inspect eval argbench/cqs_gen`` (registered through the
``inspect_ai`` entry point, :mod:`argbench.harness._registry`).

Thin declarations over :mod:`argbench.harness.tasks`: each sample's score carries its
prediction record (``metadata["record"]``) and the metrics score all records of the run at
once (corpus level), through argbench.scoring. inspect has no log-likelihood request, so
ClaimDiff reads P(yes) from the first generated token's top log-probabilities (``yes``/``no``
tokens, any case and spacing); an answer outside the top 20 gets the smallest listed
log-probability, an upper bound (docs/harness.md). Generation is greedy (temperature 0, seed
0, the lm-eval tasks' stop sequence), as in the lm-eval tasks."""

from __future__ import annotations

import math

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import Score, Target, metric, scorer
from inspect_ai.solver import TaskState, generate

from argbench.harness import checks, tasks

TOP_LOGPROBS = 20  # the most OpenAI-compatible servers return


def _dataset(name: str) -> MemoryDataset:
    t = tasks.task(name)
    samples = [
        Sample(
            input=tasks.prompt(name, doc),
            id=f"{doc['argbench_id']}:{doc['part']}" if "part" in doc else doc["argbench_id"],
            metadata={"doc": doc},
        )
        for doc in checks.harness_documents(name)  # what scoring needs, checked first
    ]
    return MemoryDataset(samples, name=f"{t.dataset}/{t.config}/{t.split}")


def _records(scores) -> list[dict]:
    """Each score's prediction record (inspect passes Score or SampleScore objects)."""
    return [getattr(s, "score", s).metadata["record"] for s in scores]


def _figure(name: str, metric_name: str, key: str):
    def compute(scores) -> float:
        # inspect also computes metrics for its display while samples arrive: before the
        # first scored item (ClaimDiff's dev pairs may come first) the figure is NaN, not an
        # error that ends the run; import-harness scores the records and refuses such a run
        try:
            return tasks.figure(name, _records(scores), metric_name, key)
        except tasks.NoScoredItem:
            return float("nan")

    return compute


def yes_no_logprobs(output) -> list[float]:
    """``[log P(no), log P(yes)]`` from the first generated token's top log-probabilities."""
    content = output.choices[0].logprobs.content if output.choices[0].logprobs else []
    if not content:
        raise ValueError("the model returned no log-probabilities (logprobs=True is needed)")
    first = content[0]
    tops = list(first.top_logprobs or []) or [first]
    floor = min(t.logprob for t in tops)
    found = {"no": [], "yes": []}
    for top in tops:
        word = top.token.strip().lower()
        if word in found:
            found[word].append(top.logprob)
    return [
        math.log(sum(math.exp(x) for x in found[w])) if found[w] else floor for w in ("no", "yes")
    ]


@scorer(metrics=[])
def _record_scorer(name: str):
    async def score(state: TaskState, target: Target) -> Score:
        doc = state.metadata["doc"]
        if tasks.task(name).dataset == "claimdiff":
            output = yes_no_logprobs(state.output)
        else:
            output = state.output.completion
        record = tasks.prediction(name, doc, output)
        return Score(
            value=record[tasks.task(name).prediction],
            answer=tasks.clean_text(state.output.completion),
            metadata={"record": record},
        )

    return score


def _make(name: str, figures: dict[str, tuple[str, str]], config: GenerateConfig) -> Task:
    metrics = []
    for label, (metric_name, key) in figures.items():
        metrics.append(metric(name=label)(lambda m=metric_name, k=key: _figure(name, m, k))())
    return Task(
        dataset=_dataset(name),
        solver=generate(),
        scorer=scorer(metrics=metrics, name=f"argbench_{name}")(lambda: _record_scorer(name))(),
        config=config,
        name=name,
    )


_RELATION = {k: ("claim_relation", k) for k in ("auroc", "f1", "precision", "recall")}
# Greedy, as the lm-eval tasks (do_sample: false): without a temperature two runs of one
# model shared 0 of 5 generations. inspect's hf provider also needs -M do_sample=False.
GREEDY = {"temperature": 0.0, "seed": 0}
STOP = ["\n\n\n"]  # the lm-eval tasks' `until`
_LOGPROBS = GenerateConfig(max_tokens=1, logprobs=True, top_logprobs=TOP_LOGPROBS, **GREEDY)


_CQ = {k: ("cq_reference_match", k) for k in ("score", "nae_rate", "useful_rate")}
_CQ_CONFIG = GenerateConfig(max_tokens=256, stop_seqs=STOP, **GREEDY)


@task
def cqs_gen() -> Task:
    """Three critical questions per CQs-Gen validation intervention (cq_reference_match)."""
    return _make("cqs_gen", _CQ, _CQ_CONFIG)


@task
def cqs_gen_test() -> Task:
    """The same on the CQs-Gen test interventions: the paper's benchmark split."""
    return _make("cqs_gen_test", _CQ, _CQ_CONFIG)


@task
def claimdiff_s() -> Task:
    """P(claim A strengthens claim B) on ClaimDiff-S test (claim_relation)."""
    return _make("claimdiff_s", _RELATION, _LOGPROBS)


@task
def claimdiff_w() -> Task:
    """P(claim A weakens claim B) on ClaimDiff-W test (claim_relation)."""
    return _make("claimdiff_w", _RELATION, _LOGPROBS)


@task
def cam_answers() -> Task:
    """A comparative answer citing the numbered arguments (argument_relevance, overlap)."""
    figures = {
        "ar_precision": ("argument_relevance", "precision"),
        "ar_recall": ("argument_relevance", "recall"),
        "ar_f1": ("argument_relevance", "f1"),
        "overlap_jaccard": ("argument_overlap", "jaccard_text"),
    }
    return _make("cam_answers", figures, GenerateConfig(max_tokens=400, stop_seqs=STOP, **GREEDY))
