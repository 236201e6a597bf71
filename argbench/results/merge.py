"""``argbench merge``: the fragments of a sharded run joined into the run's results document.

Merging never averages shards' figures: AUROC, an F1 over items, a bootstrap interval or a
Bradley–Terry fit of the whole run is not a function of the shards' figures. The merge puts
the fragments' per-item records back in the whole run's order (each item's recorded place
in the split) and scores them once with :func:`~argbench.results.evaluate.score_records`,
the function a single process uses, so the merged document equals the single run's but for
``created``, ``command`` and the digest (:data:`~argbench.results.write.RUN_VOLATILE`).

Refused (:class:`~argbench.results.shards.FragmentError`, naming the files): fragments of
another metric, signature, split or run (other predictions, options, version), two fragments
of one shard, or fragments that claim the same item. Shards that are absent make a *partial*
merge: the document then says ``complete: false`` and lists the ``shards`` merged and
missing, and a leaderboard treats it as partial.

What the merge does not bring: a model's work on the items. A metric that embeds or asks an
LLM judge scores again at the merge, reading the embeddings and replies from argbench's
caches (:mod:`argbench.embedding_store`, :mod:`argbench.llm.reply_cache`): run the merge
where the shards' caches are (a shared disk, or the cache folders copied together), or the
merge computes them again.
"""

from __future__ import annotations

from argbench.results.document import build_document
from argbench.results.evaluate import score_records
from argbench.results.shards import FragmentError, read_fragment

__all__ = ["merge_fragments"]

# fields every fragment of one run holds alike, and what a difference means
_SAME = (
    ("metric", "another metric"),
    ("dataset", "another split (name, config, version or content hash)"),
    ("system", "another system"),
    ("run", "another run (other predictions, options, columns or argbench version)"),
)


def merge_fragments(fragments, *, command: str | None = None, note=lambda message: None) -> dict:
    """The results document of the run the ``fragments`` (paths, or ``(source, fragment)``
    pairs already read) are shards of; see the module docstring."""
    docs = [
        (str(f), read_fragment(f)) if not isinstance(f, tuple) else (str(f[0]), f[1])
        for f in fragments
    ]
    if not docs:
        raise FragmentError("no fragments to merge")
    first_source, first = docs[0]
    for source, doc in docs[1:]:
        for field, what in _SAME:
            if doc[field] != first[field]:
                raise FragmentError(
                    f"{source} is a fragment of {what} than {first_source} ({field!r} differs): "
                    "merge only the shards of one run"
                )
        if doc["shard"]["count"] != first["shard"]["count"]:
            raise FragmentError(
                f"{source} is shard {_shard(doc)} and {first_source} shard {_shard(first)}: "
                "the fragments split the run into different numbers of shards"
            )
    signed = [(source, doc) for source, doc in docs if doc["signature"] is not None]
    for source, doc in signed[1:]:
        if doc["signature"] != signed[0][1]["signature"]:
            raise FragmentError(
                f"{source} has the signature {doc['signature']!r} and {signed[0][0]} "
                f"{signed[0][1]['signature']!r}: merge only the shards of one run"
            )
    count = first["shard"]["count"]
    seen: dict[int, str] = {}
    for source, doc in docs:
        index = doc["shard"]["index"]
        if index in seen:
            raise FragmentError(
                f"{source} and {seen[index]} are both shard {index}/{count}: give each shard once"
            )
        seen[index] = source
    owner: dict[int, tuple[str, str]] = {}
    for source, doc in docs:
        places = zip(
            doc["positions"] + doc["missing_positions"],
            doc["item_ids"] + doc["missing_ids"],
            strict=True,
        )
        for place, item in places:
            if place in owner:
                raise FragmentError(
                    f"{source} and {owner[place][0]} both hold item {item!r}: fragments of "
                    "one run never overlap (a fragment edited, or of another hash)"
                )
            owner[place] = (source, item)
    absent = sorted(set(range(count)) - set(seen))
    complete = not absent
    if complete and len(owner) != first["n_split_items"]:
        raise FragmentError(
            f"the {count} shards hold {len(owner):,} of the split's {first['n_split_items']:,} "
            "items: a fragment was edited"
        )
    if absent:
        note(f"shards {', '.join(f'{i}/{count}' for i in absent)} are missing: a partial merge")
    scored = sorted(
        (place, item, record)
        for _, doc in docs
        for place, item, record in zip(
            doc["positions"], doc["item_ids"], doc["records"], strict=True
        )
    )
    missing = [item for _, item in sorted(zip(*_missing(docs), strict=True))]
    if not scored:
        raise FragmentError("the fragments hold no scored item: nothing to merge")
    ids = [item for _, item, _ in scored]
    result = score_records(
        first["metric"],
        [record for _, _, record in scored],
        ids,
        first["columns"],
        first["options"],
        first["intervals"],
        note,
    )
    doc = build_document(
        first["metric"],
        result,
        first["dataset"],
        ids,
        missing=missing,
        system=first["system"],
        command=command,
    )
    if signed and doc["signature"] != signed[0][1]["signature"]:
        raise FragmentError(
            f"the merged run's signature {doc['signature']!r} is not the shards' "
            f"{signed[0][1]['signature']!r} (another argbench or model at the merge?)"
        )
    if not complete:
        doc["complete"] = False
        doc["shards"] = {"count": count, "merged": sorted(seen), "missing": absent}
    return doc


def _shard(doc: dict) -> str:
    return f"{doc['shard']['index']}/{doc['shard']['count']}"


def _missing(docs) -> tuple[list, list]:
    places = [p for _, doc in docs for p in doc["missing_positions"]]
    items = [i for _, doc in docs for i in doc["missing_ids"]]
    return places, items
