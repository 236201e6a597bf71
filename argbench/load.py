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
        raise
    return instance


def load(
    name, config=None, split=None, *, sources=None, cache_dir=None, num_proc=None, version=None
):
    """The dataset; a cached copy that cannot be read (truncated or overwritten Arrow files)
    is deleted and built again from the sources, with a warning, instead of failing every run."""
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
        return prepared.as_dataset(split=split)
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
        return prepared.as_dataset(split=split)
