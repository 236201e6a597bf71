"""What a judge run reports when something goes wrong: a stopped run, failed judgments, and
one request that gave no usable reply (with its cause whole)."""

from __future__ import annotations

import json
from dataclasses import dataclass

__all__ = ["Failed", "JudgmentError", "LLMError", "rejection_cause", "reply_text", "retry_after"]

SHOWN = 300  # characters of a raw reply body kept for the report
_CAUSE_LIMIT = 4000  # a server's own error message is shown whole up to this length


class LLMError(RuntimeError):
    """The run was stopped: the endpoint refused us, stayed unreachable or stopped answering."""


class JudgmentError(RuntimeError):
    """Some judgments failed (a reply that does not parse, or a request with no usable reply)."""


@dataclass(frozen=True)
class Failed:
    """A request that gave no reply text: why, and what came back (shortened), for the report."""

    reason: str
    raw: str | None = None


def rejection_cause(body: str) -> str:
    """The server's own message in an error body (``error.message``, ``detail``, ``message``,
    ...), whole: a validation error names the field at fault, often past 120 characters."""
    text = body.strip()
    try:
        data = json.loads(text)
    except ValueError:
        return text[:_CAUSE_LIMIT]
    for _ in range(3):  # {"error": {"message": ...}}, {"detail": [...]}, {"message": ...}
        if isinstance(data, dict):
            inner = next(
                (data[k] for k in ("error", "detail", "message", "msg") if data.get(k)), None
            )
            if inner is None:
                break
            data = inner
        else:
            break
    if isinstance(data, str):
        return data[:_CAUSE_LIMIT]
    return json.dumps(data, ensure_ascii=False)[:_CAUSE_LIMIT]


# words of a server's message that say the request itself is at fault: sent again, it is
# refused again (a json_schema the server cannot compile, an unknown field, a bad value)
_VALIDATION_WORDS = (
    "validation",
    "invalid",
    "unsupported",
    "not supported",
    "unrecognized",
    "unknown field",
    "extra inputs",
    "must be",
    "expected",
    "schema",
    "grammar",
    "parse",
)


def is_rejection(status: int, body: str) -> bool:
    """A 5xx whose message says the request is invalid: retrying would only repeat it."""
    cause = rejection_cause(body).lower()
    return status >= 500 and any(word in cause for word in _VALIDATION_WORDS)


def retry_after(response) -> float | None:
    """The wait a 429/503 asks for (``retry-after-ms`` or ``retry-after``), if any."""
    headers = getattr(response, "headers", None) or {}
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        try:
            return max(0.0, float(headers[name]) / scale)
        except (KeyError, TypeError, ValueError):
            continue
    return None


def reply_text(body: str) -> str | Failed:
    """The message content of a chat-completion body, or why there is none."""
    try:
        data = json.loads(body)
    except ValueError:
        return Failed("HTTP 200 but the body is not JSON", body[:SHOWN])
    try:
        content = data["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return Failed("HTTP 200 but no choices[0].message.content", body[:SHOWN])
    if not isinstance(content, str):
        return Failed("the reply message has no text content", body[:SHOWN])
    return content
