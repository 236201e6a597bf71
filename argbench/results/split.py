"""A corpus split as results name it: loading (an argbench name, a built folder, a Hub id at a
revision), with its cache verified, and its content hash.

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
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

from argbench.io import atomic_write, looks_like_path
from argbench.loaders import DATASETS, builder_class
from argbench.records import top_fields

__all__ = [
    "DatasetChoiceError",
    "Split",
    "config_hint",
    "configs_with",
    "content_hash",
    "load_split",
]


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
    folder = Path(str(dataset)).expanduser()
    hub = None
    if str(dataset) in DATASETS:
        from argbench.load import load  # imports datasets

        splits = load(dataset, config, sources=sources, cache_dir=cache_dir, num_proc=num_proc)
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
            f"unknown dataset '{dataset}'; available: {', '.join(sorted(DATASETS))} "
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


def configs_with(dataset: str, fields: set[str]) -> list[str] | None:
    """The configs of argbench dataset ``dataset`` whose rows hold every one of ``fields``
    (from the loaders' declared features, nothing built); None for other datasets. Used to
    name the config to use when a metric's fields are not in the one given."""
    if dataset not in DATASETS:
        return None
    cls = builder_class(dataset)
    out = []
    for config in cls.BUILDER_CONFIGS:
        try:
            features = cls._features(SimpleNamespace(config=config))
        except Exception:  # noqa: BLE001 - a loader whose features need more: not suggested
            continue
        if set(fields) <= set(features):
            out.append(config.name)
    return out


def config_hint(dataset: str, config: str | None, columns: dict) -> str | None:
    """Which config of argbench dataset ``dataset`` to use when ``config`` lacks fields that
    ``columns`` (compute() input -> record field) reads; None when no better one is known.
    With a ``predictions`` column: the configs that hold it, else those holding the
    references (score a predictions file there)."""
    fields = {f for field in columns.values() for f in top_fields(field)}
    fitting = configs_with(dataset, fields)
    if fitting is None or config is None or config in fitting:
        return None
    if fitting:
        return f"use --config {' or '.join(fitting)}"
    if "predictions" not in columns:
        return None
    references = {k: v for k, v in columns.items() if k != "predictions"}
    scored = configs_with(dataset, {f for field in references.values() for f in top_fields(field)})
    if references and scored:
        return (
            f"{dataset} holds no {columns['predictions']!r} predictions: score a predictions "
            f"FILE with --dataset {dataset} --config {' or '.join(scored)}"
        )
    return f"no config of {dataset} has them"
