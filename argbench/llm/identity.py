"""Which model is behind an endpoint: what a cached reply and a signature are keyed by.

A chat server answers to any model name, and the same URL may serve another model after a
restart, so neither names the model. In order of strength:

1. ``weights``: the sha256 of the weights file, when argbench serves it, or when the server
   reports a weights path that is a file on this machine (llama-cpp-python's ``/v1/models``
   answers the path when no alias is set; llama-server's ``/props`` has ``model_path``): the
   same bytes under two file names are the same judge;
2. ``named``: an identity the user vouches for (``model_id=`` or ``$ARGBENCH_LLM_MODEL_ID``),
   e.g. to resume a stopped run against a server that reports nothing;
3. ``fingerprint``: what the server reports about itself (model entry, ``meta``, paths,
   ``system_fingerprint``) together with a measured probe: the greedy reply to a fixed prompt
   and its log-probabilities, which differ between models even under one name;
4. ``reported``: the same without log-probabilities: what the server says about itself and
   a short reply, which another model behind the same URL, name and ``/models`` entry can
   give too. It names the judge in the signature, but its replies are not reused across runs
   (no cache key) unless the user names the model (``model_id``): a cache must never hand
   one judge's answers to another;
5. nothing: neither reports nor a probe reply; replies are then not reused across runs.
"""

from __future__ import annotations

import json
import os
import secrets
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from argbench.models import file_sha256
from argbench.signature import short_hash

__all__ = ["MODEL_ID_ENV", "PROBE_PROMPT", "Identity", "resolve_identity"]

MODEL_ID_ENV = "ARGBENCH_LLM_MODEL_ID"
PROBE_PROMPT = "Continue the list with three more words, lower case: apple, river, lantern,"
_PROBE_TOKENS = 6
_REPORT_TIMEOUT = 10.0
# a model entry's fields that say nothing about the model (or change on every start)
_VOLATILE = {"created", "object", "permission", "permissions", "root", "parent"}


@dataclass(frozen=True)
class Identity:
    """``kind`` (weights / named / fingerprint / reported / none), the ``key`` replies are cached under
    (None: no cache), the ``suffix`` a signature adds to the model name, and ``how`` it was
    found (for messages)."""

    kind: str
    key: str | None
    suffix: str
    how: str

    @classmethod
    def weights(cls, digest: str, how: str) -> Identity:
        return cls("weights", f"sha256:{digest}", f"@sha256:{digest[:12]}", how)

    @classmethod
    def named(cls, name: str) -> Identity:
        return cls("named", f"id:{name}", f"@id:{name}", "named by the user")

    @classmethod
    def fingerprint(cls, parts: dict, how: str) -> Identity:
        digest = short_hash(json.dumps(parts, sort_keys=True, ensure_ascii=False), 64)
        return cls("fingerprint", f"fp:{digest}", f"@fp:{digest[:12]}", how)

    @classmethod
    def reported(cls, parts: dict, how: str) -> Identity:
        digest = short_hash(json.dumps(parts, sort_keys=True, ensure_ascii=False), 64)
        return cls("reported", None, f"@fp:{digest[:12]}", how)

    @classmethod
    def unknown(cls) -> Identity:
        # a signature no other run shares: an unidentified model is never the same judge
        return cls("none", None, f"@unidentified:{secrets.token_hex(4)}", "nothing identifies it")


def _get_json(url: str, api_key: str | None) -> object | None:
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {api_key}"})
    try:
        with urllib.request.urlopen(request, timeout=_REPORT_TIMEOUT) as reply:
            return json.loads(reply.read(1 << 20))
    except (OSError, ValueError):
        return None


def _local_weights(value) -> Path | None:
    """A reported weights path that is a file on this machine (the server is local)."""
    if not isinstance(value, str) or not value or len(value) > 4096 or "\0" in value:
        return None
    try:
        path = Path(value).expanduser()
        return path if path.is_file() else None
    except OSError:
        return None


def server_report(base_url: str, model: str, api_key: str | None) -> dict:
    """What the server says about the model it serves: its ``/models`` entry (the one named
    ``model``, else the only one) without volatile fields, and llama-server's ``/props``
    ``model_path``. Empty when the server says nothing beyond echoing the name."""
    report: dict = {}
    listing = _get_json(f"{base_url.rstrip('/')}/models", api_key)
    entries = listing.get("data") if isinstance(listing, dict) else None
    if isinstance(entries, list):
        dicts = [e for e in entries if isinstance(e, dict)]
        named = [e for e in dicts if e.get("id") == model] or (dicts if len(dicts) == 1 else [])
        if named:
            entry = {k: v for k, v in named[0].items() if k not in _VOLATILE}
            if set(entry) - {"id", "owned_by"} or entry.get("id") != model:
                report["models"] = entry  # more than the name we sent, echoed back
    root = base_url.rstrip("/")
    root = root[: -len("/v1")] if root.endswith("/v1") else root
    props = _get_json(f"{root}/props", api_key)
    if isinstance(props, dict) and isinstance(props.get("model_path"), str):
        report["model_path"] = props["model_path"]
    return report


def _probe(endpoint) -> dict | None:
    """The greedy reply to :data:`PROBE_PROMPT` with its top log-probabilities (rounded: a
    restart on other threads may move the last digits), and ``system_fingerprint``."""
    import openai

    messages = [{"role": "user", "content": PROBE_PROMPT}]
    options = {"temperature": 0.0, "max_tokens": _PROBE_TOKENS, "seed": 0}
    for extra in ({"logprobs": True, "top_logprobs": 3}, {}):
        try:
            raw = endpoint.client.with_options(timeout=endpoint.timeout).chat.completions
            body = raw.with_raw_response.create(
                model=endpoint.model, messages=messages, **options, **extra
            ).http_response.text
            data = json.loads(body)
            choice = data["choices"][0]
            text = choice["message"]["content"]
        except openai.APIStatusError:
            continue  # the server does not take logprobs: try without
        except (openai.APIError, ValueError, KeyError, IndexError, TypeError):
            return None
        if not isinstance(text, str) or not text:
            return None
        probe = {"reply": text}
        tokens = ((choice.get("logprobs") or {}).get("content")) or []
        if isinstance(tokens, list) and tokens:
            probe["logprobs"] = [
                [(t.get("token"), round(float(t.get("logprob", 0.0)), 1) + 0.0) for t in top]
                for top in (
                    tok.get("top_logprobs") or [] for tok in tokens if isinstance(tok, dict)
                )
            ]
        if data.get("system_fingerprint"):
            probe["system_fingerprint"] = data["system_fingerprint"]
        return probe
    return None


def resolve_identity(endpoint) -> Identity:
    """The strongest identity of ``endpoint``'s model that can be found (see module docstring)."""
    if endpoint.weights_sha256:
        return Identity.weights(endpoint.weights_sha256, "the weights argbench serves")
    if endpoint.model_id:
        return Identity.named(endpoint.model_id)
    report = {}
    if endpoint.base_url:
        report = server_report(endpoint.base_url, endpoint.model, endpoint.api_key)
        for value in (report.get("model_path"), report.get("models", {}).get("id")):
            path = _local_weights(value)
            if path is not None:
                return Identity.weights(file_sha256(path), f"the weights file {path} it reports")
    probe = _probe(endpoint)
    if probe is None and not report:
        return Identity.unknown()
    how = " and ".join(
        part for part, have in (("what it reports", report), ("a probe reply", probe)) if have
    )
    if not (probe or {}).get("logprobs"):  # nothing measured that another model would not echo
        return Identity.reported({"report": report, "probe": probe}, how)
    return Identity.fingerprint({"report": report, "probe": probe}, how)


def named_from_env(model_id: str | None) -> str | None:
    """``model_id`` as given, else ``$ARGBENCH_LLM_MODEL_ID`` (None when empty)."""
    value = model_id if model_id is not None else os.environ.get(MODEL_ID_ENV)
    if value is not None and (not isinstance(value, str) or not value.strip() or "|" in value):
        raise ValueError(f"llm model_id must be a non-empty name without '|', got {value!r}")
    return value.strip() if value else None
