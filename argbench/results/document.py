"""The results document: its schema, the one builder every writer calls, and the writer.

A results document says what was measured (metric, signature, the split's identity, the ids
of the items scored and of those not scored) and what came out (``result``: the metric's
values, per-item lists included). ``argbench evaluate --out``, :func:`evaluate_predictions`
and the harness import all build it with :func:`build_document`, so :func:`read_results`
has one schema to check. :func:`write_results` adds ``digest``, the sha256 of the document
as written (canonical JSON without the digest): a file edited afterwards no longer matches
it, which is how a figure that does not decompose into per-item values is checked.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import math
from pathlib import Path

__all__ = [
    "REQUIRED",
    "RESULTS_FORMAT",
    "build_document",
    "content_digest",
    "plain",
    "write_results",
]

RESULTS_FORMAT = "argbench-results/1"
# field -> what it holds; every document has all of them (None only where said)
REQUIRED = {
    "format": "RESULTS_FORMAT",
    "metric": "the metric's name",
    "system": "the system's name (or None)",
    "signature": "the metric signature (everything that can change the number)",
    "dataset": "the split's identity: name, config, split, version, content_hash, source",
    "n_items": "how many items were scored (len(item_ids))",
    "n_missing": "how many of the split's items had no prediction (len(missing_ids))",
    "missing_ids": "the ids of those items",
    "item_ids": "the id of each scored item, in the order of every per-item list",
    "result": "the metric's output (per_item lists included)",
    "argbench_version": "the argbench that computed it",
    "command": "the command line (or None)",
    "created": "UTC time, ISO 8601",
}
OPTIONAL = ("task", "harness", "digest")  # a harness run's task and settings; the digest


def plain(value):
    """JSON-ready: numpy scalars and arrays as Python values, NaN / inf as None."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if hasattr(value, "tolist"):  # numpy scalar or array
        return plain(value.tolist())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def build_document(
    metric: str,
    result: dict,
    dataset,
    item_ids,
    *,
    missing=(),
    system: str | None = None,
    command: str | None = None,
    task: dict | None = None,
    harness: dict | None = None,
) -> dict:
    """The results document of ``result`` (a metric's output) on ``dataset`` (a
    :class:`~argbench.results.Split` or its ``identity()`` dict).

    ``item_ids``: one id per scored item, in the order of the result's per-item lists;
    ``missing``: the ids of the split's items that were not scored. Refused here (not when
    the file is read back) when they do not fit: no ids, ids that repeat, or a per-item list
    of another length."""
    from argbench import __version__

    identity = dataset.identity() if hasattr(dataset, "identity") else dataset
    if not isinstance(identity, dict) or not identity.get("content_hash"):
        raise ValueError("a results document needs the split's identity (with content_hash)")
    if item_ids is None:
        raise ValueError("a results document needs the id of every scored item (item_ids)")
    item_ids = [str(i) for i in item_ids]
    if len(set(item_ids)) != len(item_ids):
        raise ValueError("item_ids repeat: each scored item needs its own id")
    for key, values in (result.get("per_item") or {}).items():
        if len(values) != len(item_ids):
            raise ValueError(
                f"per_item {key!r} has {len(values):,} values for {len(item_ids):,} item ids"
            )
    doc = {
        "format": RESULTS_FORMAT,
        "metric": metric,
        "system": system,
        "signature": result.get("signature"),
        "dataset": dict(identity),
        "n_items": len(item_ids),
        "n_missing": len(missing),
        "missing_ids": [str(i) for i in missing],
        "item_ids": item_ids,
        "result": plain(result),
        "argbench_version": __version__,
        "command": command,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }
    if task is not None:
        doc["task"] = task
    if harness is not None:
        doc["harness"] = harness
    return doc


def content_digest(doc: dict) -> str:
    """``sha256:<hex>`` of the document without its ``digest`` (canonical JSON: sorted keys,
    UTF-8, no spaces; floats round-trip, so a document read back hashes the same)."""
    body = {k: v for k, v in doc.items() if k != "digest"}
    text = json.dumps(
        plain(body), sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False
    )
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def write_results(doc: dict, path) -> Path:
    """The results document as JSON with its ``digest``, written atomically through
    :mod:`argbench.io` (checked against the schema first: a document ``read_results`` would
    refuse is never written)."""
    from argbench.io import write_json
    from argbench.results.verify import verify_document

    body = plain({k: v for k, v in doc.items() if k != "digest"})
    verify_document(body, f"results for {path}")
    return write_json(path, {**body, "digest": content_digest(body)}, claim=True)


# What differs between two runs that produced the same result: when, by which command line,
# and the digest over both.
RUN_VOLATILE = ("created", "command", "digest")


def same_result(old, new: dict, *, strip=None) -> bool:
    """Whether ``old`` (a document read from disk) holds the result ``new`` would write: equal
    but for :data:`RUN_VOLATILE` (``strip(doc)`` may drop more, such as a log's path as typed)."""
    if not isinstance(old, dict):
        return False

    def kept(doc: dict) -> dict:
        doc = {k: v for k, v in doc.items() if k not in RUN_VOLATILE}
        return strip(doc) if strip is not None else doc

    return json.dumps(plain(kept(old)), sort_keys=True) == json.dumps(
        plain(kept(new)), sort_keys=True
    )


def write_results_once(
    planned, *, strip=None, advice="write into another --out folder or move those files away"
) -> list[tuple[Path, dict, bool]]:
    """Write each ``(path, document)`` of ``planned`` unless the path already holds the same
    result (:func:`same_result`); returns (path, document, written). No run erases another:
    when any path holds another result (another model, threshold or version, or an edited
    file) nothing at all is written and :class:`FileExistsError` names the files."""
    from argbench.io import claim_output, is_claimed, read_json, release_output

    planned = [(Path(path), doc) for path, doc in planned]
    claimed = []  # every path is locked before it is looked at: a concurrent run waits
    for path, _ in planned:
        if not is_claimed(path):
            claim_output(path, suffixes=(".json",))
            claimed.append(path)
    outcome, others = [], []
    for path, doc in planned:
        if path.exists():
            try:
                old = read_json(path)
            except ValueError:
                old = None  # not JSON: another file, never overwritten
            if not same_result(old, doc, strip=strip):
                others.append(path)
            outcome.append((path, doc, False))
        else:
            outcome.append((path, doc, True))
    if others:
        for path in claimed:
            release_output(path)
        listed = ", ".join(str(p) for p in others[:3]) + (
            f" and {len(others) - 3} more" if len(others) > 3 else ""
        )
        raise FileExistsError(
            f"{listed} {'exist and hold' if len(others) > 1 else 'exists and holds'} another "
            "result (a run with other settings or another argbench version, or an edited file); "
            f"nothing was written. To keep both, {advice}"
        )
    for path, doc, new in outcome:
        if new:
            write_results(doc, path)
    return outcome
