"""Build argbench datasets in-process with their ``GeneratorBasedBuilder``."""

from __future__ import annotations

import shutil
import warnings

from datasets.exceptions import DatasetGenerationError

from argbench.loaders import builder_class
from argbench.loaders._base import DataError
from argbench.sources import SourceError


def config_names(name: str) -> list[str]:
    return [config.name for config in builder_class(name).BUILDER_CONFIGS]


def builder(name, config=None, *, sources=None, cache_dir=None, num_proc=None, version=None):
    """A prepared builder for ``name``/``config`` (data generated once, then read from cache).

    ``num_proc``: build in that many processes, one shard of source files each, where the
    loader lists its files as shards (UKPConvArg1's debate sides, Webis pairwise's quality
    dimensions); the rows are the same, in the same order. Other loaders build in one process.
    """
    cls = builder_class(name)
    if config is not None and config not in config_names(name):
        raise ValueError(
            f"dataset {name!r} has no config {config!r}; configs: {', '.join(config_names(name))}"
        )
    if version is not None:
        cls = cls.at_version(version)
    instance = cls(config_name=config, cache_dir=cache_dir, sources=sources)
    try:
        instance.download_and_prepare(num_proc=num_proc)
    except DatasetGenerationError as error:
        # Surface our own errors (which name file, example and field), not datasets' wrapper.
        if isinstance(error.__cause__, (DataError, SourceError)):
            raise error.__cause__ from None
        if isinstance(error.__cause__, OSError):
            raise _disk_error(error.__cause__, name, instance) from None
        raise
    except OSError as error:
        raise _disk_error(error, name, instance) from None
    return instance


def _disk_error(error: OSError, name: str, instance) -> OSError:
    """A write failure in the datasets cache (a full disk, a read-only HF_HOME), said as such."""
    import errno

    if error.errno not in (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EFBIG):
        return error
    where = getattr(instance, "_cache_dir_root", None) or instance.cache_dir
    return OSError(
        error.errno,
        f"cannot build {name} in the datasets cache {where}: {error.strerror}. Free space "
        "there, or point HF_HOME or the datasets cache_dir= at a folder with room; "
        "the cache was left without a half-built copy",
    )


class TruncatedCacheError(OSError):
    """A datasets cache file holds fewer (or more) rows than the split sizes recorded at build."""


def check_rows(data, splits, where: str) -> None:
    """Each split of ``data`` (a Dataset or DatasetDict) has the row count recorded in
    ``splits`` (a SplitDict): an Arrow cache file cut at a record-batch boundary still loads,
    as a shorter dataset, so the count is the check."""
    parts = data.items() if hasattr(data, "items") else [(str(data.split), data)]
    for split, dataset in parts:
        info = splits.get(split) if splits else None
        expected = getattr(info, "num_examples", None)
        if expected and len(dataset) != expected:
            raise TruncatedCacheError(
                f"{where}: split {split!r} has {len(dataset):,} rows but {expected:,} were "
                "recorded when it was built (a truncated or edited cache file)"
            )


def load(
    name, config=None, split=None, *, sources=None, cache_dir=None, num_proc=None, version=None
):
    """The dataset; a cached copy that cannot be read (truncated or overwritten Arrow files)
    or whose row counts differ from the split sizes recorded at build is deleted and built
    again from the sources, with a warning, instead of failing every run or serving fewer rows."""
    import pyarrow as pa

    prepared = builder(
        name, config, sources=sources, cache_dir=cache_dir, num_proc=num_proc, version=version
    )
    if split is not None and split not in prepared.info.splits:
        raise ValueError(
            f"dataset {name!r} config {prepared.config.name!r} has no split {split!r}; "
            f"splits: {', '.join(prepared.info.splits)}"
        )
    try:
        data = prepared.as_dataset(split=split)
        check_rows(data, prepared.info.splits, f"datasets cache {prepared.cache_dir}")
        return data
    except (pa.ArrowInvalid, OSError) as error:
        folder = prepared.cache_dir
        warnings.warn(
            f"datasets cache {folder} of {name}/{prepared.config.name} cannot be read "
            f"({type(error).__name__}: {error}); deleted and rebuilt from the sources",
            stacklevel=2,
        )
        shutil.rmtree(folder, ignore_errors=True)
        prepared = builder(
            name, config, sources=sources, cache_dir=cache_dir, num_proc=num_proc, version=version
        )
        data = prepared.as_dataset(split=split)
        check_rows(data, prepared.info.splits, f"datasets cache {prepared.cache_dir}")
        return data
