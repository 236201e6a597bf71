"""The results document: its schema, the one builder every writer calls, and its digest.

A results document says what was measured (metric, signature, the split's identity, the ids
of the items scored and of those not scored) and what came out (``result``: the metric's
values, per-item lists included). ``argbench evaluate --out``, :func:`evaluate_predictions`
and the harness import all build it with :func:`build_document`, so :func:`read_results`
has one schema to check (:mod:`argbench.results.verify`). :func:`content_digest` is the sha256
of the document as written (canonical JSON without the digest), which
:func:`~argbench.results.write.write_results` adds as ``digest``: a file edited afterwards no
longer matches it, which is how a figure that does not decompose into per-item values is
checked.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import math

from argbench._version import __version__

__all__ = [
    "REQUIRED",
    "RESULTS_FORMAT",
    "build_document",
    "content_digest",
    "plain",
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
# a harness run's task and settings; a partial merge of shards (complete: false, the shards
# merged and missing: argbench.results.merge); the digest
OPTIONAL = ("task", "harness", "complete", "shards", "digest")


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
