"""Metric signatures: one string naming everything that can change a metric's number.

Modelled on sacrebleu's signatures: ``name|field:value|...|v:<argbench version>``. Each
scoring function builds its own from ordered (field, value) pairs (the fields are listed in
each metric card); a figure cited with its signature can be recomputed, and two results are
comparable only when their signatures agree. Values are rendered here, in one place, so the
same settings give the same string on every machine; ``|`` and ``%`` inside values are
percent-escaped so that :meth:`Signature.parse` gives back what was rendered.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from argbench import _version

__all__ = ["SYSTEM_FIELDS", "Signature", "callable_name", "measurement", "short_hash"]

VERSION_FIELD = "v"


def short_hash(text: str, length: int = 8) -> str:
    """The first ``length`` hex digits of the sha256 of ``text`` (UTF-8): prompts, rule sets."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:length]


def callable_name(function) -> str:
    """``callable:<module>.<qualname>``: how a signature names a judge argbench cannot see into."""
    module = getattr(function, "__module__", None) or "?"
    name = getattr(function, "__qualname__", None) or type(function).__qualname__
    return f"callable:{module}.{name}"


def _text(value) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return repr(value)  # shortest round-tripping form: 0.65, not 0.6500000000000001
    if isinstance(value, (list, tuple)):
        return ",".join(_text(v) for v in value)
    return str(value)


def _escape(text: str) -> str:
    return text.replace("%", "%25").replace("|", "%7C")


def _unescape(text: str) -> str:
    return text.replace("%7C", "|").replace("%25", "%")


def _identity(value: str | None) -> str | None:
    """What makes a field value the same: a model's content hash without its name (a model
    folder's ``@folder-sha256:``, a weights file's ``@sha256:``; see :mod:`argbench.models`)."""
    if value is not None:
        for marker in ("@folder-sha256:", "@sha256:"):
            name, at, rest = value.rpartition(marker)
            if at and name:
                return at[1:] + rest
    return value


class Signature:
    """``Signature("cq_reference_match", [("matcher", "sts"), ("thr", ">0.65")])``.

    Field order is part of the signature (the scoring function fixes it); the argbench
    version is appended as ``v`` unless given."""

    def __init__(self, name: str, fields: Iterable[tuple[str, object]], version: str | None = None):
        if not name or any(c in name for c in "|:"):
            raise ValueError(f"signature name {name!r} must be non-empty without '|' or ':'")
        self.name = name
        self.fields: dict[str, str] = {}
        for key, value in fields:
            if not key or any(c in key for c in "|:") or key == VERSION_FIELD:
                raise ValueError(
                    f"signature field {key!r}: no '|' or ':', and {VERSION_FIELD!r} is the version"
                )
            if key in self.fields:
                raise ValueError(f"signature field {key!r} given twice")
            self.fields[key] = _text(value)
        self.version = str(_version.__version__ if version is None else version)

    def render(self) -> str:
        parts = [self.name, *(f"{k}:{_escape(v)}" for k, v in self.fields.items())]
        return "|".join([*parts, f"{VERSION_FIELD}:{_escape(self.version)}"])

    __str__ = render

    def __repr__(self) -> str:
        return f"Signature({self.render()!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Signature) and self.render() == other.render()

    def __hash__(self) -> int:
        return hash(self.render())

    def replace(self, **changes) -> Signature:
        """This signature with some field values changed (same order; new fields at the end)."""
        fields = {**self.fields, **changes}
        return Signature(self.name, fields.items(), version=self.version)

    @classmethod
    def parse(cls, text: str) -> Signature:
        """The signature a rendered string came from (the inverse of :meth:`render`)."""
        if not isinstance(text, str) or "|" not in text:
            raise ValueError(f"not a signature: {text!r}")
        name, *parts = text.split("|")
        fields = []
        for part in parts:
            key, sep, value = part.partition(":")
            if not sep:
                raise ValueError(f"signature {text!r}: part {part!r} is not field:value")
            fields.append((key, _unescape(value)))
        if not fields or fields[-1][0] != VERSION_FIELD:
            raise ValueError(
                f"signature {text!r} does not end with the version ({VERSION_FIELD}:...)"
            )
        *fields, (_, version) = fields
        return cls(name, fields, version=version)

    def differences(self, other: Signature) -> list[tuple[str, str | None, str | None]]:
        """(field, this value, other value) for every field that differs (``name`` and ``v``
        included); None where a field is absent from one side. A local model folder's
        ``<folder name>@folder-sha256:<hex>`` and a weights file's ``<stem>@sha256:<hex>``
        count by the hash: the same files under another name are the same model."""
        out = []
        if self.name != other.name:
            out.append(("name", self.name, other.name))
        for key in dict.fromkeys([*self.fields, *other.fields]):
            mine, theirs = self.fields.get(key), other.fields.get(key)
            if _identity(mine) != _identity(theirs):
                out.append((key, mine, theirs))
        if self.version != other.version:
            out.append((VERSION_FIELD, self.version, other.version))
        return out


# fields a harness import adds (argbench.harness.checks): how the system produced its outputs
# (chat template, decoding, output length, how a choice was read), not how they were scored
SYSTEM_FIELDS = ("input", "decode", "max_tok", "method")


def measurement(text: str, *, identity: bool = True) -> str:
    """What a signature says about the scoring alone: the signature without
    :data:`SYSTEM_FIELDS`; with ``identity``, each model named by its content hash where it
    has one (the same files under another folder name are the same model), so that two
    results whose measurements are equal were scored the same way, whatever system or harness
    settings produced them; without, the fields as written (to show)."""
    parsed = Signature.parse(text)
    fields = [
        (key, _identity(value) if identity else value)
        for key, value in parsed.fields.items()
        if key not in SYSTEM_FIELDS
    ]
    return Signature(parsed.name, fields, version=parsed.version).render()
