"""An LLM that labels one item per request, for a judge card: CAM's argument relevance (§3.4).

A :class:`LabelPrompt` declares what the judge is asked (the template, its placeholders, the
labels a reply may be, a system message); :func:`ask_labels` asks it for every item, on an
OpenAI-compatible endpoint (:mod:`argbench.llm`) or through a callable that returns the
reply text (a test's stub: the same parser reads both). A reply that is not one of the labels
(optionally after the prompt's own "Relevance =" / "Answer:" and before a period) is
unscored: ``None``, never a wrong label.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from argbench.llm import PromptTemplate, endpoint_from
from argbench.signature import Signature, callable_name

__all__ = ["RELEVANCE", "LabelPrompt", "ask_labels", "pairwise_prompt", "parse_label"]


@dataclass(frozen=True)
class LabelPrompt:
    """What a labelling judge is asked: ``name`` (its signature's), ``template`` with
    ``fields`` as ``{placeholders}``, the ``labels`` a reply may be, the ``system`` message."""

    name: str
    template: str
    fields: tuple[str, ...]
    labels: tuple[str, ...]
    system: str | None = None


RELEVANCE = LabelPrompt(
    name="relevance_judge",
    # the CAM paper's Figure 8 (Appendix D), one argument per request, a digit for a reply
    template="""\
You need to evaluate the relevance of an argument comparing two objects. Use the following \
criteria to rate the relevance of the argument from 0 to 3:
- Relevance = 3: Both objects enlisted in the comparison are mentioned in the sentence, and a \
clear argument is provided in favor of one of the objects.
- Relevance = 2: Both objects enlisted in the comparison are present in the sentence, but no \
clear argumentation is given, or the statement is subjective without clear reasoning.
- Relevance = 1: Only one object enlisted in the comparison is mentioned, and some useful \
information, which could hypothetically be used in comparison with the other object, is \
provided.
- Relevance = 0: No objects enlisted in the comparison are mentioned in the sentence, or \
some/all of them are mentioned, but not relevant at all.

Comparison: {object_a} vs {object_b}
Argument: {argument}
Reply with the single digit 0, 1, 2 or 3 and nothing else.
Relevance =""",
    fields=("object_a", "object_b", "argument"),
    labels=("0", "1", "2", "3"),
    system="You rate how relevant an argument is to a comparison of two objects.",
)

# Webis-ArgQuality-20 §4: the question the crowd was asked per quality dimension
PAIRWISE_QUESTIONS = {
    "logical": "Which text has the better logical structure?",
    "rhetorical": "Which text has the better style of speech?",
    "dialectical": "Which text would be more useful in a debate?",
}


def pairwise_prompt(dimension: str) -> LabelPrompt:
    """The pairwise judge's prompt for a Webis quality ``dimension``: the crowd's question
    (the paper's §4), two texts on one topic, a reply of A, B or tie."""
    if dimension not in PAIRWISE_QUESTIONS:
        raise ValueError(
            f"dimension must be one of {sorted(PAIRWISE_QUESTIONS)}, got {dimension!r}"
        )
    return LabelPrompt(
        name="pairwise_judge",
        template=(
            "Two texts argue about the same topic.\n\nText A: {text_a}\n\nText B: {text_b}\n\n"
            f"{PAIRWISE_QUESTIONS[dimension]} Reply with A or B, or tie when neither is "
            "better, and nothing else.\nAnswer:"
        ),
        fields=("text_a", "text_b"),
        labels=("A", "B", "tie"),
        system="You compare the quality of two arguments.",
    )


_PREFIX = r"(?:(?:the\s+)?(?:answer|relevance|better(?:\s+(?:argument|text))?|text)(?:\s+is)?\s*[:=]?\s*)?"


def parse_label(reply, labels: Sequence[str]) -> str | None:
    """The label a reply gives, or None (unscored): the label alone, optionally quoted, after
    the prompt's own "Relevance =" or "Answer:" and before a period; anything more is
    refused (a judge that explains itself is not read for a digit somewhere in the text)."""
    if not isinstance(reply, str):
        return None
    choice = "|".join(re.escape(label) for label in labels)
    match = re.fullmatch(
        rf"\s*{_PREFIX}[\"']?({choice})[\"']?\s*\.?\s*", reply, flags=re.IGNORECASE
    )
    if not match:
        return None
    return next(label for label in labels if label.lower() == match[1].lower())


def ask_labels(
    prompt: LabelPrompt,
    items: Sequence[dict],
    *,
    llm=None,
    judge: Callable[..., str] | None = None,
) -> dict:
    """The judge's label for every item (a dict holding ``prompt.fields``): ``labels`` (a
    label of ``prompt.labels``, or None: unscored), ``replies`` (what came back: the text, or
    the endpoint's failure reason), ``signature`` (the judge's identity). ``judge``: a callable
    ``(**fields) -> reply text`` instead of an endpoint. Equal prompts are asked once."""
    template = PromptTemplate(prompt.template, prompt.fields)
    texts = [template.fill(**{f: str(item[f]) for f in prompt.fields}) for item in items]
    if judge is not None:
        replies = [judge(**{f: item[f] for f in prompt.fields}) for item in items]
        fields = [("judge", callable_name(judge))]
    else:
        endpoint = endpoint_from(llm)
        replies = endpoint.complete(
            texts,
            system=prompt.system,
            choices=list(prompt.labels),
            keep_going=True,
            accept=lambda _, reply: parse_label(reply, prompt.labels) is not None,
        )
        fields = [("judge", "llm"), *endpoint.signature_fields(prompt.template, prompt.system)]
    return {
        "labels": [parse_label(r, prompt.labels) for r in replies],
        "replies": [r if isinstance(r, str) else getattr(r, "reason", repr(r)) for r in replies],
        "signature": Signature(prompt.name, fields).render(),
    }
