"""Sharded runs: which items a shard scores, and the fragment it writes.

``--shard I/N`` splits one run over N processes (a job array, several machines) by a stable
hash of each item's id (:func:`shard_of`: the first 8 bytes of its sha256, modulo N), so a
shard's items do not depend on the order of the predictions file, on the machine or on
Python's per-process string hash, and the N shards partition the split's items.

A shard writes a *fragment* (:data:`FRAGMENT_FORMAT`), not a results file: it holds the
records of its items as the metric reads them (prediction and reference fields, each item's
position in the whole run), the options and interval settings of the run, the run's digest
(what every shard must share: metric, system, options, columns, predictions, split, argbench
version) and, for a look, the shard's own result. A fragment is never a figure of the split:
:func:`argbench.results.read_results` refuses it, and ``argbench merge``
(:mod:`argbench.results.merge`) recomputes every corpus-level figure and interval from the
records of all fragments, in the whole run's order.
"""

from __future__ import annotations

import datetime
import hashlib
import json
from dataclasses import dataclass

from argbench._version import __version__
from argbench.io import read_json, write_json
from argbench.results.document import content_digest, plain

__all__ = [
    "FRAGMENT_FORMAT",
    "FragmentError",
    "Shard",
    "build_fragment",
    "read_fragment",
    "run_digest",
    "shard_of",
    "write_fragment",
]

FRAGMENT_FORMAT = "argbench-fragment/1"
# field -> what it holds (every fragment has all of them)
FRAGMENT_FIELDS = {
    "format": "FRAGMENT_FORMAT",
    "metric": "the metric's name",
    "system": "the system's name",
    "signature": "the metric signature of the shard's result (None: the shard has no item)",
    "dataset": "the split's identity, as in a results file",
    "shard": "{index, count}: this shard of how many",
    "run": "sha256 of what every shard of the run shares (see run_digest)",
    "n_split_items": "how many items the split has (scored or not, every shard)",
    "item_ids": "the scored items of this shard",
    "positions": "each scored item's place among the split's items",
    "missing_ids": "this shard's items without a prediction",
    "missing_positions": "their places among the split's items",
    "records": "per scored item, the fields the metric reads",
    "columns": "compute() input -> record field",
    "options": "the metric's compute() options",
    "intervals": "bootstrap settings {resamples, seed, confidence}, or None",
    "result": "the shard's own result (for a look; merge recomputes), None when empty",
    "argbench_version": "the argbench that wrote it",
    "command": "the command line (or None)",
    "created": "UTC time, ISO 8601",
}


class FragmentError(ValueError):
    """A fragment that is not one, or fragments that do not make one run (exit status 2)."""


def shard_of(item_id: str, count: int) -> int:
    """The shard (0 .. count - 1) of ``item_id``: the first 8 bytes of its UTF-8 sha256 as a
    big-endian integer, modulo ``count``; the same on every machine and Python."""
    digest = hashlib.sha256(str(item_id).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (0-based, as a job array's task id) of ``count``."""

    index: int
    count: int

    def __post_init__(self):
        for value in (self.index, self.count):
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"shard index and count must be integers, got {value!r}")
        if self.count < 1 or not 0 <= self.index < self.count:
            raise ValueError(
                f"shard {self.index}/{self.count}: expected I/N with N >= 1 and 0 <= I < N "
                "(shards are numbered from 0, as a job array's task ids)"
            )

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``"I/N"`` (e.g. ``"0/4"``)."""
        index, sep, count = str(text).partition("/")
        if not (sep and index.strip().lstrip("-").isdigit() and count.strip().isdigit()):
            raise ValueError(f"--shard {text!r}: expected I/N, e.g. 0/4 for the first of 4 shards")
        return cls(int(index), int(count))

    def owns(self, item_id: str) -> bool:
        return shard_of(item_id, self.count) == self.index

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def run_digest(**what) -> str:
    """``sha256:<hex>`` of what makes one run (canonical JSON of ``what``): shards whose
    digests differ scored different things and are never merged."""
    text = json.dumps(plain(what), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def build_fragment(
    *,
    metric: str,
    system: str,
    result: dict | None,
    dataset: dict,
    shard: Shard,
    run: str,
    n_split_items: int,
    item_ids: list,
    positions: list,
    missing_ids: list,
    missing_positions: list,
    records: list,
    columns: dict,
    options: dict,
    intervals: dict | None,
    command: str | None = None,
) -> dict:
    """A shard's fragment (see the module docstring); ``options`` must be JSON (a merge
    scores again with them)."""
    try:
        json.dumps(options, allow_nan=False)
    except (TypeError, ValueError):
        raise ValueError(
            "a sharded run records its options for the merge, and these are not JSON: "
            f"{sorted(options)}; give them as JSON values (--option KEY=VALUE)"
        ) from None
    return {
        "format": FRAGMENT_FORMAT,
        "metric": metric,
        "system": system,
        "signature": None if result is None else result.get("signature"),
        "dataset": dict(dataset),
        "shard": {"index": shard.index, "count": shard.count},
        "run": run,
        "n_split_items": n_split_items,
        "item_ids": [str(i) for i in item_ids],
        "positions": list(positions),
        "missing_ids": [str(i) for i in missing_ids],
        "missing_positions": list(missing_positions),
        "records": plain(records),
        "columns": dict(columns),
        "options": dict(options),
        "intervals": intervals,
        "result": None if result is None else plain(result),
        "argbench_version": __version__,
        "command": command,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }


def write_fragment(doc: dict, path):
    """The fragment as JSON with its digest, written atomically (checked first)."""
    body = plain({k: v for k, v in doc.items() if k != "digest"})
    check_fragment(body, str(path))
    return write_json(path, {**body, "digest": content_digest(body)}, claim=True)


def read_fragment(path) -> dict:
    """A fragment read back, checked (:func:`check_fragment`) and matching its digest."""
    try:
        doc = read_json(path)
    except ValueError as error:
        raise FragmentError(str(error)) from None
    check_fragment(doc, str(path))
    if doc.get("digest") != content_digest(doc):
        raise FragmentError(
            f"{path}: the content does not match its digest (edited after it was written); "
            "run the shard again"
        )
    return doc


def check_fragment(doc, source: str) -> dict:
    """The fields of a fragment, and their sizes agreeing; names the file and the field."""
    if not isinstance(doc, dict) or doc.get("format") != FRAGMENT_FORMAT:
        what = (
            "a results file of a whole run, not a shard's fragment"
            if isinstance(doc, dict) and str(doc.get("format", "")).startswith("argbench-results")
            else "not an argbench fragment"
        )
        raise FragmentError(
            f"{source}: {what} (format {FRAGMENT_FORMAT!r}); write fragments with "
            "argbench evaluate ... --shard I/N --out FILE"
        )
    absent = [field for field in FRAGMENT_FIELDS if field not in doc]
    if absent:
        raise FragmentError(f"{source}: the fragment has no {absent[0]!r}; run the shard again")
    try:
        Shard(doc["shard"]["index"], doc["shard"]["count"])
    except (TypeError, KeyError, ValueError) as error:
        raise FragmentError(f"{source}: 'shard' is {doc['shard']!r}: {error}") from None
    sizes = {
        "positions": len(doc["item_ids"]),
        "records": len(doc["item_ids"]),
        "missing_positions": len(doc["missing_ids"]),
    }
    for field, size in sizes.items():
        if not isinstance(doc[field], list) or len(doc[field]) != size:
            raise FragmentError(
                f"{source}: {field!r} does not hold one entry per id ({size:,}); run the shard "
                "again"
            )
    for field in ("positions", "missing_positions"):
        if not all(
            isinstance(p, int) and not isinstance(p, bool) and 0 <= p < doc["n_split_items"]
            for p in doc[field]
        ):
            raise FragmentError(
                f"{source}: {field!r} holds a place outside the split's "
                f"{doc['n_split_items']!r} items; run the shard again"
            )
    return doc
