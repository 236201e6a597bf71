"""Score your own system on a corpus split, and keep the figure citable and comparable.

:func:`evaluate_predictions` joins a system's predictions to a split by the corpus's own ids,
runs the metric, and returns a *results document*: the metric values, the per-item scores,
the metric's signature, the split's name / config / version / content hash, argbench's
version, the command and the time. ``argbench evaluate ... --out`` writes it;
``argbench compare`` reads several and tests the differences.

The split's content hash is the sha256 of its schema (argbench's own rendering of the column
types, ClassLabel names included) and of every row as canonical JSON (sorted keys, UTF-8,
dates in ISO format), in row order. It does not depend on the file format, the cache
location, the machine or the library versions: a split loaded by name, from a built folder or
from the Hub has the same hash when it holds the same data.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from argbench.records import COLUMNS, inputs_from_records, resolve_columns, where

__all__ = [
    "ID_COLUMNS",
    "PRIMARY",
    "RESULTS_FORMAT",
    "DatasetChoiceError",
    "Split",
    "add_intervals",
    "content_hash",
    "evaluate_predictions",
    "load_split",
    "read_predictions",
    "read_results",
    "write_results",
]

RESULTS_FORMAT = "argbench-results/1"
# The per-item key ``argbench compare`` uses unless told otherwise: the metric's headline.
# cr_diversity (corpus-level) and annotator_agreement (not a system score) have no per-item
# values: see their cards.
PRIMARY = {
    "argument_relevance": "f1",
    "argument_overlap": "jaccard_text",
    "rationale_f1": "token_f1",
    "cq_reference_match": "score",
    "argument_answer_coherence": "aac_by_answer",
}
# The corpora's own ids, looked for in this order among a split's columns. Predictions give
# all the fields of one, or a leading part: cam_answers predictions with only question_id are
# one answer per question, scored against that question's arguments.
ID_COLUMNS = [("intervention_id",), ("pair_id",), ("question_id", "answer_index")]
SHOWN = 10  # ids listed in an error message


class DatasetChoiceError(ValueError):
    """An unknown dataset, or a split that must be chosen (usage, not data, is wrong)."""


# ---------------------------------------------------------------- the split


@dataclass
class Split:
    """One split of a corpus, with what a results file says about it."""

    data: object  # datasets.Dataset
    name: str
    config: str | None
    split: str
    version: str
    source: str  # "argbench", "folder:<path>" or "hub:<repo id>"
    _hash: str | None = None
    hub: dict | None = None  # from the Hub: {"revision": asked for, "commit": loaded}

    def identity(self) -> dict:
        if self._hash is None:
            self._hash = content_hash(self.data)
        out = {
            "name": self.name,
            "config": self.config,
            "split": self.split,
            "version": self.version,
            "content_hash": self._hash,
            "source": self.source,
        }
        if self.hub:
            out.update(self.hub)
        return out

    def label(self) -> str:
        return "/".join(str(x) for x in (self.name, self.config, self.split) if x)


def load_split(
    dataset, config=None, split=None, *, sources=None, cache_dir=None, num_proc=None
) -> Split:
    """``dataset``: an argbench dataset name, a folder written by ``argbench build`` (or any
    folder ``datasets.load_dataset`` reads), or a Hub dataset id, ``owner/name[@revision]``
    (a tag such as ``v1.0.0``, a branch or a commit; default ``main``): the commit it
    resolves to is what is loaded and recorded. ``split`` may be left out when there is only
    one. ``num_proc``: processes for building an argbench dataset."""
    import argbench
    from argbench.io import looks_like_path

    folder = Path(str(dataset)).expanduser()
    hub = None
    if str(dataset) in argbench.list_datasets():
        splits = argbench.load_dataset(
            dataset, config, sources=sources, cache_dir=cache_dir, num_proc=num_proc
        )
        name, source = str(dataset), "argbench"
    elif folder.is_dir():
        splits = _load_with_datasets(str(folder), config, cache_dir)
        name, source = folder.resolve().name, f"folder:{folder.resolve()}"
    elif looks_like_path(str(dataset)):
        raise FileNotFoundError(
            f"dataset folder {dataset} does not exist (a folder written by argbench build)"
        )
    elif "/" in str(dataset):  # a Hub dataset id
        repo_id, _, revision = str(dataset).partition("@")
        hub = {"revision": revision or "main", "commit": _hub_commit(repo_id, revision or None)}
        splits = _load_with_datasets(repo_id, config, cache_dir, revision=hub["commit"])
        name, source = repo_id, f"hub:{repo_id}"
    else:
        raise DatasetChoiceError(
            f"unknown dataset '{dataset}'; available: {', '.join(argbench.list_datasets())} "
            "(or a folder written by argbench build, or a Hub id owner/name)"
        )
    if split is None:
        if len(splits) != 1:
            label = "/".join(str(x) for x in (dataset, config) if x)
            raise DatasetChoiceError(f"{label} has splits {', '.join(splits)}: pick --split")
        split = next(iter(splits))
    elif split not in splits:
        raise DatasetChoiceError(f"{dataset}: no split {split!r}; splits: {', '.join(splits)}")
    data = splits[split]
    config = config or getattr(data.info, "config_name", None)
    # a built folder and its Hub copy carry the version in their card (configs entries)
    version = str(data.info.version or "unknown")
    return Split(data, name, config, split, version, source, hub=hub)


def _hub_commit(repo_id: str, revision: str | None) -> str:
    """The commit a Hub dataset's revision points at now (so the results name what was read)."""
    from huggingface_hub import HfApi

    return HfApi().dataset_info(repo_id, revision=revision).sha


def _folder_fingerprint(folder: Path) -> str:
    """sha256 over a folder's file names and contents (``datasets`` keys a local folder's
    cache by file modification times only, so an edit that keeps them would be served stale)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and ".cache" not in p.parts):
        digest.update(str(path.relative_to(folder)).encode() + b"\0")
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        digest.update(b"\0")
    return digest.hexdigest()


def _load_with_datasets(path: str, config, cache_dir, revision=None):
    """``datasets.load_dataset`` of a folder or Hub id, with the cache verified: a folder's
    content must be what its cached copy was made from (else the copy is rebuilt), and every
    split must hold the rows its card records (else a clear error naming the folder)."""
    import datasets

    from argbench.load import TruncatedCacheError, check_rows

    folder = Path(path)
    local = folder.is_dir()
    fingerprint = _folder_fingerprint(folder) if local else None

    def load(mode=None):
        try:
            splits = datasets.load_dataset(
                path, config, cache_dir=cache_dir, download_mode=mode, revision=revision
            )
        except Exception as error:
            if type(error).__name__ not in (
                "NonMatchingSplitsSizesError",
                "ExpectedMoreSplitsError",
                "UnexpectedSplitsError",
                "NonMatchingChecksumError",
            ):
                raise
            where = f"built folder {folder.resolve()}" if local else f"dataset {path}"
            raise ValueError(
                f"{where}: its data files do not match the split sizes recorded in its README.md "
                f"({type(error).__name__}): the folder was changed after it was built. Build it "
                "again (argbench build) or restore it"
            ) from None
        check_rows(splits, _recorded_splits(splits), f"dataset {path}")
        return splits

    try:
        splits = load()
    except TruncatedCacheError:
        splits = load("force_redownload")
    if local:
        marks = {Path(f["filename"]).parent for d in splits.values() for f in d.cache_files}
        stale = any(_read_mark(m) != fingerprint for m in marks)
        if stale:
            if any(_read_mark(m) is not None for m in marks):
                import warnings

                warnings.warn(
                    f"built folder {folder.resolve()} changed since the datasets cache was made "
                    "from it; the cache was rebuilt from the folder",
                    stacklevel=3,
                )
            splits = load("force_redownload")
            for d in splits.values():
                for f in d.cache_files:
                    _write_mark(Path(f["filename"]).parent, fingerprint)
    return splits


_MARK = "argbench-source-fingerprint"


def _recorded_splits(splits):
    first = next(iter(splits.values()), None)
    return getattr(getattr(first, "info", None), "splits", None)


def _read_mark(folder: Path) -> str | None:
    try:
        return (folder / _MARK).read_text().strip()
    except OSError:
        return None


def _write_mark(folder: Path, fingerprint: str) -> None:
    from argbench.io import atomic_write

    try:
        atomic_write(folder / _MARK, fingerprint)
    except OSError:
        pass  # a read-only cache: the folder is fingerprinted again next time


def _schema(feature):
    """Column types as plain data, the same across ``datasets`` versions."""
    import datasets

    if isinstance(feature, dict):
        return {key: _schema(sub) for key, sub in feature.items()}
    if isinstance(feature, datasets.ClassLabel):
        return {"class_label": list(feature.names)}
    if isinstance(feature, datasets.Value):
        return feature.dtype
    if hasattr(feature, "feature"):  # List, Sequence, LargeList
        return {"list": _schema(feature.feature)}
    return type(feature).__name__


def _json_default(value):
    if isinstance(value, (datetime.date, datetime.datetime, datetime.time)):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.hex()
    raise TypeError(f"cannot hash a {type(value).__name__} cell")


def content_hash(data) -> str:
    """``sha256:<hex>`` of a split's schema and rows (see the module docstring)."""
    digest = hashlib.sha256()
    digest.update(json.dumps(_schema(data.features), sort_keys=True).encode())
    for batch in data.iter(batch_size=1000):
        columns = list(batch)
        for values in zip(*(batch[c] for c in columns), strict=True):
            row = dict(zip(columns, values, strict=True))
            digest.update(b"\n")
            digest.update(
                json.dumps(
                    row,
                    sort_keys=True,
                    ensure_ascii=False,
                    separators=(",", ":"),
                    default=_json_default,
                ).encode("utf-8")
            )
    return f"sha256:{digest.hexdigest()}"


# ---------------------------------------------------------------- predictions


def read_predictions(source, submissions: bool = True) -> tuple[list, list | None]:
    """(records, their keys when keyed by id) from a path (``.json``, ``.jsonl``) or the
    parsed data. With ``submissions``, CQs-Gen shared-task records (``{id: {"cqs": [{"id",
    "cq"}] or "Missing CQs"}}``) get ``cqs`` as question strings (``["Missing CQs"]`` for
    none), in JSON or JSON Lines alike."""
    if isinstance(source, (str, Path)):
        from argbench.io import read_records

        data = read_records(source, formats=("json", "jsonl"))
    else:
        data = source
    if isinstance(data, dict):
        keys, records = [str(k) for k in data], list(data.values())
    elif isinstance(data, list):
        keys, records = None, list(data)
    else:
        raise ValueError("predictions: expected a list of records or an object keyed by id")
    return [_submission_record(r) for r in records] if submissions else records, keys


def _submission_record(record):
    """A shared-task record's ``cqs`` as plain question strings."""
    if not isinstance(record, dict) or "cqs" not in record:
        return record
    cqs = record["cqs"]
    if isinstance(cqs, str):
        return {**record, "cqs": [cqs]}  # "Missing CQs"
    if isinstance(cqs, list) and cqs and all(isinstance(c, dict) and "cq" in c for c in cqs):
        return {**record, "cqs": [c["cq"] for c in cqs]}
    return record


def _id_text(value, at: str, field: str) -> str:
    """An id as text; whitespace around it or a character UTF-8 cannot store is an error
    (``" 3"`` and ``"3"`` would be two ids that look the same; a lone surrogate cannot be
    written to the results file)."""
    from argbench.scoring._checks import check_text

    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ValueError(f"{at}: id field {field!r} must be a string or an integer, got {value!r}")
    text = str(value)
    check_text(text, f"{at}: id field {field!r}")
    if text != text.strip() or not text:
        raise ValueError(
            f"{at}: id field {field!r} is {text!r}: "
            + ("empty" if not text.strip() else "whitespace around an id")
            + " (ids are compared exactly; strip them)"
        )
    return text


def _listing(ids, total=None) -> str:
    ids = list(ids)
    shown = ", ".join(repr(i) for i in ids[:SHOWN])
    more = (total or len(ids)) - min(len(ids), SHOWN)
    return shown + (f" and {more:,} more" if more > 0 else "")


def _id_fields(columns, given) -> tuple[str, ...]:
    if given:
        fields = (given,) if isinstance(given, str) else tuple(given)
        absent = [f for f in fields if f not in columns]
        if absent:
            raise ValueError(f"the split has no id column {absent[0]!r} (columns: {columns})")
        return fields
    for fields in ID_COLUMNS:
        if fields[0] in columns:
            return tuple(f for f in fields if f in columns)
    raise ValueError(
        f"the split has none of the id columns argbench knows ({', '.join(f[0] for f in ID_COLUMNS)}); "
        "name one with id_fields="
    )


def join(rows: list[dict], records, keys, *, id_fields, take, reference_fields, allow_missing):
    """Predictions joined to split rows by id, in the split's order.

    ``take``: the prediction fields copied onto each row. Returns (merged rows, their ids,
    ids of the split without a prediction). Duplicate and unknown ids are always errors;
    missing ones unless ``allow_missing``."""
    if not records:
        raise ValueError("predictions: no records")
    first = records[0] if isinstance(records[0], dict) else {}
    level = sum(1 for _ in _prefix(id_fields, first)) or (1 if keys else 0)
    if not level:
        raise ValueError(
            f"record 0: no id field {id_fields[0]!r}: each prediction names its item "
            f"({' + '.join(id_fields)})"
        )
    fields = id_fields[:level]
    ids = []
    for index, record in enumerate(records):
        at = where(index, keys)
        if not isinstance(record, dict):
            raise ValueError(f"{at}: expected an object with {fields[0]!r}, got {record!r:.60}")
        parts = []
        for position, field in enumerate(fields):
            if field in record:
                parts.append(_id_text(record[field], at, field))
            elif position == 0 and keys:
                parts.append(_id_text(keys[index], at, field))
            else:
                raise ValueError(f"{at}: no id field {field!r} (has {list(record)})")
        ids.append("-".join(parts))
    duplicates = [i for i, c in Counter(ids).items() if c > 1]
    if duplicates:
        raise ValueError(
            f"{len(duplicates):,} ids occur more than once in the predictions: {_listing(duplicates)}"
        )

    by_id: dict[str, dict] = {}
    for index, row in enumerate(rows):
        key = "-".join(str(row[f]) for f in fields)
        if key in by_id:
            kept = by_id[key]
            for field in reference_fields:
                if row.get(field) != kept.get(field):
                    raise ValueError(
                        f"split rows {kept['__row']} and {index} share the id {key!r} but differ "
                        f"in {field!r}: name the item fully ({' + '.join(id_fields)})"
                    )
            continue
        by_id[key] = {**row, "__row": index}
    unknown = [i for i in ids if i not in by_id]
    if unknown:
        raise ValueError(
            f"{len(unknown):,} prediction ids are not in the split: {_listing(unknown)} "
            f"(ids are {' + '.join(fields)}, e.g. {next(iter(by_id))!r})"
        )
    position = {i: p for p, i in enumerate(ids)}
    missing = [key for key in by_id if key not in position]
    if missing and not allow_missing:
        raise ValueError(
            f"{len(missing):,} of the split's {len(by_id):,} items have no prediction: "
            f"{_listing(missing)}; allow_missing=True scores the others"
        )
    merged, order = [], []
    for key, row in by_id.items():
        if key not in position:
            continue
        index = position[key]
        record = records[index]
        row = {k: v for k, v in row.items() if k != "__row"}
        for field in take:
            if field not in record:
                raise ValueError(f"{where(index, keys)}: no field {field!r} (has {list(record)})")
            row[field] = record[field]
        merged.append(row)
        order.append(key)
    return merged, order, missing


def _prefix(fields, record):
    for field in fields:
        if field not in record:
            return
        yield field


# ---------------------------------------------------------------- scoring


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


def add_intervals(result: dict, resamples=10_000, seed=0, confidence=0.95) -> dict:
    """``result["ci"]``: a percentile bootstrap interval for each per-item mean."""
    import numpy as np

    from argbench.scoring.significance import bootstrap_means, percentile_interval

    per_item = result.get("per_item")
    if not per_item:
        raise ValueError(
            "this metric has no per-item scores to resample (a corpus-level number): no interval"
        )
    result["ci"] = {}
    for key, values in per_item.items():
        scores = np.array([np.nan if v is None else v for v in values], dtype=float)
        if np.isnan(scores).all():
            result["ci"][key] = {"low": None, "high": None}
            continue
        low, high = percentile_interval(bootstrap_means(scores, resamples, seed), confidence)
        result["ci"][key] = {"low": float(low[0]), "high": float(high[0])}
    result["ci_method"] = (
        f"percentile bootstrap over items: {100 * confidence:g}% level, {resamples:,} "
        f"resamples, seed {seed}"
    )
    return result


def document(metric, result, *, split=None, item_ids=None, missing=(), system=None, command=None):
    """The results document (see the module docstring)."""
    from argbench import __version__

    return {
        "format": RESULTS_FORMAT,
        "metric": metric,
        "system": system,
        "signature": result.get("signature"),
        "dataset": split.identity() if split is not None else None,
        "n_items": len(item_ids) if item_ids is not None else None,
        "n_missing": len(missing),
        "missing_ids": list(missing),
        "item_ids": item_ids,
        "result": plain(result),
        "argbench_version": __version__,
        "command": command,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    }


def split_item_ids(split: Split) -> list[str]:
    """Ids of a split's rows (its id columns, else the row index)."""
    try:
        fields = _id_fields(split.data.column_names, None)
    except ValueError:
        return [str(i) for i in range(len(split.data))]
    columns = [split.data[f] for f in fields]
    return ["-".join(str(v) for v in values) for values in zip(*columns, strict=True)]


def evaluate_predictions(
    metric: str,
    predictions,
    dataset,
    config: str | None = None,
    split: str | None = None,
    *,
    options: dict | None = None,
    columns: dict | None = None,
    id_fields=None,
    allow_missing: bool = False,
    system: str | None = None,
    ci: bool = False,
    resamples: int = 10_000,
    seed: int = 0,
    confidence: float = 0.95,
    sources=None,
    cache_dir=None,
    num_proc: int | None = None,
    command: str | None = None,
    note=lambda message: None,
) -> dict:
    """Score a system's ``predictions`` on a corpus split; returns the results document.

    ``predictions``: a ``.json`` / ``.jsonl`` path or the parsed records; each record names
    its item by the corpus's id (``intervention_id``, ``pair_id``, ``question_id`` [+
    ``answer_index``]; or ``id_fields``) and holds the metric's prediction field (the
    ``predictions`` column of ``argbench evaluate --help``, e.g. ``answer``, ``cqs``,
    ``predicted_rationales``; ``columns`` changes it). Everything else (references, argument
    labels, contexts) comes from the split. CQs-Gen shared-task submissions are read as they
    are. ``dataset``: a name, a built folder or a Hub id (:func:`load_split`).

    Ids missing from the predictions are an error unless ``allow_missing`` (then only the
    predicted items are scored and ``n_missing`` says how many were not); unknown and
    duplicated ids are always errors. ``ci`` adds bootstrap intervals
    (:func:`add_intervals`). ``options`` go to the metric's ``compute``. ``num_proc``:
    processes for building an argbench dataset (:func:`load_split`).
    """
    from argbench.scoring import metric_function

    if metric not in COLUMNS:
        raise ValueError(f"unknown metric {metric!r}; metrics: {', '.join(COLUMNS)}")
    chosen = load_split(
        dataset, config, split, sources=sources, cache_dir=cache_dir, num_proc=num_proc
    )
    compute, features = metric_function(metric)  # the plain function: no evaluate import
    if "predictions" not in features:
        raise ValueError(f"{metric} takes no predictions (inputs: {', '.join(features)})")
    records, keys = read_predictions(predictions)
    overrides = dict(columns or {})
    if metric == "cr_diversity" and "predictions" not in overrides and records:
        first = records[0]
        if isinstance(first, dict) and "cq" not in first and "cqs" in first:
            overrides["predictions"] = "cqs"  # a submission: its questions
    resolved = resolve_columns(metric, overrides, features)
    take = [resolved["predictions"].split(".")[0]]
    reference_fields = [
        f.split(".")[0] for name, f in resolved.items() if name not in ("predictions",)
    ]
    fields = _id_fields(chosen.data.column_names, id_fields)
    merged, ids, missing = join(
        chosen.data.to_list(),
        records,
        keys,
        id_fields=fields,
        take=take,
        reference_fields=reference_fields,
        allow_missing=allow_missing,
    )
    if missing:
        note(f"{len(missing):,} items of {chosen.label()} have no prediction and are not scored")
    inputs = inputs_from_records(
        metric,
        merged,
        ids,
        features,
        resolved,
        note,
        expand=metric not in PRIMARY,
        describe=lambda index: f"prediction {ids[index]!r}",
    )
    result = compute(**inputs, **(options or {}))
    if ci:
        add_intervals(result, resamples, seed, confidence)
    if system is None:
        system = Path(predictions).stem if isinstance(predictions, (str, Path)) else "system"
    return document(
        metric,
        result,
        split=chosen,
        item_ids=ids,
        missing=missing,
        system=system,
        command=command,
    )


# ---------------------------------------------------------------- results files


def write_results(doc: dict, path) -> Path:
    """The results document as JSON, written atomically (:func:`argbench.io.write_json`)."""
    from argbench.io import write_json

    return write_json(path, plain(doc))


def read_results(path) -> dict:
    from argbench.io import read_json

    doc = read_json(path)
    if not isinstance(doc, dict) or doc.get("format") != RESULTS_FORMAT:
        raise ValueError(
            f"{path}: not an argbench results file (format {RESULTS_FORMAT!r}); write one with "
            "argbench evaluate ... --out FILE"
        )
    for field in ("metric", "signature", "result", "item_ids"):
        if doc.get(field) is None:
            raise ValueError(f"{path}: the results file has no {field!r}")
    n = len(doc["item_ids"])
    per_item = (doc["result"] or {}).get("per_item") or {}
    for key, values in per_item.items():
        if not isinstance(values, list) or len(values) != n:
            size = len(values) if isinstance(values, list) else type(values).__name__
            raise ValueError(
                f"{path}: per_item {key!r} holds {size} values for {n:,} item_ids: the file was "
                "edited or truncated; write it again with argbench evaluate ... --out"
            )
    return doc


# ---------------------------------------------------------------- comparing systems

# what must agree between results besides the signature (the name may be a folder's or a
# Hub repo's for the same data: the content hash says whether the data are the same)
DATASET_FIELDS = ("config", "split", "version", "content_hash")


def _differences(docs: list[dict], labels: list[str]) -> list[str]:
    """What, besides the system, differs between results: signature fields and the split."""
    from argbench.signature import Signature

    signatures = [Signature.parse(d["signature"]) for d in docs]
    out = []
    for doc, signature, label in zip(docs[1:], signatures[1:], labels[1:], strict=True):
        for field, mine, theirs in signatures[0].differences(signature):
            out.append(f"{field} ({mine} in {labels[0]}, {theirs} in {label})")
        for field in DATASET_FIELDS:
            mine, theirs = ((d.get("dataset") or {}).get(field) for d in (docs[0], doc))
            if mine != theirs:
                out.append(f"dataset {field} ({mine} in {labels[0]}, {theirs} in {label})")
        # harness runs (argbench import-harness): the task's prompt is part of the measurement
        mine, theirs = (d.get("task") for d in (docs[0], doc))
        if mine and theirs and mine != theirs:
            out.append(f"task ({mine} in {labels[0]}, {theirs} in {label})")
    return out


def compare_results(
    results, key=None, *, resamples=10_000, seed=0, confidence=0.95, force=False
) -> dict:
    """Compare systems scored on the same split (results documents or their files).

    Each system's score with a paired bootstrap interval, and each pair's difference with its
    interval and a paired approximate-randomisation p-value (:mod:`argbench.scoring.significance`).
    Results whose signatures or splits differ in anything but the system are refused, naming
    the difference, unless ``force`` (then ``forced`` lists what differs); so are results on
    different items (with ``force``: their common items).
    """
    import numpy as np

    from argbench.scoring.significance import compare_systems

    docs, labels = [], []
    for item in results:
        docs.append(read_results(item) if isinstance(item, (str, Path)) else item)
        labels.append(str(item) if isinstance(item, (str, Path)) else str(item.get("system")))
    if len(docs) < 2:
        raise ValueError("compare needs two or more results")
    metrics = {d["metric"] for d in docs}
    if len(metrics) > 1:
        raise ValueError(f"results of different metrics cannot be compared: {sorted(metrics)}")
    metric = docs[0]["metric"]
    key = key or PRIMARY.get(metric)
    for doc, label in zip(docs, labels, strict=True):
        per_item = (doc["result"] or {}).get("per_item") or {}
        if key is None or key not in per_item:
            have = ", ".join(per_item) or "none"
            raise ValueError(
                f"{label}: {metric} has no per-item {key or 'scores'} to compare (per-item: {have})"
            )
    forced = _differences(docs, labels)
    if forced and not force:
        raise ValueError(
            "not the same measurement: results differ in " + "; ".join(forced) + ". Compare "
            "systems under one signature and split, or force=True to compare anyway"
        )
    id_sets = [set(d["item_ids"]) for d in docs]
    common = set.intersection(*id_sets)
    if any(ids != id_sets[0] for ids in id_sets):
        sizes = ", ".join(
            f"{len(ids):,} in {label}" for ids, label in zip(id_sets, labels, strict=True)
        )
        if not force:
            raise ValueError(
                f"the results score different items ({sizes}; {len(common):,} in common): "
                "paired comparison needs the same items; --force compares the common ones"
            )
        forced.append(f"items: only the {len(common):,} common items ({sizes})")
    if not common:
        raise ValueError("the results have no item in common")
    order = [i for i in docs[0]["item_ids"] if i in common]
    rows = []
    for doc in docs:
        values = dict(zip(doc["item_ids"], doc["result"]["per_item"][key], strict=True))
        rows.append([np.nan if values[i] is None else values[i] for i in order])
    names = [str(d.get("system") or label) for d, label in zip(docs, labels, strict=True)]
    for index, name in enumerate(names):
        if names.count(name) > 1:
            names[index] = f"{name} ({labels[index]})"
    stats = compare_systems(rows, names, resamples, seed, confidence)
    return {
        "metric": metric,
        "key": key,
        "signature": docs[0]["signature"],
        "signatures": {name: d["signature"] for name, d in zip(names, docs, strict=True)},
        "dataset": docs[0].get("dataset"),
        "forced": forced,
        **stats,
    }
