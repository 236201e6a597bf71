"""The LLM reply cache: a reply is reused only for the same question to the same model.

Storage: one SQLite file, ``<cache folder>/replies.sqlite``, table ``reply(key BLOB PRIMARY
KEY, text TEXT)``; ``key`` is :func:`reply_key`, the sha256 of everything that determines the
answer. The model is named by its *identity* (:mod:`argbench.llm.identity`: the weights'
sha256, a name the user vouches for, or what the server reports plus a measured probe), never
by a URL or a model name alone: a server answers to any name, and the same port may serve
another model tomorrow. A model nothing identifies gets no cache at all (the client says so).

Every reply is stored as it arrives, so a run that stops loses nothing. Only answers are
stored: the client stores a reply only when the judge's parser accepted it, and a stored
reply the parser would refuse is asked again. A file SQLite cannot read — not a database,
a damaged page, a truncated file, a table of another layout — is moved aside and started
afresh, found when opened (``PRAGMA quick_check``) or at any later read or write; a cache
that cannot be used at all (read-only, locked, a folder in the way) is skipped with a warning.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import warnings
from pathlib import Path

from argbench.cache_files import is_corruption, move_aside
from argbench.io import cache_folder

__all__ = ["CACHE_ENV", "ReplyCache", "default_cache_dir", "reply_key"]

CACHE_ENV = "ARGBENCH_LLM_CACHE"
_SQL_CHUNK = 500
_COLUMNS = [("key", "BLOB"), ("text", "TEXT")]


def default_cache_dir() -> Path:
    """``$ARGBENCH_LLM_CACHE``, else ``$HF_HOME/argbench/llm`` (read at call time)."""
    return cache_folder(CACHE_ENV, "llm")


def reply_key(
    identity: str,
    model: str,
    system: str | None,
    prompt: str,
    temperature: float | None,
    max_tokens: int | None,
    structured: str | None,
) -> bytes:
    """sha256 of what determines a reply: the model's ``identity`` (``sha256:<hex>``,
    ``id:<name>`` or ``fp:<hex>``; never a URL), the model name sent (a server may route by
    it), the system message, the prompt, the temperature, ``max_tokens`` and the structured
    mode (``None``/``"off"``: free text; a structured reply is the label itself)."""
    if not identity:
        raise ValueError("a reply key needs the model's identity (nothing identifies the model)")
    what = [identity, model, system, prompt, temperature, max_tokens]
    if structured not in (None, "off"):
        what.append(structured)
    return hashlib.sha256(json.dumps(what, ensure_ascii=False).encode("utf-8")).digest()


class _Damaged(sqlite3.DatabaseError):
    """The file opened, but argbench's own check found it damaged or of another layout."""


class ReplyCache:
    """``key -> reply text`` in ``folder/replies.sqlite`` (see the module docstring)."""

    def __init__(self, folder):
        self.path = Path(folder) / "replies.sqlite"
        self.con = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.con = self._open()
        except (OSError, sqlite3.Error) as error:
            if is_corruption(error):
                self._recover(error)
            else:
                self._skip(error)

    def _open(self):
        con = sqlite3.connect(self.path, timeout=60, check_same_thread=False)
        try:
            con.execute("CREATE TABLE IF NOT EXISTS reply (key BLOB PRIMARY KEY, text TEXT)")
            columns = [(row[1], row[2].upper()) for row in con.execute("PRAGMA table_info(reply)")]
            if columns != _COLUMNS:
                raise _Damaged(f"table reply has columns {columns}, not {_COLUMNS}")
            problems = [row[0] for row in con.execute("PRAGMA quick_check")]
            if problems != ["ok"]:
                raise _Damaged("; ".join(map(str, problems[:3])))
        except BaseException:
            con.close()
            raise
        return con

    def _recover(self, error) -> None:
        """Move the damaged file aside and start afresh (once; a second failure skips)."""
        if self.con is not None:
            self.con.close()
            self.con = None
        move_aside(self.path, error, "LLM reply cache", stacklevel=5)
        try:
            self.con = self._open()
        except (OSError, sqlite3.Error) as again:
            self._skip(again)

    def _skip(self, error) -> None:
        warnings.warn(
            f"LLM reply cache {self.path} cannot be used ({error}); replies are not cached "
            f"(set ${CACHE_ENV} to a writable folder)",
            stacklevel=5,
        )
        if self.con is not None:
            self.con.close()
        self.con = None

    def _failed(self, error) -> None:
        if is_corruption(error):
            self._recover(error)
        else:
            self._skip(error)

    def get(self, keys: list[bytes]) -> dict[bytes, str]:
        """The stored text per key found (rows that are not text are not answers)."""
        found: dict[bytes, str] = {}
        if self.con is None:
            return found
        try:
            for start in range(0, len(keys), _SQL_CHUNK):
                chunk = keys[start : start + _SQL_CHUNK]
                marks = ",".join("?" * len(chunk))
                rows = self.con.execute(
                    f"SELECT key, text FROM reply WHERE key IN ({marks})", chunk
                )
                found.update((k, t) for k, t in rows if isinstance(t, str))
        except sqlite3.Error as error:
            self._failed(error)
            return {}
        return found

    def put(self, key: bytes, text: str) -> None:
        for attempt in (1, 2):  # a damaged file is moved aside once, then written afresh
            if self.con is None:
                return
            try:
                with self.con:
                    self.con.execute(
                        "INSERT OR REPLACE INTO reply (key, text) VALUES (?, ?)", (key, text)
                    )
                return
            except sqlite3.Error as error:
                if attempt == 2:
                    self._skip(error)
                else:
                    self._failed(error)

    def forget(self, key: bytes) -> None:
        """Drop a stored reply the judge now refuses (stored before replies were checked)."""
        if self.con is None:
            return
        try:
            with self.con:
                self.con.execute("DELETE FROM reply WHERE key = ?", (key,))
        except sqlite3.Error as error:
            self._failed(error)

    def close(self) -> None:
        if self.con is not None:
            self.con.close()
            self.con = None
