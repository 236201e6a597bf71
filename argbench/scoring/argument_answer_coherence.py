"""CAM argument–answer coherence (AAC): does each cited excerpt follow from the argument it cites?

One decision (1/0) per (excerpt, cited argument) pair, from an NLI cross-encoder, an LLM on an
OpenAI-compatible endpoint, or any callable. Citations are read by :mod:`argbench.citations`.
See ``metrics/argument_answer_coherence/README.md``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import numpy as np

from argbench.citations import notebook_citations, parse_citations
from argbench.embedding import load_cross_encoder, model_signature
from argbench.llm import PromptTemplate, check_on_failure, endpoint_from, settle_judgments
from argbench.scoring.declaration import Headline, Metric
from argbench.signature import Signature, callable_name

# the metric's features (see argbench.scoring): one example = one value of each
INPUTS = {"predictions": "string", "references": ["string"]}

METRIC = Metric(
    inputs=INPUTS,
    columns={"predictions": "answer", "references": "arguments"},
    headline=Headline("aac_by_answer", "aac_by_answer", True),
    argument_lists=True,
)

__all__ = ["argument_answer_coherence", "DEFAULT_PROMPT", "SYSTEM_PROMPT"]

SYSTEM_PROMPT = "You check whether one statement follows logically from another."

DEFAULT_PROMPT = """\
Read the two sentences below. Answer 1 if the second sentence follows from the first one and \
does not contradict it. Otherwise answer 0. Reply with the single digit and nothing else.

Examples:
First: cats are smarter than dogs
Second: cats have more intelligence than dogs
Answer: 1

First: cats are smarter than dogs
Second: dogs are smarter than cats
Answer: 0

First: cats are smarter than dogs
Second: cats are cleaner than dogs
Answer: 0

First: {argument}
Second: {excerpt}
Answer:"""


def _pairs(predictions, references, excerpts):
    """Per answer: (argument number, argument text, excerpt) pairs, and counts of what was left out."""
    per_answer, cited, out_of_range, empty = [], [], 0, 0
    for i, (answer, arguments) in enumerate(zip(predictions, references, strict=True)):
        if not isinstance(answer, str):
            raise TypeError(f"predictions[{i}] must be a str, got {type(answer).__name__}")
        if isinstance(arguments, str) or not isinstance(arguments, Sequence):
            raise TypeError(f"references[{i}] must be a list of argument strings")
        for j, argument in enumerate(arguments):
            if not isinstance(argument, str):
                raise TypeError(f"references[{i}][{j}] must be a str, got {argument!r}")
        if excerpts == "argbench":
            groups = [(e.text, e.numbers) for e in parse_citations(answer, f"predictions[{i}]")]
        else:
            groups = notebook_citations(answer, f"predictions[{i}]")
        rows, any_number = [], False
        for text, numbers in groups:
            for number in numbers:
                any_number = True
                if not 1 <= number <= len(arguments):
                    out_of_range += 1
                elif not text.strip():
                    empty += 1
                else:
                    rows.append((number, arguments[number - 1], text))
        per_answer.append(rows)
        cited.append(any_number)
    return per_answer, cited, out_of_range, empty


def _nli_decisions(pairs, model, entailment_label, batch_size, device):
    encoder = load_cross_encoder(model, device=device)
    id2label = getattr(getattr(encoder, "config", None), "id2label", None) or {}
    names = {int(k): str(v) for k, v in id2label.items()}
    wanted = [i for i, name in names.items() if name.lower() == entailment_label.lower()]
    if len(names) < 2 or len(wanted) != 1:
        raise ValueError(
            f"NLI model {model!r}: cannot find label {entailment_label!r} in its config's "
            f"id2label {names}; pass entailment_label= with the right name"
        )
    if not pairs:
        return []
    logits = np.asarray(
        encoder.predict(
            [list(p) for p in pairs],
            batch_size=batch_size,
            convert_to_numpy=True,
            show_progress_bar=len(pairs) >= 1000,
        )
    )
    if logits.ndim != 2 or logits.shape[1] != len(names):
        raise ValueError(
            f"NLI model {model!r} gave scores of shape {logits.shape}, expected (n, {len(names)})"
        )
    return [int(k == wanted[0]) for k in logits.argmax(axis=1)]


# the digit alone, or after the prompt's own "Answer:" (or "The answer is"), with a final
# period: replies seen from real models. Anything more ("No, the answer is 1.") is rejected.
_REPLY = re.compile(r"(?:(?:the\s+)?answer(?:\s+is)?\s*:?\s*)?([01])\s*\.?", re.IGNORECASE)


def _parse_reply(reply) -> int | None:
    match = _REPLY.fullmatch(reply.strip()) if isinstance(reply, str) else None
    return int(match[1]) if match else None


def _failure(reply) -> tuple:
    """(raw reply, why) for a reply that gave no decision (a str, or an llm.Failed)."""
    if isinstance(reply, str):
        return reply, "unparseable reply"
    return reply.raw, reply.reason


def argument_answer_coherence(
    predictions: Sequence[str],
    references: Sequence[Sequence[str]],
    *,
    judge: str | Callable = "llm",
    model=None,
    entailment_label: str = "entailment",
    llm=None,
    prompt_template: str | None = None,
    excerpts: str = "argbench",
    batch_size: int = 32,
    device=None,
    on_failure: str = "error",
) -> dict:
    """AAC over answers citing numbered arguments (``[N]`` cites ``references[i][N-1]``).

    ``judge``: ``"nli"`` (a CrossEncoder NLI ``model``; 1 when its top label is
    ``entailment_label``, found in the model config's id2label), ``"llm"`` (chat endpoint, see
    :mod:`argbench.llm`; the reply must be 0 or 1, optionally after "Answer:" or "The
    answer is" and before a period) or a callable
    ``(argument, excerpt) -> 0/1``. ``excerpts``: ``"argbench"`` (argbench.citations) or
    ``"notebook"`` (the authors' regex and id parsing). ``on_failure``: an LLM reply that is
    not 0 or 1 raises :class:`argbench.llm.JudgmentError` (``"error"``), or
    (``"incomplete"``) the result says ``complete=False``, ``aac`` covers the judged pairs and
    ``aac_by_answer`` the answers whose every pair was judged.
    """
    if isinstance(predictions, str) or isinstance(references, str):
        raise TypeError("predictions and references must be lists (one item per answer)")
    if len(predictions) != len(references):
        raise ValueError(f"{len(predictions)} predictions but {len(references)} references")
    if not len(predictions):
        raise ValueError("predictions and references are empty: nothing to score")
    check_on_failure(on_failure)
    if excerpts not in ("argbench", "notebook"):
        raise ValueError(f"excerpts must be 'argbench' or 'notebook', got {excerpts!r}")
    per_answer, cited, out_of_range, empty = _pairs(predictions, references, excerpts)
    flat = [(argument, text) for rows in per_answer for _, argument, text in rows]
    unique = list(dict.fromkeys(flat))  # the same (argument, excerpt) pair is judged once
    replies: list = [None] * len(unique)
    if callable(judge):
        decisions = []
        for argument, text in unique:
            value = judge(argument, text)
            if isinstance(value, (bool, np.bool_)):
                value = int(value)
            if value not in (0, 1) or isinstance(value, float):
                raise ValueError(
                    f"judge returned {value!r} for ({argument!r}, {text!r}); expected 0 or 1"
                )
            decisions.append(int(value))
        fields = [("judge", callable_name(judge))]
    elif judge == "nli":
        if model is None:
            raise ValueError("judge='nli' needs model= (a CrossEncoder NLI name, folder or model)")
        decisions = _nli_decisions(unique, model, entailment_label, batch_size, device)
        fields = [("judge", "nli"), ("model", model_signature(model)), ("label", entailment_label)]
    elif judge == "llm":
        template = PromptTemplate(
            DEFAULT_PROMPT if prompt_template is None else prompt_template, ("argument", "excerpt")
        )
        prompts = [template.fill(argument=a, excerpt=e) for a, e in unique]
        endpoint = endpoint_from(llm)
        replies = endpoint.complete(
            prompts,
            system=SYSTEM_PROMPT,
            choices=["0", "1"],
            keep_going=on_failure == "incomplete",
            accept=lambda _, reply: _parse_reply(reply) is not None,  # only answers are cached
        )
        decisions = [_parse_reply(r) for r in replies]
        fields = [("judge", "llm"), *endpoint.signature_fields(template.text, SYSTEM_PROMPT)]
    else:
        raise ValueError(f"judge must be 'nli', 'llm' or a callable, got {judge!r}")

    decided = dict(zip(unique, zip(decisions, replies, strict=True), strict=True))
    fields.append(("excerpts", excerpts))
    pairs_out, answer_means, all_decisions, failed = [], [], [], []
    for i, (rows, has_numbers) in enumerate(zip(per_answer, cited, strict=True)):
        out = []
        for number, argument, text in rows:
            decision, reply = decided[(argument, text)]
            out.append({"argument": number, "excerpt": text, "coherent": decision})
            if decision is None:
                raw, why = _failure(reply)
                failed.append({"answer": i, "argument": number, "reply": raw, "error": why})
            else:
                all_decisions.append(decision)
        pairs_out.append(out)
        if any(p["coherent"] is None for p in out):
            continue  # lost a judgment (on_failure="incomplete"): no mean for this answer
        if out:
            answer_means.append(float(np.mean([p["coherent"] for p in out])))
        elif has_numbers and references[i]:
            answer_means.append(0.0)  # cites only numbers with no argument: 0, as the notebook
        else:
            answer_means.append(None)  # nothing judged: not scored
    by_answer = [m for m in answer_means if m is not None]
    return {
        "aac": float(np.mean(all_decisions)) if all_decisions else float("nan"),
        "aac_by_answer": float(np.mean(by_answer)) if by_answer else float("nan"),
        **settle_judgments(failed, sum(len(rows) for rows in per_answer), on_failure),
        "n_pairs": len(all_decisions),
        "n_answers": len(predictions),
        "n_answers_scored": len(by_answer),
        "n_without_arguments": sum(1 for arguments in references if not arguments),
        "n_out_of_range": out_of_range,
        "n_empty_excerpts": empty,
        "signature": Signature("argument_answer_coherence", fields).render(),
        "pairs": pairs_out,
        "per_item": {"aac_by_answer": answer_means},
    }
