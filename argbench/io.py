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
"""

from __future__ import annotations

import atexit
import codecs
import csv
import io
import json
import os
import tempfile
from collections.abc import Iterable
from contextlib import contextmanager
from pathlib import Path

__all__ = [
    "OutputBusyError",
    "atomic_write",
    "check_output",
    "check_text",
    "claim_output",
    "lock_file",
    "looks_like_path",
    "read_csv",
    "read_json",
    "read_jsonl",
    "read_records",
    "read_text",
    "is_claimed",
    "release_output",
    "save_figure",
    "write_claimed",
    "write_json",
    "write_records",
]


class OutputBusyError(FileExistsError):
    """Another process is writing the same output path."""


# ---------------------------------------------------------------- readers


def read_text(path: Path) -> str:
    """The file as UTF-8 text (a leading byte-order mark is dropped); a byte that is not UTF-8
    is an error naming the file, its line and offset, and what the file looks like instead
    (UTF-16's byte-order mark, a binary file)."""
    path = _existing_file(path)
    data = path.read_bytes()
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
            f"{path}: not UTF-8: byte 0x{data[error.start]:02x} at offset {error.start} (line "
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


def read_json(path: Path):
    """The parsed JSON document of ``path``."""
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        hint = "; JSON Lines files end in .jsonl" if error.msg.startswith("Extra data") else ""
        raise ValueError(f"{_json_error(path, error)}{hint}") from None


def read_jsonl(path: Path) -> list:
    """One record per non-blank line."""
    records = []
    for number, line in enumerate(read_text(path).split("\n"), 1):
        if line.strip():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as error:
                raise _json_error(path, error, number) from None
    return records


def read_csv(path: Path) -> list[dict]:
    """One dict per row. A row with more or fewer cells than the header is an error naming
    its line (csv.DictReader would drop the extra cells or fill the missing ones with None)."""
    reader = None
    try:
        with io.StringIO(read_text(path), newline="") as handle:
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


def check_output(path, *, inputs: Iterable = (), suffixes=(".csv", ".jsonl"), what="--out"):
    """``path`` can be written: the right suffix, not a folder, its folder creatable and
    writable, not one of ``inputs``. Checked before the work that fills it."""
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
    disk, no permission) removes the temporary file and says the target was left unchanged."""
    path = Path(path)
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


def write_records(path, rows: list[dict]) -> None:
    """``rows`` as CSV (header from the first row) or JSON Lines, by the suffix of ``path``,
    written atomically."""
    path = check_output(path)
    buffer = io.StringIO(newline="")
    if path.suffix == ".jsonl":
        for row in rows:
            buffer.write(json.dumps(row) + "\n")
    else:
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]) if rows else [])
        writer.writeheader()
        writer.writerows(rows)
    atomic_write(path, _encodable(buffer.getvalue(), str(path)))
