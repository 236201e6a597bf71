"""argbench's tasks for inspect-ai: ``inspect eval argbench/cqs_gen`` (registered through the
``inspect_ai`` entry point, :mod:`argbench.harness._registry`), one per harness task declared
in :mod:`argbench.tasks`.

Thin wiring over :mod:`argbench.harness.runs`: each sample's score carries its prediction
record (``metadata["record"]``) and the metrics score all records of the run at once (corpus
level), through argbench.scoring. inspect has no log-likelihood request, so a choice task
(ClaimDiff) reads its choices' log-probabilities from the first generated token's top
log-probabilities (the choice words, any case and spacing); a choice outside the top 20 gets
the smallest listed log-probability, an upper bound (docs/harness.md). Generation is greedy
(temperature 0, seed 0, the declared stop sequences), as in the lm-eval tasks."""

from __future__ import annotations

import math

from inspect_ai import Task
from inspect_ai import task as inspect_task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import SampleScore, Score, Target, metric, scorer
from inspect_ai.solver import TaskState, generate

from argbench.harness import checks, runs
from argbench.tasks import task, tasks
from argbench.tasks.kinds import clean_text

# Greedy, as the lm-eval tasks (do_sample: false): without a temperature two runs of one
# model shared 0 of 5 generations. inspect's hf provider also needs -M do_sample=False.
GREEDY = {"temperature": 0.0, "seed": 0}


def _dataset(name: str) -> MemoryDataset:
    t = task(name)
    samples = [
        Sample(
            input=runs.prompt(name, doc),
            id=f"{doc['argbench_id']}:{doc['part']}" if "part" in doc else doc["argbench_id"],
            metadata={"doc": doc},
        )
        for doc in checks.harness_documents(name)  # what scoring needs, checked first
    ]
    return MemoryDataset(samples, name=f"{t.corpus}/{t.config}/{t.split}")


def _records(scores) -> list[dict]:
    """Each score's prediction record (inspect passes Score or SampleScore objects)."""
    return [getattr(s, "score", s).metadata["record"] for s in scores]


def _figure(name: str, metric_name: str, key: str):
    def compute(scores: list[SampleScore]) -> float:  # the signature inspect asks for
        # inspect also computes metrics for its display while samples arrive: before the
        # first scored item (ClaimDiff's dev pairs may come first) the figure is NaN, not an
        # error that ends the run; import-harness scores the records and refuses such a run
        try:
            return runs.figure(name, _records(scores), metric_name, key)
        except runs.NoScoredItem:
            return float("nan")

    return compute


def choice_logprobs(output, choices) -> list[float]:
    """The log-probability of each choice (``[log P(no), log P(yes)]``) from the first
    generated token's top log-probabilities."""
    content = output.choices[0].logprobs.content if output.choices[0].logprobs else []
    if not content:
        raise ValueError("the model returned no log-probabilities (logprobs=True is needed)")
    first = content[0]
    tops = list(first.top_logprobs or []) or [first]
    floor = min(t.logprob for t in tops)
    words = [choice.strip().lower() for choice in choices]
    found: dict[str, list[float]] = {word: [] for word in words}
    for top in tops:
        word = top.token.strip().lower()
        if word in found:
            found[word].append(top.logprob)
    return [math.log(sum(math.exp(x) for x in found[w])) if found[w] else floor for w in words]


def _sample_value(prediction) -> float:
    """The number inspect shows per sample: a choice task's probability, else how many
    questions (or answers) the output gave. The figures are computed from the records
    (``metadata["record"]``); a list or a text as the value made inspect warn once per
    question that it cannot be read as a number."""
    if isinstance(prediction, (int, float)) and not isinstance(prediction, bool):
        return float(prediction)
    if isinstance(prediction, (list, tuple)):
        return float(len(prediction))
    return float(bool(str(prediction or "").strip()))


@scorer(metrics=[])
def _record_scorer(name: str):
    t = task(name)

    async def score(state: TaskState, target: Target) -> Score:
        doc = state.metadata["doc"]
        if t.behaviour.choice:
            output = choice_logprobs(state.output, t.choices)
        else:
            output = state.output.completion
        record = runs.prediction(name, doc, output)
        return Score(
            value=_sample_value(record[t.prediction]),
            answer=clean_text(state.output.completion),
            metadata={"record": record},
        )

    return score


def generate_config(name: str) -> GenerateConfig:
    """The declared generation settings, greedy; a choice task asks for the first token's
    top log-probabilities."""
    t = task(name)
    if t.behaviour.choice:
        # the declared number of top log-probabilities: 20, the most OpenAI-compatible
        # servers return
        top = int(t.generation["logprobs"])
        return GenerateConfig(max_tokens=1, logprobs=True, top_logprobs=top, **GREEDY)
    generation = t.generation
    return GenerateConfig(
        max_tokens=int(generation["max_tokens"]),
        stop_seqs=list(generation.get("stop") or []),
        **GREEDY,
    )


def _make(name: str) -> Task:
    metrics = [
        metric(name=label)(lambda m=metric_name, k=figure.key: _figure(name, m, k))()
        for label, (metric_name, figure) in runs.figures(name).items()
    ]
    return Task(
        dataset=_dataset(name),
        solver=generate(),
        scorer=scorer(metrics=metrics, name=f"argbench_{name}")(lambda: _record_scorer(name))(),
        config=generate_config(name),
        name=name,
    )


def _registered(name: str):
    def make() -> Task:
        return _make(name)

    make.__name__ = make.__qualname__ = name
    make.__doc__ = task(name).description
    return inspect_task(name=name)(make)


# one inspect task per harness task declared (inspect eval argbench/<name>)
INSPECT_TASKS = {name: _registered(name) for name in tasks(harness=True)}
globals().update(INSPECT_TASKS)
