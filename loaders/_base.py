"""What every argbench loader shares: declared sources, versioning, metadata for the card."""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import sys
from pathlib import Path
from typing import ClassVar

import datasets

from argbench.sources import SourceFile, resolve


class DataError(ValueError):
    """A source record does not have the shape the loader documents."""


def data_error(dataset: str, source: str, index: int, field: str, problem: str) -> DataError:
    return DataError(f"{dataset}: {source}, example {index}, field {field!r}: {problem}")


class ArgbenchBuilder(datasets.GeneratorBasedBuilder):
    """A ``GeneratorBasedBuilder`` whose files are declared once in ``SOURCES``.

    Subclasses set ``SOURCES``, ``HOMEPAGE``, ``LICENSE``, ``CITATION``, ``VERSION``,
    ``BUILDER_CONFIGS`` and implement ``_features``, ``_split_generators``,
    ``_generate_examples``. ``sources=`` points at a mirror (see ``argbench.sources``).
    """

    SOURCES: ClassVar[dict[str, SourceFile]] = {}
    # Files of the same releases that argbench reads besides the dataset (e.g. a system output
    # that `argbench reproduce` scores): declared here so they are checksummed the same way.
    COMPANION_SOURCES: ClassVar[dict[str, SourceFile]] = {}
    HOMEPAGE: ClassVar[str] = ""
    LICENSE: ClassVar[str] = ""
    CITATION: ClassVar[str] = ""
    DESCRIPTION: ClassVar[str] = ""
    # earlier versions the loader still builds (``load_dataset(..., version=...)``); the
    # builder reads ``self.config.version`` where the versions differ
    EARLIER_VERSIONS: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def at_version(cls, version) -> type[ArgbenchBuilder]:
        """This builder at ``version``: itself for the current one, else a subclass whose
        configs carry the earlier version (so it has its own cache folder)."""
        version = str(version)
        if version == str(cls.VERSION):
            return cls
        if version not in cls.EARLIER_VERSIONS:
            known = ", ".join([*cls.EARLIER_VERSIONS, str(cls.VERSION)])
            raise ValueError(f"{cls.__name__} has versions {known}, not {version}")
        pinned = datasets.Version(version)
        configs = [dataclasses.replace(c, version=pinned) for c in cls.BUILDER_CONFIGS]
        namespace = {"VERSION": pinned, "BUILDER_CONFIGS": configs, "__module__": cls.__module__}
        return type(cls.__name__, (cls,), namespace)

    def __init__(self, *args, sources=None, **kwargs):
        self.sources = sources
        kwargs.setdefault("hash", self.cache_key())
        super().__init__(*args, **kwargs)

    @classmethod
    def cache_key(cls) -> str:
        """Cache key: the loader's code and the pinned checksums, so edits rebuild the cache."""
        digest = hashlib.sha256()
        for module in (sys.modules[cls.__module__], sys.modules[__name__]):
            digest.update(inspect.getsource(module).encode())
        for key in sorted(cls.SOURCES):
            digest.update(f"{key}={cls.SOURCES[key].sha256}".encode())
        return digest.hexdigest()[:16]

    def _info(self) -> datasets.DatasetInfo:
        return datasets.DatasetInfo(
            description=self.DESCRIPTION + "\n" + (self.config.description or ""),
            features=self._features(),
            homepage=self.HOMEPAGE,
            license=self.LICENSE,
            citation=self.CITATION,
            version=self.config.version,
        )

    def _features(self) -> datasets.Features:
        raise NotImplementedError

    def source_path(self, key: str) -> Path:
        """Verified local copy of the declared source ``key``."""
        return resolve(self.SOURCES[key], self.sources)

    def error(self, source: str, index: int, field: str, problem: str) -> DataError:
        return data_error(self.dataset_name, source, index, field, problem)

    @classmethod
    def card_statistics(cls, config: str, splits: dict[str, datasets.Dataset]) -> list[str]:
        """Markdown lines with statistics computed from the built data, for the card."""
        return []
