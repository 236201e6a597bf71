"""What argbench's SQLite caches (embeddings, LLM replies) do with a file they cannot use.

Why one place: a cache must never answer from a damaged file, and must never be thrown away
for a passing condition. SQLite's error names say which is which: a file that is not a
database, a damaged page or a table of another layout is *corrupt* (moved aside, with its
``-journal``/``-wal``/``-shm`` files, and started afresh); a locked, read-only, full or
unopenable file is the *environment* (the cache is skipped or the caller told, never moved).
"""

from __future__ import annotations

import os
import sqlite3
import time
import warnings
from pathlib import Path

__all__ = ["is_corruption", "move_aside"]

# SQLite result codes that say "this file, not the machine": everything else (BUSY, LOCKED,
# READONLY, FULL, IOERR, CANTOPEN, PERM, NOMEM, INTERRUPT, ...) is a condition that passes
_CORRUPT = {"SQLITE_CORRUPT", "SQLITE_NOTADB", "SQLITE_ERROR", "SQLITE_MISMATCH", "SQLITE_FORMAT"}


def is_corruption(error: BaseException) -> bool:
    """True when ``error`` says the database file itself is damaged or of another layout."""
    if not isinstance(error, sqlite3.DatabaseError):
        return False
    name = getattr(error, "sqlite_errorname", None)
    if name is None:  # an error raised by argbench's own checks (quick_check, schema)
        return not isinstance(error, sqlite3.OperationalError)
    return "_".join(name.split("_")[:2]) in _CORRUPT  # SQLITE_CORRUPT_INDEX: SQLITE_CORRUPT


def move_aside(path: Path, error: BaseException, what: str, stacklevel: int = 4) -> Path:
    """Rename ``path`` and its journal files to ``<name>.corrupt-<time>-<pid>``, warn once."""
    path = Path(path)
    aside = path.with_name(f"{path.name}.corrupt-{time.time_ns()}-{os.getpid()}")
    for part in (path, *path.parent.glob(path.name + "-*")):  # -journal, -wal, -shm
        try:
            os.replace(part, aside.with_name(aside.name + part.name[len(path.name) :]))
        except FileNotFoundError:
            pass  # another process moved it first
    warnings.warn(
        f"{what} {path} is corrupt ({error}); moved it to {aside.name} and started a new one "
        "(delete the old file when you no longer need it)",
        stacklevel=stacklevel,
    )
    return aside
