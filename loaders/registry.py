"""The release files each corpus reads, by dataset name: the loaders' ``SOURCES`` are the one
registry (nothing else names a release file), reached here so that every read is checksummed
(:func:`argbench.sources.resolve`)."""

from __future__ import annotations

import os
from pathlib import Path

from argbench.loaders import builder_class
from argbench.sources import SourceFile, resolve

__all__ = ["declared", "path_of"]


def declared(dataset: str) -> dict[str, SourceFile]:
    """Every file argbench reads for ``dataset``: its loader's ``SOURCES`` and
    ``COMPANION_SOURCES``. Loaders are the one registry; nothing else names a release file."""
    cls = builder_class(dataset)
    return {**cls.SOURCES, **cls.COMPANION_SOURCES}


def path_of(dataset: str, key: str, sources: str | os.PathLike | None = None) -> Path:
    """Verified local copy of source ``key`` of ``dataset`` (for scripts, tests, reproduce)."""
    files = declared(dataset)
    if key not in files:
        raise KeyError(
            f"dataset {dataset!r} declares no source {key!r}; sources: {', '.join(files)}"
        )
    return resolve(files[key], sources)
