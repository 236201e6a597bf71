"""The one place argbench reads and writes user files: JSON, JSON Lines and CSV readers, and
an atomic writer.

Readers follow the file's suffix (``.jsonl``, ``.csv``; anything else is JSON); errors name
the file and, for JSON Lines and CSV, the line.

Writers never write in place. The whole content is encoded first (an id that cannot be
encoded fails before any file is touched), written to a temporary file in the target's
folder, flushed and fsync'd, then renamed over the target: a full disk, a kill -9 or an
encoding error leaves the old file as it was, never a truncated one that still parses.
:func:`claim_output` checks an output path before the work that fills it (writable, not
one of the inputs) and takes a lock on it for the rest of the process, so a second run on
the same ``--out`` is refused at once instead of silently overwriting the first.

A multi-file output (a folder: the leaderboard site, the submissions, a Space, a dataset
build) is written by :func:`staged_folder` into a staging folder beside the target and
swapped in whole, with a manifest of what argbench wrote: an interrupted run (Ctrl-C,
kill -9, a full disk) leaves the old folder as it was, the next run recognises and removes
the leftovers, and a file argbench did not write (or that was edited since) is never deleted
or overwritten.
"""

from __future__ import annotations

import atexit
import bisect
import codecs
import csv
import ctypes
import errno
import hashlib
import io
import json
import math
import os
import re
import secrets
import shutil
import tempfile
import unicodedata
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = [
    "MANIFEST",
    "ForeignFilesError",
    "OutputBusyError",
    "Staging",
    "atomic_write",
    "check_output",
    "check_name",
    "check_text",
    "csv_cell",
    "decode_utf8",
    "claim_output",
    "lock_file",
    "looks_like_path",
    "name_key",
    "parse_json",
    "parse_yaml",
    "read_csv",
    "read_json",
    "read_jsonl",
    "read_records",
    "read_text",
    "record_lines",
    "is_claimed",
    "json_keys",
    "release_output",
    "save_figure",
    "staged_folder",
    "write_claimed",
    "write_json",
    "write_records",
]


class OutputBusyError(FileExistsError):
    """Another process is writing the same output path."""


class ForeignFilesError(FileExistsError):
    """An output folder holds files argbench did not write where it would write its own."""


# ---------------------------------------------------------------- readers


def read_text(path: Path) -> str:
    """The file as UTF-8 text (a leading byte-order mark is dropped); a byte that is not UTF-8
    is an error naming the file, its line and offset, and what the file looks like instead
    (UTF-16's byte-order mark, a binary file)."""
    path = _existing_file(path)
    return decode_utf8(path.read_bytes(), path)


def decode_utf8(data: bytes, where) -> str:
    """:func:`read_text` of bytes already read (a file inside a package's zip)."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            hint = "it is UTF-16 (byte-order mark); save it as UTF-8"
        else:
            hint = "save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)"
        raise ValueError(
            f"{where}: not UTF-8: byte 0x{data[error.start]:02x} at offset {error.start} (line "
            f"{line}, column {column}); {hint}"
        ) from None


def _existing_file(path) -> Path:
    path = Path(path)
    if not path.is_file():
        raise ValueError(
            f"{path} is a folder, not a file" if path.is_dir() else f"{path} does not exist"
        )
    return path


def _json_error(path, error: json.JSONDecodeError, line: int | None = None) -> ValueError:
    """A JSON syntax error naming the file, the line and column, and a cut-off file as such."""
    where = f"{path}, line {line if line is not None else error.lineno}"
    if line is None:
        where += f", column {error.colno}"
    # cut off: the error is at the very end (at most a cut number's "." or "-" left over)
    cut = error.msg.startswith("Unterminated string") or (
        error.msg.startswith("Expecting") and len(error.doc[error.pos :].strip()) <= 1
    )
    if error.msg.startswith("Unexpected UTF-8 BOM"):
        what = "not JSON: a byte-order mark (U+FEFF) starts it (UTF-8 files joined together?)"
    elif cut:
        what = f"not JSON: it ends inside a value ({error.msg}): the file was cut off (truncated)"
    else:
        what = (
            f"not JSON ({error.msg}, column {error.colno})" if line else f"not JSON ({error.msg})"
        )
    return ValueError(f"{where}: {what}")


class _OutOfRange:
    """A number of the file that Python cannot hold as the JSON reader would (a float beyond
    ±1.8e308, which would become inf; an integer of more digits than Python converts)."""

    def __init__(self, literal: str):
        self.literal = literal


_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")  # an escaped surrogate: maybe a lone one


def _checked_int(literal: str):
    try:
        return int(literal)
    except ValueError:  # more digits than sys.get_int_max_str_digits()
        return _OutOfRange(literal)


def parse_json(text: str, where: str):
    """``json.loads`` that names the file (and line) and field for what Python cannot hold:
    a number out of a float's range (``1e999``, which ``json`` reads as inf), an integer of
    thousands of digits, nesting deeper than the parser's recursion, a lone surrogate
    (``"\\ud800"``). The fields are looked for only when the text holds such a thing."""
    found = []

    def checked_float(literal: str):
        value = float(literal)
        if math.isfinite(value):
            return value
        found.append(literal)
        return _OutOfRange(literal)

    try:
        try:
            value = json.loads(text, parse_float=checked_float)
        except json.JSONDecodeError:
            raise
        except ValueError:  # an integer of more digits than Python converts
            value = json.loads(text, parse_float=checked_float, parse_int=_checked_int)
            found.append("int")
    except RecursionError:
        raise ValueError(
            f"{where}: nested too deeply (arrays or objects inside each other beyond what "
            "Python's JSON reader can follow); not a file argbench reads"
        ) from None
    if found or ("\\u" in text and _SURROGATE.search(text)):
        problem = _first_problem(value)
        if problem is not None:
            field, what = problem
            raise ValueError(f"{where}, field {field or '(the document)'}: {what}")
    return value


def _first_problem(value) -> tuple[str, str] | None:
    """(field path, what is wrong) of the first value :func:`parse_json` refuses, else None."""
    stack = [("", value)]
    while stack:
        field, item = stack.pop()
        if isinstance(item, _OutOfRange):
            shown = (
                item.literal
                if len(item.literal) <= 24
                else f"{item.literal[:20]}… ({len(item.literal):,} characters)"
            )
            return (
                field,
                f"the number {shown} is out of range (no finite float or integer Python can hold)",
            )
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return field, "a lone surrogate escape (\\ud800-\\udfff) that is no character"
        elif isinstance(item, dict):
            for key, inner in item.items():
                try:
                    key.encode("utf-8")
                except UnicodeEncodeError:
                    return field, f"a key with a lone surrogate escape ({key!r})"
                stack.append((f"{field}.{key}" if field else key, inner))
        elif isinstance(item, list):
            stack.extend((f"{field}[{k}]", inner) for k, inner in enumerate(item))
    return None


YAML_VALUES = 1_000_000  # values a YAML file may hold once its aliases are expanded


def parse_yaml(text: str, where: str, load):
    """``load(text)`` (PyYAML's ``safe_load``, ruamel's round-trip ``load``) that names the
    file and field for what :func:`parse_json` refuses in JSON: a number out of a float's range
    (``1.0e+999``, ``9999…9.5``, which YAML reads as inf; YAML has no use for inf or nan in
    argbench's files, so ``.inf`` and ``.nan`` are refused too), an integer of more digits
    than Python converts, nesting deeper than the parser's recursion, a lone surrogate escape
    (``"\\ud800"``); and, YAML's own trap, aliases that expand to more than
    :data:`YAML_VALUES` values ("billion laughs") or an alias inside its own anchor. The
    loaded value keeps its aliases shared (nothing is expanded to check it). The library's
    own syntax errors are left to the caller (its message names the line)."""
    try:
        value = load(text)
    except RecursionError:
        raise ValueError(
            f"{where}: nested too deeply (lists or mappings inside each other beyond what "
            "Python's YAML reader can follow); not a file argbench reads"
        ) from None
    except ValueError as error:  # int(): more digits than sys.get_int_max_str_digits()
        found = re.search(r"[0-9][0-9_]{4300,}", text)
        if found is None:
            raise ValueError(f"{where}: {error}") from None
        line = text.count("\n", 0, found.start()) + 1
        raise ValueError(
            f"{where}, line {line}: the number {found.group()[:20]}… ({len(found.group()):,} "
            "characters) is out of range (no integer Python can hold)"
        ) from None
    problem = _yaml_problem(value)
    if problem is not None:
        field, what = problem
        raise ValueError(f"{where}, field {field or '(the document)'}: {what}")
    return value


def _yaml_problem(value) -> tuple[str, str] | None:
    """(field path, what is wrong) of the first value :func:`parse_yaml` refuses, else None.
    Each object is looked at once (an alias is the same object as its anchor), so a billion
    laughs costs its size on disk, not its expansion."""
    size: dict[int, int] = {}  # id of a list or mapping -> values under it, aliases expanded
    open_ = set()  # ids of the lists and mappings being walked (an alias to one: a cycle)
    stack: list = [(False, "", value)]
    while stack:
        done, field, item = stack.pop()
        if isinstance(item, (dict, list)):
            key = id(item)
            inner = (
                [(f"{field}.{k}" if field else str(k), v) for k, v in item.items()]
                if isinstance(item, dict)
                else [(f"{field}[{k}]", v) for k, v in enumerate(item)]
            )
            if done:
                open_.discard(key)
                size[key] = (
                    1
                    + sum(
                        size.get(id(v), 1) if isinstance(v, (dict, list)) else 1 for _, v in inner
                    )
                    + (len(item) if isinstance(item, dict) else 0)
                )
                if size[key] > YAML_VALUES:
                    return field, (
                        f"aliases that expand to over {YAML_VALUES:,} values (a 'billion "
                        "laughs'); write the values out or use fewer aliases"
                    )
                continue
            if key in open_:
                return field, "an alias inside its own anchor (the value holds itself)"
            if key in size:
                continue
            open_.add(key)
            stack.append((True, field, item))
            if isinstance(item, dict):
                for k in item:
                    problem = _yaml_scalar_problem(k)
                    if problem:
                        return field, f"a key that is {problem}"
            stack.extend((False, f, v) for f, v in reversed(inner))
        else:
            problem = _yaml_scalar_problem(item)
            if problem:
                return field, problem
    return None


def _yaml_scalar_problem(item) -> str | None:
    if isinstance(item, float) and not math.isfinite(item):
        return (
            f"the number {item} is not finite (a number beyond ±1.8e308, such as 1.0e+999, "
            "reads as inf; argbench's YAML files have no use for inf or nan)"
        )
    if isinstance(item, str):
        try:
            item.encode("utf-8")
        except UnicodeEncodeError:
            return "a lone surrogate escape (\\ud800-\\udfff) that is no character"
    return None


def read_json(path: Path):
    """The parsed JSON document of ``path``."""
    text = read_text(path)
    try:
        return parse_json(text, str(path))
    except json.JSONDecodeError as error:
        hint = "; JSON Lines files end in .jsonl" if error.msg.startswith("Extra data") else ""
        raise ValueError(f"{_json_error(path, error)}{hint}") from None


def read_jsonl(path: Path) -> list:
    """One record per non-blank line."""
    records = []
    for number, line in enumerate(read_text(path).split("\n"), 1):
        if line.strip():
            try:
                records.append(parse_json(line, f"{path}, line {number}"))
            except json.JSONDecodeError as error:
                raise _json_error(path, error, number) from None
    return records


def read_csv(path: Path) -> list[dict]:
    """One dict per row. A row with more or fewer cells than the header is an error naming
    its line (csv.DictReader would drop the extra cells or fill the missing ones with None)."""
    reader = None
    text = read_text(path)
    if "\ufeff" in text:  # past the start: read_text dropped a leading one
        line = text.count("\n", 0, text.index("\ufeff")) + 1
        raise ValueError(
            f"{path}, line {line}: a byte-order mark (U+FEFF) inside the file (CSV files "
            "joined together?): its header would be read as a row"
        )
    try:
        with io.StringIO(text, newline="") as handle:
            reader = csv.reader(handle)
            return _csv_rows(path, reader)
    except csv.Error as error:  # a NUL byte, an unclosed quote in strict mode, a huge cell
        line = reader.line_num if reader is not None else 1
        raise ValueError(f"{path}, line {line}: not CSV ({error})") from None


def _csv_rows(path, reader) -> list[dict]:
    header = next(reader, [])
    seen = set()
    for name in header:
        if name in seen or not name.strip():
            what = f"names {name!r} twice" if name in seen else "has an empty column name"
            raise ValueError(f"{path}, line 1: the header {what}")
        seen.add(name)
    rows = []
    for cells in reader:
        if not cells:
            continue  # a blank line
        if len(cells) != len(header):
            raise ValueError(
                f"{path}, line {reader.line_num}: {len(cells)} cells but the header has "
                f"{len(header)} ({', '.join(header)}); quote cells that hold commas"
            )
        rows.append(dict(zip(header, cells, strict=True)))
    return rows


def read_records(path, formats=("json", "jsonl", "csv")):
    """The records of ``path``: a list (JSON list, JSONL, CSV) or, for a JSON object, the
    object itself (records keyed by id)."""
    path = _existing_file(path)
    kind = {".jsonl": "jsonl", ".csv": "csv"}.get(path.suffix, "json")
    if kind not in formats:
        endings = ", ".join("." + f for f in formats)
        raise ValueError(f"{path.name!r}: expected a file ending in {endings}")
    return {"json": read_json, "jsonl": read_jsonl, "csv": read_csv}[kind](path)


def record_lines(path) -> list[int]:
    """The 1-based line on which each record of ``path`` starts, in :func:`read_records`'
    order (JSON Lines: its line; a JSON list: where each element starts; a JSON object: where
    each key stands; CSV: each row's first line). For error messages: a person finds a line,
    not a 0-based record number. Reads the file again, so call it only to name a record."""
    path = _existing_file(path)
    text = read_text(path)
    if path.suffix == ".jsonl":
        return [n for n, line in enumerate(text.split("\n"), 1) if line.strip()]
    if path.suffix == ".csv":
        with io.StringIO(text, newline="") as handle:
            reader = csv.reader(handle)
            next(reader, None)
            starts, line = [], reader.line_num
            for cells in reader:
                if cells:
                    starts.append(line + 1)
                line = reader.line_num
            return starts
    return [line for line, _ in _json_records(text)]


def json_keys(path) -> list[tuple[str, int]]:
    """(key, 1-based line) of each key of the top-level JSON object of ``path``, as written:
    a key written twice is here twice (``json`` keeps only the last value of a repeated
    key, silently)."""
    return [(key, line) for line, key in _json_records(read_text(_existing_file(path)))]


def _json_records(text: str) -> list[tuple[int, str | None]]:
    """(line, key or None) of each element of the top-level JSON list (each key of the
    top-level object) of ``text``, a document :func:`parse_json` read."""
    newlines = [k for k, char in enumerate(text) if char == "\n"]
    return [(bisect.bisect_left(newlines, offset) + 1, key) for offset, key in _json_offsets(text)]


def _json_offsets(text: str) -> list[tuple[int, str | None]]:
    decoder, space = json.JSONDecoder(), re.compile(r"[ \t\n\r]*")
    at = space.match(text).end()
    if text[at : at + 1] not in ("[", "{"):
        return []
    keyed = text[at] == "{"
    at = space.match(text, at + 1).end()
    offsets: list[tuple[int, str | None]] = []
    while text[at : at + 1] not in ("]", "}", ""):
        start, key = at, None
        if keyed:
            key, at = decoder.raw_decode(text, at)
            at = space.match(text, at).end() + 1  # the ":"
            at = space.match(text, at).end()
        _, at = decoder.raw_decode(text, at)
        offsets.append((start, key))
        at = space.match(text, at).end()
        if text[at : at + 1] == ",":
            at = space.match(text, at + 1).end()
    return offsets


def looks_like_path(name: str) -> bool:
    """A name the user meant as a folder, not a Hub id (``name`` or ``owner/name``)."""
    name = str(name)
    return (
        name.startswith(("/", "./", "../", "~", ".\\")) or name.count("/") > 1 or name.endswith("/")
    )


# ---------------------------------------------------------------- locks


@contextmanager
def lock_file(path: Path, *, wait: bool = True, on_wait=lambda: None):
    """Hold an exclusive flock on ``path`` (created; deleted when released). flock is
    released by the kernel when the process dies, so a killed holder never blocks the next.
    ``wait=False``: raise :class:`BlockingIOError` at once when another process holds it.
    Without fcntl (Windows) nothing is locked."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    path = Path(path)
    told = False
    while True:
        handle = open(path, "a")  # noqa: SIM115 - held until released
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not wait:
                handle.close()
                raise
            if not told:
                on_wait()
                told = True
            fcntl.flock(handle, fcntl.LOCK_EX)
        held = os.fstat(handle.fileno())
        try:
            now = path.stat()
        except FileNotFoundError:
            now = None
        if now is not None and (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino):
            break
        handle.close()  # the previous holder deleted this file: take the new one
    try:
        yield
    finally:
        path.unlink(missing_ok=True)  # while still holding it
        handle.close()


# ---------------------------------------------------------------- outputs

_CLAIMED: dict[Path, object] = {}  # output path -> its held lock (a context manager)


def _lock_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.argbench-lock")


def _same(a: Path, b: Path) -> bool:
    try:
        return a.exists() and b.exists() and os.path.samefile(a, b)
    except OSError:
        return False


def cache_folder(env: str, name: str) -> Path:
    """``$env``, else ``$HF_HOME/argbench/<name>`` (read at call time): where argbench keeps a
    cache of its own (embeddings, LLM replies), beside the HF libraries' caches."""
    if os.environ.get(env):
        return Path(os.environ[env])
    hf_home = os.environ.get("HF_HOME")
    if not hf_home:
        from huggingface_hub import constants

        hf_home = constants.HF_HOME
    return Path(hf_home) / "argbench" / name


def check_output(
    path, *, inputs: Iterable = (), suffixes=(".csv", ".jsonl"), what="--out", create=True
):
    """``path`` can be written: the right suffix, not a folder, its folder creatable and
    writable, not one of ``inputs``. Checked before the work that fills it. ``create=False``:
    a missing folder is not made yet (a refused run leaves no empty folder behind); the
    nearest folder that exists must be writable."""
    path = Path(path)
    if suffixes and path.suffix not in suffixes:
        endings = " or ".join(
            [", ".join(suffixes[:-1]), suffixes[-1]] if len(suffixes) > 1 else suffixes
        )
        raise ValueError(f"{what} {path.name!r}: expected a file ending in {endings}")
    if path.is_dir():
        raise IsADirectoryError(f"{what} {path} is a folder; {what} takes a file name")
    for source in inputs:
        if source is not None and (
            _same(path, Path(source)) or path.resolve() == Path(source).resolve()
        ):
            raise ValueError(
                f"{what} {path} is also an input ({source}); writing it would destroy the input: "
                "choose another output name"
            )
    folder = path.parent
    if not create and not folder.exists():
        existing = next((p for p in folder.parents if p.exists()), Path("."))
        if not existing.is_dir():
            raise NotADirectoryError(
                f"{what} {path}: cannot create its folder {folder}, a part of that path is a file"
            )
        folder = existing  # checked below; made when the output is written
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise NotADirectoryError(
            f"{what} {path}: cannot create its folder {folder}, a part of that path is a file"
        ) from None
    except PermissionError as error:
        raise PermissionError(
            f"{what} {path}: cannot create its folder {folder} ({error.strerror})"
        ) from None
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise PermissionError(
            f"{what} {path}: not writable (permission denied); choose a place you can write to"
        )
    return path


def claim_output(path, *, inputs: Iterable = (), suffixes=(".csv", ".jsonl"), what="--out"):
    """:func:`check_output`, then hold ``path``'s lock until :func:`release_output` or the
    end of the process; another process claiming the same path is refused at once
    (:class:`OutputBusyError`), before it does any work."""
    path = check_output(path, inputs=inputs, suffixes=suffixes, what=what)
    key = path.resolve()
    if key in _CLAIMED:
        return path
    lock = lock_file(_lock_path(path), wait=False)
    try:
        lock.__enter__()
    except BlockingIOError:
        raise OutputBusyError(
            f"{what} {path} is being written by another running argbench process; wait for it "
            "to finish or choose another output name"
        ) from None
    except PermissionError as error:
        raise PermissionError(f"{what} {path}: not writable ({error.strerror})") from None
    _CLAIMED[key] = lock
    return path


def is_claimed(path) -> bool:
    """Whether this process holds ``path``'s output claim (:func:`claim_output`)."""
    return Path(path).resolve() in _CLAIMED


def release_output(path) -> None:
    lock = _CLAIMED.pop(Path(path).resolve(), None)
    if lock is not None:
        lock.__exit__(None, None, None)


@atexit.register
def _release_all() -> None:
    for path in list(_CLAIMED):
        release_output(path)


def atomic_write(path, data: bytes | str) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder (flush, fsync,
    rename): the target holds either its old content or the new, whole. A failure (full
    disk, no permission) removes the temporary file and says the target was left unchanged.
    A symbolic link is written through (the file it points at), never replaced by a file."""
    path = Path(path)
    if path.is_symlink():  # write the file the link points at; the link stays a link
        path = Path(os.path.realpath(path))
    if isinstance(data, str):
        data = data.encode("utf-8")  # before any file is opened: an encoding error changes nothing
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException as error:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(error, OSError):
            state = "left unchanged" if path.exists() else "not created"
            raise OSError(
                error.errno,
                f"cannot write {path} ({error.strerror or error}); the file was {state}",
            ) from None
        raise
    try:  # the rename itself on disk
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
    except OSError:
        pass
    return path


def write_claimed(path, data: bytes | str, *, suffixes=(".json",), what="output") -> Path:
    """:func:`atomic_write` under the output's claim (:func:`claim_output`): taken for the
    write when this process does not hold it yet (then released), so a library caller gets
    the same refusal of a path another run is writing as the command line does."""
    path = Path(path)
    held = path.resolve() in _CLAIMED
    claim_output(path, suffixes=suffixes, what=what)
    try:
        return atomic_write(path, data)
    finally:
        if not held:
            release_output(path)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def check_text(value: str, where: str) -> None:
    """A str that UTF-8 (Arrow, the embedding cache keys) can store: no lone surrogates."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ValueError(
            f"{where}: not valid Unicode: lone surrogate {value[error.start]!r} at position "
            f"{error.start} (a text decoded with errors='surrogateescape' or a broken \\ud8xx "
            "escape); fix or drop that character"
        ) from None


def _encodable(text: str, what: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ValueError(
            f"{what}: not valid Unicode at position {error.start} "
            f"({text[error.start : error.end]!r}); nothing was written"
        ) from None
    return text


def write_json(path, value, *, indent=1, ensure_ascii=False, allow_nan=False, claim=False) -> Path:
    """``value`` as JSON (UTF-8; NaN refused unless ``allow_nan``), written atomically
    (``claim``: under the output's claim, :func:`write_claimed`)."""
    text = json.dumps(value, ensure_ascii=ensure_ascii, allow_nan=allow_nan, indent=indent) + "\n"
    text = _encodable(text, str(path))
    if claim:
        return write_claimed(path, text, suffixes=(Path(path).suffix,), what="output")
    return atomic_write(path, text)


def save_figure(fig, path, **options) -> Path:
    """A matplotlib figure as a PNG, rendered in memory then written atomically."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", **options)
    return atomic_write(path, buffer.getvalue())


# a spreadsheet evaluates a cell that starts with one of these as a formula (CSV injection)
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value):
    """``value`` as a CSV cell a spreadsheet shows as text: a text starting with ``=``, ``+``,
    ``-``, ``@``, a tab or a carriage return gets a leading ``'`` (a number, and a text that
    is one such as ``-0.5``, are left as they are)."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        try:
            float(value)
        except ValueError:
            return "'" + value
    return value


def check_name(name: str, where: str) -> str:
    """A name a person reads (a system's): refused when it holds a control character (a
    terminal escape, a line break) or an invisible format character (bidi controls such as
    U+202E, zero-width characters), which make a name show as another; returned as given."""
    check_text(name, where)
    for index, char in enumerate(name):
        if unicodedata.category(char) in ("Cc", "Cf"):
            kind = (
                "a control character"
                if unicodedata.category(char) == "Cc"
                else ("an invisible format character (bidi control or zero-width)")
            )
            raise ValueError(
                f"{where} {name!r}: {kind}, U+{ord(char):04X} "
                f"({unicodedata.name(char, 'unnamed')}), at position {index}: a name is shown "
                "to people; remove it"
            )
    return name


def printable(text) -> str:
    """``text`` (a file name a user gave) as it may go to a terminal or a page: unchanged,
    unless it holds a control or invisible format character (a terminal escape, a bidi
    control), then as Python writes it (``repr``: escaped, quoted), so what is shown is what
    the name holds."""
    text = str(text)
    if any(unicodedata.category(char) in ("Cc", "Cf") for char in text):
        return repr(text)
    return text


def name_key(name: str) -> str:
    """What two names are compared by: Unicode NFKC (full-width and compatibility forms
    folded), invisible format characters removed, spaces collapsed, case folded. Two names
    with one key read alike: refused where names must be told apart."""
    text = unicodedata.normalize("NFKC", str(name))
    text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    return " ".join(text.split()).casefold()


def write_records(path, rows: list[dict]) -> None:
    """``rows`` as CSV (header from the first row; text a spreadsheet would evaluate
    neutralised, :func:`csv_cell`) or JSON Lines, by the suffix of ``path``, written
    atomically."""
    path = check_output(path)
    buffer = io.StringIO(newline="")
    if path.suffix == ".jsonl":
        for row in rows:
            buffer.write(json.dumps(row) + "\n")
    else:
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]) if rows else [])
        writer.writeheader()
        writer.writerows({k: csv_cell(v) for k, v in row.items()} for row in rows)
    atomic_write(path, _encodable(buffer.getvalue(), str(path)))


# ---------------------------------------------------------------- folders written whole

MANIFEST = ".argbench-manifest"  # in an output folder: the files argbench wrote there (JSON;
# no .json suffix: a glob for results files, *.json, never picks it up)
# an earlier manifest: a JSON list of the names argbench wrote (no digests); read, never written
_LEGACY_MANIFESTS = (".argbench-leaderboard.json",)
_BOOKKEEPING = {MANIFEST, *_LEGACY_MANIFESTS}


class Staging:
    """A folder being written by :func:`staged_folder`: write into :attr:`path`; it replaces
    :attr:`target` whole when the work is done."""

    def __init__(self, target: Path, path: Path, earlier: dict[str, str | None]):
        self.target = target
        self.path = path
        self._earlier = earlier  # relative name -> digest, of the files argbench wrote before

    def target_of(self, path) -> Path:
        """Where ``path`` (under :attr:`path`) will be once the folder is swapped in."""
        return self.target / Path(path).relative_to(self.path)

    def earlier(self, path) -> Path | None:
        """The target's file at ``path``'s place when argbench wrote it there and nobody
        changed it since (what a run may compare its new file with), else None."""
        name = Path(path).relative_to(self.path).as_posix()
        old = self.target / name
        if name not in self._earlier or old.is_symlink() or not old.is_file():
            return None
        digest = self._earlier[name]
        return old if digest is None or digest == _digest(old) else None


@contextmanager
def staged_folder(
    target, *, what: str = "--out", dry_run: bool = False, wait: str | None = None, log=print
) -> Iterator[Staging]:
    """Write a whole output folder: yields a :class:`Staging` whose ``path`` (a folder beside
    ``target``) the caller fills; when the block ends without an error, the files of
    ``target`` that argbench did not write are carried over (hard links), a manifest of what
    was written is added, and the staging folder is swapped in for ``target`` in one rename
    (``renameat2(RENAME_EXCHANGE)`` where the system has it). An error, Ctrl-C or kill -9
    leaves ``target`` as it was; the next run removes what an interrupted one left beside it
    (and puts back a folder a kill cut off between two renames).

    Refused (:class:`ForeignFilesError`, nothing changed): a ``target`` that holds files but
    no manifest (a folder argbench did not write), and a run that would write over a file
    argbench did not write or that was edited since. ``dry_run``: the same work and checks,
    then the staging folder is removed and ``target`` is not touched. A second run on the same
    target is refused at once (:class:`OutputBusyError`), or, with ``wait`` (a message for
    ``log``), waits its turn."""
    target = Path(os.path.abspath(target))
    if target.is_symlink() and target.is_dir():
        target = target.resolve()  # the folder the link points at is the output
    if target.exists() and not target.is_dir():
        raise NotADirectoryError(f"{what} {target} is a file; pass a folder")
    _make_folder(target.parent, what)
    lock = target.parent / f".{target.name}.argbench-lock"
    try:
        held = lock_file(lock, wait=bool(wait), on_wait=lambda: log(wait))
        held.__enter__()
    except BlockingIOError:
        raise OutputBusyError(
            f"{what} {target} is being written by another running argbench process; wait for "
            "it to finish or choose another folder"
        ) from None
    except PermissionError as error:
        raise PermissionError(f"{what} {target}: not writable ({error.strerror})") from None
    try:
        _heal(target, log)
        earlier = _earlier_files(target, what)
        staging = target.with_name(f".{target.name}.staging-{os.getpid()}-{secrets.token_hex(4)}")
        staging.mkdir()  # not tempfile.mkdtemp: its 0700 would make the output private
        try:
            yield Staging(target, staging, earlier)
            written = {
                name: _digest(staging / name)
                for name, kind in _entries(staging).items()
                if kind == "file"
            }
            foreign = _foreign(target, earlier)
            _refuse_collisions(target, foreign, written, what)
            if not dry_run:
                _carry_over(target, staging, foreign)
                write_json(staging / MANIFEST, {"written_by": "argbench", "files": written})
                _swap_in(staging, target)
        finally:
            if staging.exists():
                _remove_tree(staging)
    finally:
        held.__exit__(None, None, None)


def _make_folder(folder: Path, what: str) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise NotADirectoryError(
            f"{what}: cannot create the folder {folder}, a part of that path is a file"
        ) from None
    except PermissionError as error:
        raise PermissionError(
            f"{what}: cannot create the folder {folder} ({error.strerror})"
        ) from None


def _digest(path: Path) -> str:
    sha = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()


def _entries(folder: Path, prefix: str = "") -> dict[str, str]:
    """Relative name -> "file", "link" or "folder" (an empty one) of everything under
    ``folder``, links not followed; locks and argbench's bookkeeping files left out."""
    found: dict[str, str] = {}
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        name = prefix + entry.name
        if entry.name.endswith(".argbench-lock") or (not prefix and entry.name in _BOOKKEEPING):
            continue
        if entry.is_symlink():
            found[name] = "link"
        elif entry.is_dir():
            inside = _entries(Path(entry.path), name + "/")
            found.update(inside or {name: "folder"})
        else:
            found[name] = "file"
    return found


def _manifest(folder: Path) -> dict[str, str | None] | None:
    """The files argbench wrote into ``folder`` (name -> sha256, None when an older manifest
    kept no digest), or None when it holds no manifest."""
    for name in (MANIFEST, *_LEGACY_MANIFESTS):
        path = folder / name
        if path.is_file():
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (ValueError, UnicodeDecodeError):
                raise ForeignFilesError(
                    f"{path}: argbench's manifest of that folder is not readable (edited?); "
                    "move the folder away or choose another one"
                ) from None
            if isinstance(data, list):
                return dict.fromkeys(map(str, data))
            files = data.get("files") if isinstance(data, dict) else None
            if isinstance(files, dict):
                return {str(k): str(v) for k, v in files.items()}
            raise ForeignFilesError(f"{path}: not a manifest argbench wrote; move the folder away")
    return None


def _earlier_files(target: Path, what: str) -> dict[str, str | None]:
    if not target.is_dir():
        return {}
    earlier = _manifest(target)
    if earlier is None:
        held = list(_entries(target))
        if held:
            listed = ", ".join(held[:3]) + (f" and {len(held) - 3} more" if len(held) > 3 else "")
            raise ForeignFilesError(
                f"{what} {target} holds files that argbench did not write ({listed}); choose a "
                "new or empty folder (argbench never deletes or overwrites a file it did not "
                "write)"
            )
        return {}
    return earlier


def _foreign(target: Path, earlier: dict[str, str | None]) -> dict[str, str]:
    """What ``target`` holds that argbench did not write there, or that was changed since."""
    if not target.is_dir():
        return {}
    foreign = {}
    for name, kind in _entries(target).items():
        digest = earlier.get(name, "") if name in earlier else ""
        ours = kind == "file" and name in earlier and digest in (None, _digest(target / name))
        if not ours:
            foreign[name] = kind
    return foreign


def _refuse_collisions(target: Path, foreign: dict, written: dict, what: str) -> None:
    def parents(name: str) -> set[str]:
        parts = name.split("/")
        return {"/".join(parts[:k]) for k in range(1, len(parts))}

    written_parents = set().union(*map(parents, written)) if written else set()
    clash = [
        name
        for name in foreign
        if name in written
        or (foreign[name] != "folder" and name in written_parents)
        or parents(name) & set(written)
    ]
    if clash:
        listed = ", ".join(clash[:5]) + (f" and {len(clash) - 5} more" if len(clash) > 5 else "")
        raise ForeignFilesError(
            f"{what} {target}: this run writes where files stand that argbench did not write "
            f"or that were edited since it wrote them ({listed}); nothing was changed. Move "
            "them away or choose another folder"
        )


def _carry_over(target: Path, staging: Path, foreign: dict[str, str]) -> None:
    """The files of ``target`` argbench did not write, into ``staging`` at the same place:
    hard links (the same file, no copy), a link as a link, an empty folder as a folder."""
    for name, kind in foreign.items():
        source, copy = target / name, staging / name
        copy.parent.mkdir(parents=True, exist_ok=True)
        if kind == "link":
            os.symlink(os.readlink(source), copy)
        elif kind == "folder":
            copy.mkdir(exist_ok=True)
        else:
            try:
                os.link(source, copy)
            except OSError:
                shutil.copy2(source, copy)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux renameat2 RENAME_EXCHANGE); False where the system
    cannot (then the caller uses two renames)."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(code, f"cannot swap {a} in for {b} ({os.strerror(code)})")


def _swap_in(staging: Path, target: Path) -> None:
    """``staging`` becomes ``target``; the old ``target`` is removed once the new one is in place."""
    old = target.with_name(f".{target.name}.old-{os.getpid()}-{secrets.token_hex(4)}")
    if not target.exists():
        os.replace(staging, target)
        return
    if _exchange(staging, target):
        os.replace(staging, old)  # the old folder, now at the staging name
    else:  # a kill between these two renames: the next run puts `old` back (_heal)
        os.replace(target, old)
        os.replace(staging, target)
    _remove_tree(old)


def _ours(folder: Path) -> bool:
    """An old output argbench moved aside: its manifest, or nothing in it."""
    if folder.is_symlink():
        return True  # a link argbench never makes there: removing it deletes nothing else
    return folder.is_dir() and (
        any((folder / name).exists() for name in _BOOKKEEPING) or not any(folder.iterdir())
    )


def _heal(target: Path, log) -> None:
    """Remove what an interrupted run left beside ``target``; an old output a kill cut off
    between two renames is put back first."""
    stem = f".{target.name}."
    leftovers = sorted(
        (
            p
            for p in target.parent.iterdir()
            if p.name.startswith(stem + "staging-")
            or (p.name.startswith(stem + "old-") and _ours(p))
        ),
        key=lambda p: p.lstat().st_mtime,
    )
    olds = [p for p in leftovers if p.name[len(stem) :].startswith("old-")]
    if (
        olds
        and not target.exists()
        and not olds[-1].is_symlink()
        and (olds[-1] / MANIFEST).is_file()
    ):
        os.replace(olds[-1], target)
        log(f"put back {target}, which an interrupted run had moved to {olds[-1].name}")
    for path in leftovers:
        kind = path.name[len(stem) :].split("-", 1)[0]
        if kind in ("staging", "old") and (path.exists() or path.is_symlink()):
            _remove_tree(path)
            log(f"removed {path.name}, left by an interrupted run")


def _remove_tree(path: Path) -> None:
    if path.is_symlink() or not path.is_dir():
        path.unlink(missing_ok=True)
    else:
        shutil.rmtree(path)
