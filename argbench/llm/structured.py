"""Structured output: the request fields that hold a judge's reply to one of its labels, and
reading the label back (a reply outside the labels is a failed judgment, never guessed)."""

from __future__ import annotations

import json

from argbench.llm.errors import SHOWN, Failed

__all__ = ["STRUCTURED", "structured_label", "structured_options"]

STRUCTURED = ("off", "json_schema", "json_object", "grammar", "auto")


def _label_schema(choices) -> dict:
    return {
        "type": "object",
        "properties": {"label": {"type": "string", "enum": list(choices)}},
        "required": ["label"],
        "additionalProperties": False,
    }


def _gbnf_literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def structured_options(mode: str, choices) -> dict:
    """The request fields that hold the reply to one of ``choices``."""
    if mode == "json_schema":  # OpenAI, vLLM, llama.cpp's llama-server
        schema = {"name": "judgment", "strict": True, "schema": _label_schema(choices)}
        return {"response_format": {"type": "json_schema", "json_schema": schema}}
    if mode == "json_object":  # llama-cpp-python's server (and llama-server)
        return {"response_format": {"type": "json_object", "schema": _label_schema(choices)}}
    if mode == "grammar":  # llama.cpp GBNF: the reply is the label itself
        grammar = "root ::= " + " | ".join(_gbnf_literal(c) for c in choices)
        return {"extra_body": {"grammar": grammar}}
    raise ValueError(mode)


def structured_label(mode: str, content: str, choices) -> str | Failed:
    """The label of a structured reply, or why the server did not keep to the structure."""
    if mode == "grammar":
        label = content.strip()
    else:
        try:
            label = json.loads(content)["label"]
        except (ValueError, KeyError, TypeError):
            return Failed(
                f"structured output ({mode}) asked, but the reply is not {{label}}",
                content[:SHOWN],
            )
    if label not in choices:
        return Failed(
            f"structured output ({mode}): {label!r} is not one of the labels", content[:SHOWN]
        )
    return label


# the names the tests and older code import
_structured_options, _structured_label = structured_options, structured_label
