"""Readers shared by the loaders: header-checked CSV/TSV rows, typed cells, "N. text" items.

Errors are the builder's ``DataError``: they name the file, the example index and the field.
Nothing here imports ``datasets``, so the CLI can use the "N. text" parser cheaply.
"""

from __future__ import annotations

import csv
import re

NUMBERED = re.compile(r"(\d+)\. (.*)\Z", re.S)  # "N. text", as in the CAM argument lists


def parse_numbered(text) -> tuple[int, str] | None:
    """``"N. text"`` -> (N, text); None when ``text`` is not numbered that way."""
    match = NUMBERED.match(text) if isinstance(text, str) else None
    return (int(match.group(1)), match.group(2)) if match else None


def split_numbered(text, builder, source, index, field) -> tuple[int, str]:
    """``"N. text"`` -> (N, text), or the builder's error naming the place."""
    parsed = parse_numbered(text)
    if parsed is None:
        raise builder.error(source, index, field, f"expected 'N. text', got {text!r}")
    return parsed


def csv_rows(builder, key: str, columns: list[str], delimiter: str = ","):
    """(index, row) of the builder's CSV/TSV source ``key`` after checking its header has
    ``columns``; every row must have exactly the header's cells. ``index`` counts data rows."""
    source = builder.SOURCES[key].filename
    with open(builder.source_path(key), encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter=delimiter)
        missing = [c for c in columns if c not in (reader.fieldnames or [])]
        if missing:
            raise builder.error(source, 0, missing[0], "column missing from the header")
        for index, row in enumerate(reader):
            if None in row or any(row[c] is None for c in columns):
                raise builder.error(source, index, columns[-1], "wrong number of cells")
            yield index, row


def _typed_cell(builder, key, index, row, field, convert, expected):
    try:
        return convert(row[field])
    except ValueError:
        raise builder.error(
            builder.SOURCES[key].filename, index, field, f"expected {expected}, got {row[field]!r}"
        ) from None


def tab_lines(builder, key: str, header: list[str]):
    """(index, cells) per line of a plain tab-separated source (no quoting: quotes are text)
    after checking its header line; every line must have the header's number of cells and
    a non-empty first cell. ``index`` counts data lines."""
    source = builder.SOURCES[key].filename
    with open(builder.source_path(key), encoding="utf-8", newline="") as handle:
        lines = handle.read().split("\n")
    if lines[0].split("\t") != header:
        expected = "\t".join(header)
        raise builder.error(source, 0, "header", f"expected {expected!r}, got {lines[0]!r}")
    if lines[-1] == "":
        lines.pop()
    for index, line in enumerate(lines[1:]):
        cells = line.split("\t")
        if len(cells) != len(header):
            raise builder.error(
                source,
                index,
                header[min(len(cells), len(header) - 1)],
                f"expected {len(header)} tab-separated cells, got {len(cells)}",
            )
        if not cells[0].strip():
            raise builder.error(source, index, header[0], "empty")
        yield index, cells


def int_cell(builder, key, index, row, field) -> int:
    return _typed_cell(builder, key, index, row, field, int, "an integer")


def float_cell(builder, key, index, row, field) -> float:
    return _typed_cell(builder, key, index, row, field, float, "a number")


def bool_cell(builder, key, index, row, field) -> bool:
    """The release's ``True`` / ``False`` strings."""
    if row[field] not in ("True", "False"):
        raise builder.error(
            builder.SOURCES[key].filename, index, field, f"expected True/False, got {row[field]!r}"
        )
    return row[field] == "True"
