"""Reading a results file back: checked, not trusted.

:func:`read_results` refuses (:class:`ResultsFileError`, naming the file and what does not
add up) a file that is not what argbench writes: a field missing or of the wrong kind,
per-item values that are not finite numbers in the metric's range (``"0.5"``, ``true``,
``1e300`` or ``7.5`` for an F1), a headline that does not follow from its per-item values
(recomputed and compared where the metric decomposes), or content that no longer matches
the digest written with it (every file argbench writes carries one; it is what holds a
figure that does not decompose, and the list of items that were not scored).

:func:`headline_figure` and :func:`per_item` are the small interface a leaderboard reads through:
what a document measured, its figure, and whether it covers the whole split.
"""

from __future__ import annotations

import math

from argbench.io import check_name, read_json
from argbench.results.document import REQUIRED, RESULTS_FORMAT, content_digest
from argbench.results.shards import FRAGMENT_FORMAT
from argbench.scoring import headline_of, headline_or_none
from argbench.signature import Signature

__all__ = ["ResultsFileError", "headline_figure", "per_item", "read_results", "verify_document"]

_REWRITE = "write it again with argbench evaluate ... --out (or argbench import-harness)"


class ResultsFileError(ValueError):
    """A results file (or document) that is not what argbench wrote: edited, truncated, or
    not a results file. The message names the file and the field."""


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_value(value, where: str, low=None, high=None, source="") -> None:
    """None (undefined) or a finite number, within [low, high] when given."""
    if value is None:
        return
    if not _number(value):
        raise ResultsFileError(f"{source}: {where} is {value!r:.40}, not a number; {_REWRITE}")
    if not math.isfinite(value) or (low is not None and not low <= value <= high):
        bounds = f" in [{low:g}, {high:g}]" if low is not None else ""
        raise ResultsFileError(
            f"{source}: {where} is {value!r:.40}, not a finite number{bounds}; {_REWRITE}"
        )


def _mean(values: list) -> float | None:
    scored = [v for v in values if v is not None]
    return math.fsum(scored) / len(scored) if scored else None


def _close(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def verify_document(doc, source: str = "results") -> dict:
    """``doc`` checked against the schema and against itself (see the module docstring);
    returned as it is. ``source`` names it in errors (the file's path). The values are
    checked first, so an edit is named by what it changed, then the rest of the schema.
    The digest is :func:`read_results`'s: a document in memory is its program's to change."""
    if isinstance(doc, dict) and doc.get("format") == FRAGMENT_FORMAT:
        raise ResultsFileError(
            f"{source}: a shard's fragment, not the results of a run: join the shards with "
            "argbench merge FRAGMENTS... --out FILE"
        )
    if not isinstance(doc, dict) or doc.get("format") != RESULTS_FORMAT:
        raise ResultsFileError(
            f"{source}: not an argbench results file (format {RESULTS_FORMAT!r}); write one "
            "with argbench evaluate ... --out FILE"
        )
    for field in ("metric", "signature", "result", "item_ids"):
        if doc.get(field) is None:
            raise ResultsFileError(f"{source}: the results file has no {field!r}; {_REWRITE}")
    ids = doc["item_ids"]
    if not isinstance(doc["result"], dict):
        raise ResultsFileError(f"{source}: 'result' must be an object; {_REWRITE}")
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise ResultsFileError(f"{source}: 'item_ids' must be a list of strings; {_REWRITE}")
    if len(set(ids)) != len(ids):
        raise ResultsFileError(f"{source}: 'item_ids' repeat an id; {_REWRITE}")
    system = doc.get("system")
    if system is not None:
        if not isinstance(system, str):
            raise ResultsFileError(f"{source}: 'system' must be a string; {_REWRITE}")
        try:
            check_name(system, f"{source}: field 'system'")
        except ValueError as error:
            raise ResultsFileError(str(error)) from None
    _check_values(doc, source)
    _check_schema(doc, source)
    return doc


def _check_values(doc: dict, source: str) -> None:
    """Per-item values: one per item, finite numbers in the metric's range; the headline
    (and every figure with a per-item list) their mean where the metric decomposes."""
    result, ids = doc["result"], doc["item_ids"]
    spec = headline_or_none(doc["metric"])
    low, high = (spec.low, spec.high) if spec else (None, None)
    items = result.get("per_item") or {}
    if not isinstance(items, dict):
        raise ResultsFileError(f"{source}: result 'per_item' must be an object; {_REWRITE}")
    for key, values in items.items():
        if not isinstance(values, list) or len(values) != len(ids):
            size = len(values) if isinstance(values, list) else type(values).__name__
            raise ResultsFileError(
                f"{source}: per_item {key!r} holds {size} values for {len(ids):,} item_ids: the "
                f"file was edited or truncated; {_REWRITE}"
            )
        for index, value in enumerate(values):
            _check_value(value, f"per_item {key!r} of item {ids[index]!r}", low, high, source)
    if spec is None:
        return
    if spec.value not in result:
        raise ResultsFileError(f"{source}: result has no {spec.value!r}; {_REWRITE}")
    _check_value(result[spec.value], f"result {spec.value!r}", low, high, source)
    if not spec.decomposes:
        return
    for key, values in items.items():
        if key in result and (result[key] is None or _number(result[key])):
            _check_value(result[key], f"result {key!r}", low, high, source)
            recomputed = _mean(values)
            if not _close(result[key], recomputed):
                shown = "undefined" if recomputed is None else f"{recomputed:.4g}"
                raise ResultsFileError(
                    f"{source}: result {key!r} is {result[key]!r} but its {len(ids):,} "
                    f"per-item values give {shown}: the file was edited; {_REWRITE}"
                )


def _check_schema(doc: dict, source: str) -> None:
    """Every field of the schema, the counts that of the ids, the signature the metric's."""
    absent = [field for field in REQUIRED if field not in doc]
    if absent:
        raise ResultsFileError(f"{source}: the results file has no {absent[0]!r}; {_REWRITE}")
    if not isinstance(doc["dataset"], dict) or not isinstance(doc["missing_ids"], list):
        raise ResultsFileError(
            f"{source}: 'dataset' must be an object, 'missing_ids' a list; {_REWRITE}"
        )
    counts = (("n_items", len(doc["item_ids"])), ("n_missing", len(doc["missing_ids"])))
    for field, expected in counts:
        if doc[field] != expected or isinstance(doc[field], bool):
            raise ResultsFileError(
                f"{source}: {field!r} is {doc[field]!r} but the file lists {expected:,} ids; "
                f"{_REWRITE}"
            )
    try:
        signature = Signature.parse(doc["signature"])
    except ValueError as error:
        raise ResultsFileError(f"{source}: 'signature': {error}") from None
    if signature.name != doc["metric"]:
        raise ResultsFileError(
            f"{source}: the signature {doc['signature']!r} is not one of {doc['metric']!r}; "
            f"{_REWRITE}"
        )
    complete = doc["result"].get("complete", True)
    if not isinstance(complete, bool):
        raise ResultsFileError(f"{source}: result 'complete' is {complete!r}, not true/false")
    if ("complete" in doc or "shards" in doc) and (
        doc.get("complete") is not False or not isinstance(doc.get("shards"), dict)
    ):
        raise ResultsFileError(
            f"{source}: 'complete' and 'shards' go together, in a partial merge of shards "
            "(complete: false); argbench merge writes them"
        )


def read_results(path) -> dict:
    """The results document of ``path``, verified (:func:`verify_document`) and matching the
    digest written with it (required: a file without one was not written whole by argbench).
    Raises :class:`ResultsFileError` naming the file and what does not add up."""
    try:
        doc = read_json(path)
    except ValueError as error:  # not a file, not UTF-8, not JSON: named by the reader
        raise ResultsFileError(str(error)) from None
    verify_document(doc, str(path))
    digest = doc.get("digest")
    if digest is not None and digest != content_digest(doc):
        raise ResultsFileError(
            f"{path}: the content does not match its digest (edited after it was written); "
            f"{_REWRITE}"
        )
    if digest is None:
        spec = headline_or_none(doc["metric"])
        why = (
            f"a {doc['metric']} figure cannot be recomputed from per-item values, so"
            if spec is not None and not spec.decomposes
            else "argbench writes one with every results file (without it, items not scored "
            "could have been edited out unseen):"
        )
        raise ResultsFileError(f"{path}: no digest: {why} the file must carry it; {_REWRITE}")
    return doc


def headline_figure(doc: dict) -> dict:
    """What a leaderboard shows of a (verified) document: ``metric``, ``key`` and ``value``
    of the headline figure (the metric's declared headline; ``value`` None when undefined),
    ``signature``, ``dataset`` (the split's identity), ``system``, ``n_items``, ``n_missing``,
    and ``complete``: False when items of the split were not scored (``partial``: missing
    predictions, or a merge of some shards of a run) or judgments failed (``incomplete``)."""
    spec = headline_of(doc["metric"])
    result = doc["result"]
    partial = bool(doc.get("n_missing")) or doc.get("complete") is False
    incomplete = result.get("complete") is False
    return {
        "metric": doc["metric"],
        "key": spec.value,
        "value": result.get(spec.value),
        "signature": doc["signature"],
        "dataset": doc.get("dataset"),
        "system": doc.get("system"),
        "n_items": doc["n_items"],
        "n_missing": doc["n_missing"],
        "partial": partial,
        "incomplete": incomplete,
        "complete": not (partial or incomplete),
    }


def per_item(doc: dict, key: str | None = None) -> tuple[list[str], list[float | None]]:
    """(item ids, per-item values) of ``key`` (default: the key ``compare`` pairs on);
    None where an item is undefined. A metric without per-item values is an error."""
    spec = headline_or_none(doc["metric"])
    key = key or (spec.pair if spec else None)
    values = (doc["result"].get("per_item") or {}).get(key) if key else None
    if values is None:
        have = ", ".join(doc["result"].get("per_item") or {}) or "none"
        raise ValueError(f"{doc['metric']} has no per-item {key or 'values'} (per-item: {have})")
    return list(doc["item_ids"]), list(values)
