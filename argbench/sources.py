"""Where a source file comes from: a local mirror, then the network, always checksummed.

Every loader names its files by URL (pinned to a commit) and sha256. A mirror is a folder
laid out by URL: ``https://host/a/b`` sits at ``<mirror>/host/a/b``. The places tried, in
order: the ``sources=`` argument, the ``ARGBENCH_SOURCES`` environment variable, the network
(cached under the datasets download cache, keyed by sha256).
"""

from __future__ import annotations

import contextlib
import contextvars
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


def declare(base_url: str, files: dict[str, tuple[str, str]]) -> dict[str, SourceFile]:
    """A loader's ``SOURCES``: ``{key: (path under base_url, sha256)}`` → ``{key: SourceFile}``."""
    base = base_url.rstrip("/")
    return {key: SourceFile(f"{base}/{path}", sha) for key, (path, sha) in files.items()}


def __getattr__(name: str):
    """``declared`` and ``path_of`` moved up to :mod:`argbench.loaders.registry` (the loaders
    are the registry of release files; this module only fetches and checks one). Forwarded
    here for argbench/reproduce, which still imports them from this module: to be removed when
    it imports them from argbench.loaders.registry (tests/test_import_graph.py lists this
    arrow in KNOWN_EXCEPTIONS)."""
    if name in ("declared", "path_of"):
        import argbench.loaders.registry

        return getattr(argbench.loaders.registry, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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


_ASSUME_OFFLINE: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "argbench_assume_offline", default=False
)
_TRUE = {"1", "ON", "YES", "TRUE"}


def _flag(name: str) -> bool | None:
    value = os.environ.get(name)
    return None if value is None else value.strip().upper() in _TRUE


def is_offline(what: str = "data") -> bool:
    """Whether argbench may reach the network, for ``"data"`` (source files: the datasets
    flag ``HF_DATASETS_OFFLINE`` when set, else ``HF_HUB_OFFLINE``) or ``"models"``
    (``HF_HUB_OFFLINE`` or ``TRANSFORMERS_OFFLINE``), as the HF libraries read them; always
    True inside :func:`assume_offline`. The one place argbench decides this."""
    if _ASSUME_OFFLINE.get():
        return True
    if what == "data":
        datasets_flag = _flag("HF_DATASETS_OFFLINE")
        return bool(_flag("HF_HUB_OFFLINE")) if datasets_flag is None else datasets_flag
    if what == "models":
        return bool(_flag("HF_HUB_OFFLINE") or _flag("TRANSFORMERS_OFFLINE"))
    raise ValueError(f'what must be "data" or "models", not {what!r}')


_REACHABLE: dict[tuple[str, int], bool] = {}


def hub_reachable(timeout: float = 3.0) -> bool:
    """Whether the Hub answers a TCP connection, asked once per process: without a route,
    the HF libraries retry with backoff for over a minute before failing, so argbench asks
    first and fails (or falls back) in seconds. False whenever :func:`is_offline`."""
    if is_offline("models"):
        return False
    from urllib.parse import urlsplit

    from huggingface_hub import constants

    url = urlsplit(constants.ENDPOINT)
    host = url.hostname or "huggingface.co"
    port = url.port or (80 if url.scheme == "http" else 443)  # HF_ENDPOINT may name a port
    if (host, port) not in _REACHABLE:
        import socket

        try:
            socket.create_connection((host, port), timeout=timeout).close()
            _REACHABLE[host, port] = True
        except OSError:
            _REACHABLE[host, port] = False
    return _REACHABLE[host, port]


@contextlib.contextmanager
def assume_offline():
    """Within the block, argbench loads files and models from local copies only (without
    changing the process environment)."""
    token = _ASSUME_OFFLINE.set(True)
    try:
        yield
    finally:
        _ASSUME_OFFLINE.reset(token)


def download_dir() -> Path:
    from datasets import config

    return Path(config.DOWNLOADED_DATASETS_PATH) / "argbench"


def mirror_path(root: str | os.PathLike, source: SourceFile) -> Path:
    """Where ``source`` sits in the mirror at ``root`` (the URL's host and path)."""
    return Path(root) / source.mirror_relpath


def resolve(source: SourceFile, sources: str | os.PathLike | None = None) -> Path:
    """Local path of a verified copy of ``source``; raises ``SourceError`` naming what was tried."""
    tried = []
    for root in mirror_roots(sources):
        candidate = mirror_path(root, source)
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
