"""Where a source file comes from: a local mirror, then the network, always checksummed.

Every loader names its files by URL (pinned to a commit) and sha256. A mirror is a folder
laid out by URL: ``https://host/a/b`` sits at ``<mirror>/host/a/b``. The places tried, in
order: the ``sources=`` argument, the ``ARGBENCH_SOURCES`` environment variable, the network
(cached under the datasets download cache, keyed by sha256).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

ENV_VAR = "ARGBENCH_SOURCES"


class SourceError(RuntimeError):
    """A source file could not be provided."""


class ChecksumError(SourceError):
    """A source file's content is not what the loader declares."""


class SourceNotFoundError(SourceError):
    """A source file is neither in a mirror nor downloadable."""


@dataclass(frozen=True)
class SourceFile:
    """One original file: pinned URL and sha256, plus what the card says about it."""

    url: str
    sha256: str

    @property
    def mirror_relpath(self) -> str:
        parts = urlsplit(self.url)
        return parts.netloc + parts.path

    @property
    def filename(self) -> str:
        return self.url.rsplit("/", 1)[-1]

    @property
    def commit(self) -> str | None:
        """The 40-hex commit the URL is pinned to, if any."""
        for part in urlsplit(self.url).path.split("/"):
            if len(part) == 40 and all(c in "0123456789abcdef" for c in part):
                return part
        return None


_verified: dict[tuple[str, int, int], str] = {}


def sha256_of(path: Path) -> str:
    """sha256 of a file, remembered per (path, size, mtime) so repeated loads hash once."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if key not in _verified:
        digest = hashlib.sha256()
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        _verified[key] = digest.hexdigest()
    return _verified[key]


def _check(source: SourceFile, path: Path) -> Path:
    actual = sha256_of(path)
    if actual != source.sha256:
        raise ChecksumError(
            f"checksum mismatch for {source.filename} ({path}): expected sha256 "
            f"{source.sha256}, got {actual}. The file differs from the pinned release; "
            f"replace it with the original from {source.url}."
        )
    return path


def mirror_roots(sources: str | os.PathLike | None = None) -> list[Path]:
    """The mirrors to try, in order: ``sources=``, then ``$ARGBENCH_SOURCES``."""
    roots = [sources, os.environ.get(ENV_VAR) or None]
    return [Path(root).expanduser() for root in roots if root]


def is_offline() -> bool:
    value = os.environ.get("HF_DATASETS_OFFLINE", os.environ.get("HF_HUB_OFFLINE", ""))
    return value.strip().upper() in {"1", "ON", "YES", "TRUE"}


def download_dir() -> Path:
    from datasets import config

    return Path(config.DOWNLOADED_DATASETS_PATH) / "argbench"


def resolve(source: SourceFile, sources: str | os.PathLike | None = None) -> Path:
    """Local path of a verified copy of ``source``; raises ``SourceError`` naming what was tried."""
    tried = []
    for root in mirror_roots(sources):
        candidate = root / source.mirror_relpath
        if candidate.is_file():
            return _check(source, candidate)
        tried.append(str(candidate))

    cached = download_dir() / f"{source.sha256}-{source.filename}"
    if cached.is_file():
        return _check(source, cached)

    where = "; mirror paths tried: " + ", ".join(tried) if tried else f"; no mirror set ({ENV_VAR})"
    if is_offline():
        raise SourceNotFoundError(
            f"{source.filename} is not available offline: url {source.url}{where}. "
            f"Set {ENV_VAR} (or sources=) to a mirror laid out by URL."
        )
    try:
        return _download(source, cached)
    except (urllib.error.URLError, OSError) as error:
        raise SourceNotFoundError(
            f"could not download {source.url} ({error}){where}. "
            f"Set {ENV_VAR} (or sources=) to a mirror laid out by URL."
        ) from error


def _download(source: SourceFile, target: Path) -> Path:
    """Download to a temporary file, verify, then rename: a bad download is never cached."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=".partial-")
    tmp = Path(tmp_name)
    try:
        with os.fdopen(handle, "wb") as out, urllib.request.urlopen(source.url, timeout=60) as resp:
            for block in iter(lambda: resp.read(1 << 20), b""):
                out.write(block)
        _check(source, tmp)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target
