"""Reading and writing the record files the CLI takes: JSON, JSON Lines, CSV.

The format follows the file's suffix (``.jsonl``, ``.csv``; anything else is read as JSON);
errors name the file and, for JSON Lines, the line.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
from pathlib import Path


def read_text(path: Path) -> str:
    """The file as UTF-8 text (a leading byte-order mark is dropped); a byte that is not UTF-8
    is an error naming the file, its offset and line."""
    data = Path(path).read_bytes()
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise ValueError(
            f"{path}: not UTF-8: byte 0x{data[error.start]:02x} at offset {error.start} (line "
            f"{line}); save the file as UTF-8 (e.g. iconv -f latin1 -t utf-8)"
        ) from None


def read_json(path: Path):
    """The parsed JSON document of ``path``."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(
            f"{path} is a folder, not a file" if path.is_dir() else f"{path} does not exist"
        )
    try:
        return json.loads(read_text(path))
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: not JSON ({error}); JSON Lines files end in .jsonl") from None


def read_jsonl(path: Path) -> list:
    """One record per non-blank line."""
    records = []
    for number, line in enumerate(read_text(path).split("\n"), 1):
        if line.strip():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as error:
                raise ValueError(f"{path}, line {number}: not JSON ({error})") from None
    return records


def read_csv(path: Path) -> list[dict]:
    """One dict per row. A row with more or fewer cells than the header is an error naming
    its line (csv.DictReader would drop the extra cells or fill the missing ones with None)."""
    with io.StringIO(read_text(path), newline="") as handle:
        reader = csv.reader(handle)
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
    path = Path(path)
    if not path.is_file():
        raise ValueError(
            f"{path} is a folder, not a file" if path.is_dir() else f"{path} does not exist"
        )
    kind = {".jsonl": "jsonl", ".csv": "csv"}.get(path.suffix, "json")
    if kind not in formats:
        endings = ", ".join("." + f for f in formats)
        raise ValueError(f"{path.name!r}: expected a file ending in {endings}")
    return {"json": read_json, "jsonl": read_jsonl, "csv": read_csv}[kind](path)


def check_output(path) -> Path:
    """``path`` can take ``write_records``' output; checked before the work that fills it."""
    path = Path(path)
    if path.suffix not in (".csv", ".jsonl"):
        raise ValueError(f"{path.name!r}: expected a file ending in .csv or .jsonl")
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a folder; --out takes a file name")
    return path


def write_records(path, rows: list[dict]) -> None:
    """``rows`` as CSV (header from the first row) or JSON Lines, by the suffix of ``path``."""
    path = check_output(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="") as handle:
        if path.suffix == ".jsonl":
            for row in rows:
                handle.write(json.dumps(row) + "\n")
        else:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
