"""The on-disk cache behind :class:`argbench.embedding.Embedder`: one SQLite table per model
identity, ``sha256(text) -> float32 vector``.

Why a file of its own: the cache's layout, its damage handling (a database SQLite cannot
read is moved aside and rebuilt; a vector that is not finite and of unit length is damage)
and its location (``cache_dir=``, else ``$ARGBENCH_EMBEDDINGS_CACHE``, else
``$HF_HOME/argbench/embeddings``) are one concern, the encoding another; the LLM judges keep
their replies the same way (:mod:`argbench.llm.reply_cache`).
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import numpy as np

from argbench.cache_files import move_aside
from argbench.io import cache_folder

__all__ = ["CACHE_ENV", "CacheError", "VectorStore", "default_cache_dir", "is_unit"]

CACHE_ENV = "ARGBENCH_EMBEDDINGS_CACHE"
_SQL_CHUNK = 500  # keys per SELECT (SQLite's bound-variable limit)


class CacheError(OSError):
    """The embedding cache database cannot be opened or written (not: corrupt, it is rebuilt)."""


def default_cache_dir() -> Path:
    """``$ARGBENCH_EMBEDDINGS_CACHE``, else ``$HF_HOME/argbench/embeddings`` (read at call time)."""
    return cache_folder(CACHE_ENV, "embeddings")


class VectorStore:
    """SQLite table ``sha256(text) -> float32 vector`` for one model identity.

    A database SQLite cannot read (a truncated or overwritten file) is moved aside with a
    warning and started afresh, so one bad file does not fail every later run."""

    def __init__(self, folder: Path, identity: dict):
        folder.mkdir(parents=True, exist_ok=True)
        info = folder / "identity.json"
        if not info.exists():
            tmp = folder / f".identity.{os.getpid()}.tmp"
            tmp.write_text(json.dumps(identity, indent=1, sort_keys=True))
            os.replace(tmp, info)  # atomic: concurrent runs write the same content
        self.folder = folder
        self.path = folder / "embeddings.sqlite"

    def _run(self, action):
        for attempt in (1, 2):
            con = None
            try:
                con = sqlite3.connect(self.path, timeout=120)
                # A new file: 32 KiB pages and a rowid table keep a vector (up to ~8,000
                # floats) in its row, ~1.1x the vector's bytes. (Files of the earlier WITHOUT
                # ROWID layout, ~3x with 4 KiB pages, are read and written as they are.)
                con.execute("PRAGMA page_size = 32768")
                con.execute("CREATE TABLE IF NOT EXISTS emb (key BLOB PRIMARY KEY, vec BLOB)")
                return action(con)
            except sqlite3.OperationalError as error:  # locked for 120 s, unwritable, ...
                raise CacheError(
                    f"embedding cache {self.path} cannot be used ({error}); point "
                    f"${CACHE_ENV} or cache_dir= at a writable folder, or pass cache_dir=False"
                ) from error
            except sqlite3.DatabaseError as error:  # not a database, or a damaged one
                if attempt == 2:
                    raise
                self._move_aside(error)
            finally:
                if con is not None:
                    con.close()

    def _move_aside(self, error) -> None:
        move_aside(self.path, error, "embedding cache", stacklevel=5)

    def get(self, keys: list[bytes]) -> dict[bytes, bytes]:
        def read(con):
            found: dict[bytes, bytes] = {}
            for start in range(0, len(keys), _SQL_CHUNK):
                chunk = keys[start : start + _SQL_CHUNK]
                marks = ",".join("?" * len(chunk))
                found.update(con.execute(f"SELECT key, vec FROM emb WHERE key IN ({marks})", chunk))
            return found

        return self._run(read)

    def dimension(self) -> int | None:
        """The vector size recorded with the cache (None for a cache written before it was)."""

        def read(con):
            con.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            row = con.execute("SELECT value FROM meta WHERE key = 'dimension'").fetchone()
            return int(row[0]) if row and str(row[0]).isdigit() else None

        return self._run(read)

    def set_dimension(self, size: int) -> None:
        def write(con):
            with con:
                con.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
                con.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES ('dimension', ?)", (str(size),)
                )

        self._run(write)

    def put(self, keys: list[bytes], vectors: np.ndarray) -> None:
        if len(vectors) and self.dimension() != vectors.shape[1]:
            self.set_dimension(int(vectors.shape[1]))

        def write(con):
            with con:  # one transaction: all or nothing; REPLACE repairs invalid rows
                con.executemany(
                    "INSERT OR REPLACE INTO emb (key, vec) VALUES (?, ?)",
                    ((k, v.tobytes()) for k, v in zip(keys, vectors, strict=True)),
                )

        self._run(write)


def is_unit(vector: np.ndarray) -> bool:
    """Finite and of length 1 (every stored vector is L2-normalised; NaN or 0 is damage)."""
    return bool(np.isfinite(vector).all()) and abs(float(vector @ vector) - 1.0) < 1e-3
