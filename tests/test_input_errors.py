"""argbench.io's readers, tried with broken files: every error names the file and the line
(and column or cell where there is one) and says what is wrong, never a traceback. Each case
has a control that reads."""

from __future__ import annotations

import json

import pytest

from argbench.cli import main
from argbench.io import read_csv, read_json, read_jsonl

GOOD_LINES = b'{"id": "a", "score": 0.5}\n{"id": "b", "score": 0.25}\n'


@pytest.mark.parametrize(
    "name, data, message",
    [
        # old: "not JSON (Expecting ',' delimiter: line 1 column 26 ...)": no hint of a cut file
        ("cut.jsonl", GOOD_LINES + b'{"id": "c", "sc', "cut.jsonl, line 3: not JSON: it ends "
         "inside a value (Unterminated string starting at): the file was cut off (truncated)"),
        # old: "Unexpected UTF-8 BOM (decode using utf-8-sig)": two files joined together
        ("joined.jsonl", GOOD_LINES + b"\xef\xbb\xbf" + GOOD_LINES,
         "joined.jsonl, line 3: not JSON: a byte-order mark (U+FEFF) starts it"),
        ("latin1.jsonl", GOOD_LINES + b'{"id": "caf\xe9"}\n',
         "latin1.jsonl: not UTF-8: byte 0xe9 at offset 64 (line 3, column 12)"),
        ("utf16.json", '{"id": 1}'.encode("utf-16"), "it is UTF-16 (byte-order mark)"),
        ("cut.json", b'{"metric": "x", "result": {"f1": 0.', "cut.json, line 1, column 35: not "
         "JSON: it ends inside a value (Expecting ',' delimiter): the file was cut off"),
        ("two.json", b'{"a": 1}\n{"b": 2}\n', "two.json, line 2, column 1: not JSON (Extra data);"
         " JSON Lines files end in .jsonl"),
        # old: csv.Error (not a ValueError): a raw traceback from any command reading it
        ("huge.csv", b"id,text\na," + b"x" * 200_000 + b"\n", "huge.csv, line 2: not CSV (field "
         "larger than field limit"),
        ("short.csv", b"id,text\na\n", "short.csv, line 2: 1 cells but the header has 2"),
    ],
)  # fmt: skip
def test_a_broken_file_names_file_line_and_what(tmp_path, name, data, message):
    path = tmp_path / name
    path.write_bytes(data)
    reader = {".jsonl": read_jsonl, ".csv": read_csv}.get(path.suffix, read_json)
    with pytest.raises(ValueError) as error:
        reader(path)
    assert message in str(error.value) and str(path) in str(error.value)


def test_controls_read(tmp_path):
    """A leading byte-order mark is dropped; the same content as above, unbroken, reads."""
    (tmp_path / "a.jsonl").write_bytes(b"\xef\xbb\xbf" + GOOD_LINES)
    assert [r["id"] for r in read_jsonl(tmp_path / "a.jsonl")] == ["a", "b"]
    (tmp_path / "a.json").write_bytes(b'\xef\xbb\xbf{"id": 1}')
    assert read_json(tmp_path / "a.json") == {"id": 1}
    (tmp_path / "a.csv").write_bytes(b"id,text\na," + b"x" * 1000 + b"\n")
    assert read_csv(tmp_path / "a.csv")[0]["id"] == "a"


@pytest.mark.parametrize("reader", [read_json, read_jsonl, read_csv])
def test_a_folder_or_a_missing_file_is_named(tmp_path, reader):
    """Old: read_jsonl / read_csv raised IsADirectoryError / FileNotFoundError from read_bytes."""
    with pytest.raises(ValueError, match="is a folder, not a file"):
        reader(tmp_path)
    with pytest.raises(ValueError, match="nope.x does not exist"):
        reader(tmp_path / "nope.x")


def test_a_cut_results_file_given_to_compare_exits_2_naming_its_line(tmp_path, capsys):
    """Through a command: a results file cut off mid-write is bad input (exit 2) naming the
    file, line and column; no traceback."""
    cut = tmp_path / "a.results.json"
    cut.write_text(json.dumps({"format": 1, "metric": "x", "item_ids": ["a"]}, indent=1)[:-9])
    assert main(["compare", str(cut), str(cut)]) == 2
    err = capsys.readouterr().err
    assert f"{cut}, line 5, column 2" in err and "cut off (truncated)" in err
    assert "Traceback" not in err
