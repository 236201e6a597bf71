"""Inputs Python cannot hold, or that a person cannot tell apart (issue 35, class 7): every
reader maps numbers out of range, deep nesting, oversized digits and bad escapes to exit 2
naming the file (and field); system names are compared after Unicode normalisation and
refused when invisible characters make one read as another; CSV output never hands a
spreadsheet a formula."""

from __future__ import annotations

import csv
import json
import textwrap

import pytest
import yaml

from argbench.cli import main
from argbench.io import csv_cell, name_key, read_json, read_jsonl, write_records
from argbench.leaderboard.space import config as space_config
from argbench.leaderboard.space import write_space
from argbench.tasks import TaskDeclarationError, read_tasks
from tests.helpers import cli
from tests.test_declarations import GOOD as GOOD_TASKS
from tests.test_leaderboard import board, results, write


def _declare_text(folder, text):
    folder.mkdir()
    (folder / "corpus.yaml").write_text(text)
    return folder


HOSTILE = {
    "float-out-of-range": ('{"a": {"b": [1, 2, 1e999]}}', "field a.b[2]", "1e999"),
    "long-float": ('{"a": ' + "9" * 400 + ".5}", "field a", "402 characters"),
    "oversized-int": ('{"n": ' + "7" * 5000 + "}", "field n", "5,000 characters"),
    "deep-nesting": ("[" * 100_000 + "]" * 100_000, "nested too deeply", ""),
    "lone-surrogate": ('{"s": "ok \\udc80"}', "field s", "lone surrogate"),
}


@pytest.mark.parametrize("case", HOSTILE)
def test_the_json_readers_name_file_and_field(tmp_path, case):
    """Old: 1e999 was read as inf (a silent wrong number), 5,000 digits raised Python's own
    ValueError without the file's name, 100,000 nested lists a RecursionError traceback, a
    lone surrogate was read and failed later. New: ValueError naming the file and field
    (JSON Lines: and the line). Control: the same document with an ordinary value."""
    text, field, detail = HOSTILE[case]
    path = tmp_path / "input.json"
    path.write_text(text)
    with pytest.raises(ValueError) as error:
        read_json(path)
    assert str(path) in str(error.value) and field in str(error.value)
    assert detail in str(error.value)
    lines = tmp_path / "input.jsonl"
    lines.write_text('{"ok": 1}\n' + text + "\n")
    with pytest.raises(ValueError, match=r"input.jsonl, line 2"):
        read_jsonl(lines)
    path.write_text('{"a": {"b": [1, 2, 1e300]}, "s": "ok \\u00e9 \\ud83d\\ude00"}')  # control
    assert read_json(path)["s"] == "ok é 😀"


@pytest.mark.parametrize("case", ["deep-nesting", "oversized-int", "float-out-of-range"])
def test_compare_and_leaderboard_exit_2_naming_the_file(tmp_path, capsys, case):
    """The command line: exit 2 and the file named, never a traceback."""
    paths = board(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text(HOSTILE[case][0])
    for argv in (
        ["compare", paths[0], str(bad)],
        ["leaderboard", str(bad), "--out", str(tmp_path / "x")],
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "bad.json" in err and "Traceback" not in err
    assert main(["compare", paths[0], paths[1]]) == 0  # control


@pytest.mark.parametrize(
    "name", ["Same\u202e", "Sa\u200bme", "Same\x1b[2J", "Same\nFake row"], ids=repr
)
def test_a_system_name_with_invisible_or_control_characters_is_refused(tmp_path, capsys, name):
    """Old: `--system` took a bidi override, a zero-width space, a terminal escape or a line
    break, and a results file holding one went on the board as a row that reads as another
    system's. New: refused (exit 2), naming the character; a results file holding one is
    refused naming the file and its field. Control: an ordinary name."""
    doc = results("ok", [1.0, 0.0] * 10)
    path = tmp_path / "ok.json"
    write(tmp_path, doc, "ok")
    edited = json.loads(path.read_text())
    edited["system"] = name  # the digest is over the content: recompute it as a forger would
    from argbench.results.document import content_digest

    edited["digest"] = content_digest({k: v for k, v in edited.items() if k != "digest"})
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(edited))
    assert main(["leaderboard", str(forged), "--out", str(tmp_path / "site")]) == 2
    err = capsys.readouterr().err
    assert "forged.json" in err and "field 'system'" in err and "U+" in err
    assert main(["leaderboard", str(path), "--out", str(tmp_path / "site")]) == 0  # control
    from types import SimpleNamespace

    from argbench.cli.evaluate import _claim_outputs

    args = SimpleNamespace(
        input="p.json", dev=None, references=None, dataset=None, plot=None,
        out=str(tmp_path / "r.json"), system=name, argv=["evaluate"],
    )  # fmt: skip
    with pytest.raises(ValueError, match="--system"):
        _claim_outputs(args)


def test_names_that_read_alike_are_one_name_on_the_space(tmp_path):
    """Old: "Same" and its full-width twin "Ｓａｍｅ" (or "same") were two rows a reader cannot
    tell apart. New: compared after NFKC and case folding, refused naming both files.
    Control: two different names."""
    assert name_key("Ｓａｍｅ") == name_key("same") == name_key("Same ")
    one = write(tmp_path, results("Same", [1.0] * 20), "one")
    twin = write(tmp_path, results("Ｓａｍｅ", [0.0, 1.0] * 10), "twin")
    settings = space_config("cq_reference_match", "org/refs")
    with pytest.raises(ValueError, match="read alike") as error:
        write_space([one, twin], tmp_path / "space", settings)
    assert "one.json" in str(error.value) and "twin.json" in str(error.value)
    other = write(tmp_path, results("Other", [0.0, 1.0] * 10), "other")
    write_space([one, other], tmp_path / "space", settings)  # control


def test_csv_output_never_hands_a_spreadsheet_a_formula(tmp_path):
    """Old: a system named '=HYPERLINK("http://x","click")' was written as that cell into
    leaderboard.csv (and into pairwise CSV output): a spreadsheet runs it. New: a leading
    apostrophe makes it text. Control: names, numbers and negative numbers as they are."""
    assert csv_cell("=1+1") == "'=1+1" and csv_cell("@SUM(A1)") == "'@SUM(A1)"
    assert csv_cell("-0.5") == "-0.5" and csv_cell(-0.5) == -0.5 and csv_cell("plain") == "plain"
    formula = '=HYPERLINK("http://example.invalid","click")'
    paths = [write(tmp_path, results(formula, [1.0] * 20), "f"), *board(tmp_path)]
    assert main(["leaderboard", *paths, "--out", str(tmp_path / "site"), "--resamples", "50"]) == 0
    with open(tmp_path / "site" / "leaderboard.csv", newline="") as handle:
        systems = [row["system"] for row in csv.DictReader(handle)]
    assert "'" + formula in systems and "strong" in systems
    write_records(tmp_path / "rows.csv", [{"item": "+cmd", "score": -1.5}])
    assert (tmp_path / "rows.csv").read_text().splitlines()[1] == "'+cmd,-1.5"


def test_duplicate_ids_and_a_key_that_disagrees_name_file_and_line(
    tmp_path, fixture_mirror, cache_dir
):
    """Old: duplicate ids were named by 0-based record numbers ("at records 0, 34"), a key
    that disagrees with its record's id by "record 0", and a keyed JSON file that wrote one
    id twice lost the first prediction silently (json keeps the last). New: the file and
    the 1-based LINE of each (JSON Lines: the line; a JSON list: the line and the element;
    a keyed object: the line and the key); the repeated key is refused naming both lines.
    Control: the same predictions, once, in each form."""
    import argbench

    mirror = str(fixture_mirror("cqs_gen"))
    where = {"sources": mirror, "cache_dir": cache_dir}
    rows = argbench.load_dataset("cqs_gen", "interventions", sources=mirror, cache_dir=cache_dir)
    ids = rows["validation"]["intervention_id"]
    good = {i: {"intervention_id": i, "cqs": ["Why?", "How?", "Who?"]} for i in ids}
    lines = [json.dumps(r) for r in good.values()]

    def run(source):
        return argbench.evaluate_predictions(
            "cr_diversity", str(source), "cqs_gen", "interventions", "validation", **where
        )

    def refused(source):
        with pytest.raises(ValueError) as error:
            run(source)
        assert str(source) in str(error.value), error.value
        return str(error.value)

    path = tmp_path / "p.jsonl"  # a blank line first: the line is not the record number
    path.write_text("\n" + "\n".join([*lines, lines[0]]) + "\n")
    assert f"{ids[0]!r} at line 2, line {len(lines) + 2}" in refused(path)
    listed = tmp_path / "p.json"  # a JSON list, one record per line after the "["
    listed.write_text("[\n" + ",\n".join([*lines, lines[0]]) + "\n]")
    message = refused(listed)
    assert f"{ids[0]!r} at line 2 (element 0), line {len(lines) + 2} (element {len(lines)})" in (
        message
    )
    keyed = tmp_path / "k.json"
    swapped = dict(good)
    swapped[ids[0]] = {**good[ids[0]], "intervention_id": ids[1]}
    keyed.write_text(json.dumps(swapped, indent=1))
    message = refused(keyed)
    assert f"line 2 (key {ids[0]!r}): the key {ids[0]!r} and the record's" in message
    assert "disagree" in message
    twice = tmp_path / "twice.json"  # one id written twice: json would keep the last only
    body = [f"{json.dumps(i)}: {json.dumps(r)}" for i, r in good.items()]
    twice.write_text("{\n" + ",\n".join([*body, body[0]]) + "\n}")
    assert f"{ids[0]!r} at lines 2, {len(body) + 2}" in refused(twice)
    for control, text in (
        (path, "\n".join(lines)),
        (listed, "[\n" + ",\n".join(lines) + "\n]"),
        (keyed, json.dumps(good, indent=1)),
        (twice, "{\n" + ",\n".join(body) + "\n}"),
    ):
        control.write_text(text)
        assert run(control)["n_items"] == len(ids)


BOMB = 'l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n' + "".join(
    f"l{k}: &l{k} [" + ", ".join([f"*l{k - 1}"] * 10) + "]\n" for k in range(1, 9)
)  # 10**9 strings once its aliases are expanded, 1 KB on disk
YAML_HOSTILE = {  # a value under field 'x' (an extra key of a task / an eval-results entry)
    "float-out-of-range": ("x: 1.0e+999\n", "field {at}x", "not finite"),
    "long-float": ("x: " + "9" * 400 + ".5\n", "field {at}x", "not finite"),
    "oversized-int": ("x: " + "7" * 5000 + "\n", "line {line}", "5,000 characters"),
    "deep-nesting": ("x: " + "[" * 50_000 + "]" * 50_000 + "\n", "nested too deeply", ""),
    "lone-surrogate": ('x: "ok \\udc80"\n', "field {at}x", "lone surrogate"),
    "billion-laughs": ("x:\n" + textwrap.indent(BOMB, "  "), "field {at}x.l", "billion laughs"),
    "alias-cycle": ("x: &me [1, *me]\n", "field {at}x", "inside its own anchor"),
}


@pytest.mark.parametrize("case", YAML_HOSTILE)
def test_the_task_declarations_reader_names_file_and_field(tmp_path, case):
    """Old: a task declaration file with 1.0e+999 (read as inf) or a billion-laughs alias
    bomb was read silently, an alias inside its own anchor gave a list holding itself, 5,000
    digits raised Python's own ValueError and 50,000 nested lists a RecursionError, none
    naming the file. New: TaskDeclarationError (a ValueError) naming the file and the field
    (or line). Control: the same file without the extra key (anchors and aliases of a
    normal size read as before)."""
    text, where, detail = YAML_HOSTILE[case]
    folder = _declare_text(tmp_path / "bad", GOOD_TASKS.replace("tasks:\n", text + "tasks:\n"))
    with pytest.raises(TaskDeclarationError) as error:
        read_tasks(folder)
    message = str(error.value)
    assert str(folder / "corpus.yaml") in message, message
    assert where.format(at="", line=2) in message and detail in message, message
    control = GOOD_TASKS.replace("tasks:\n", "x: &a [1, 2.5e+3]\ny: *a\ntasks:\n")
    assert "mine" in read_tasks(_declare_text(tmp_path / "good", control))


def test_a_task_declaration_that_is_not_utf8_names_the_file_and_line(tmp_path):
    """Old: UnicodeDecodeError traceback, no file named. New: the file, line and byte.
    Control: a leading UTF-8 byte-order mark is dropped, the file reads."""
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "corpus.yaml").write_bytes(GOOD_TASKS.replace("a task", "caf\xe9").encode("latin1"))
    with pytest.raises(TaskDeclarationError, match=r"corpus\.yaml: not UTF-8: byte 0xe9.*line 10"):
        read_tasks(folder)
    (folder / "corpus.yaml").write_bytes(b"\xef\xbb\xbf" + GOOD_TASKS.encode())
    assert "mine" in read_tasks(folder)


@pytest.mark.parametrize("case", [c for c in YAML_HOSTILE if c != "alias-cycle"])
def test_eval_results_refuses_an_existing_entries_file_it_cannot_hold(tmp_path, capsys, case):
    """Old: ``eval-results --out`` read the existing ``<task>.yaml`` with ruamel and wrote it
    back: 1.0e+999 became .inf, a billion-laughs entry was kept and grown, 5,000 digits and
    deep nesting were tracebacks. New: exit 2 naming the file and the entry's field, the file
    left as it was. Control: an existing file with an ordinary extra entry gets the new one.
    (An alias inside its own anchor is no trap there: ruamel reads it as a list of None.)"""
    from tests.test_hostile_results import relevance_doc
    from tests.test_hostile_results import write_results as write_doc

    out = tmp_path / ".eval_results"
    out.mkdir()
    target = out / "argument_relevance.yaml"
    text, where, detail = YAML_HOSTILE[case]
    existing = "- dataset: {id: other/data}\n" + textwrap.indent(text, "  ")
    target.write_text(existing)
    mine = write_doc(relevance_doc(system="mine"), tmp_path / "mine.json")
    code, _, err = cli(capsys, "eval-results", mine, "--out", out)
    assert code == 2 and str(target) in err and "Traceback" not in err, err
    assert where.format(at="[0].", line=2) in err and detail in err, err
    assert target.read_text() == existing
    target.write_text("- dataset: {id: other/data} # theirs\n  x: &a [1, 2.5e+3]\n  y: *a\n")
    code, _, err = cli(capsys, "eval-results", mine, "--out", out)  # control
    assert code == 0, err
    assert "# theirs" in target.read_text() and len(yaml.safe_load(target.read_text())) == 2


@pytest.mark.parametrize("char", ["\u202e", "\u200b", "\x07"], ids=repr)
def test_a_system_name_from_the_file_stem_is_refused_before_any_work(
    tmp_path, capsys, fixture_mirror, cache_dir, char
):
    """Old: without ``--out`` a predictions file ``p<U+202E>x.jsonl`` (no ``--system``)
    was scored and its stem shown as the system name; the library's
    ``evaluate_predictions`` built a document with such a name (and with ``system=`` holding
    one) and only writing it refused. New: refused before any work (the split is not even
    built: the cache folder stays absent), on the command line and in the library, with
    check_name's message. Control: the same file with ``--system mine`` / ``system="mine"``
    (its header shows the file name escaped, as :func:`argbench.io.printable` does: old, the
    raw character reached the terminal), and an ordinary stem."""
    import argbench

    mirror = str(fixture_mirror("cqs_gen"))
    rows = argbench.load_dataset("cqs_gen", "interventions", sources=mirror, cache_dir=cache_dir)
    ids = rows["validation"]["intervention_id"]
    text = "".join(json.dumps({"intervention_id": i, "cqs": ["Why?", "How?"]}) + "\n" for i in ids)
    path = tmp_path / f"p{char}x.jsonl"
    path.write_text(text)
    fresh = tmp_path / "fresh-cache"  # a split loaded here would be built here

    def argv(source, cache):
        return ["evaluate", "cr_diversity", str(source), "--dataset", "cqs_gen", "--config",
                "interventions", "--split", "validation", "--sources", mirror, "--cache-dir",
                str(cache)]  # fmt: skip

    code, _, err = cli(capsys, *argv(path, fresh))
    assert code == 2 and "gives the system name (pass --system NAME)" in err, err
    assert f"U+{ord(char):04X}" in err and not fresh.exists()
    for system, where in ((None, "gives the system name (pass system=NAME)"), ("a" + char, "")):
        with pytest.raises(ValueError, match=rf"U\+{ord(char):04X}") as error:
            argbench.evaluate_predictions(
                "cr_diversity", path, "cqs_gen", "interventions", "validation", system=system,
                sources=mirror, cache_dir=str(fresh),
            )  # fmt: skip
        assert where in str(error.value) and not fresh.exists()
    code, out, err = cli(capsys, *argv(path, cache_dir), "--system", "mine")  # controls
    assert code == 0, err
    # the file name itself reaches the terminal escaped (old: the raw character in the header)
    assert char not in out and repr(str(path)) in out, out
    doc = argbench.evaluate_predictions(
        "cr_diversity", path, "cqs_gen", "interventions", "validation", system="mine",
        sources=mirror, cache_dir=cache_dir,
    )  # fmt: skip
    assert doc["system"] == "mine"
    plain = path.with_name("plain.jsonl")
    plain.write_text(text)
    code, out, err = cli(capsys, *argv(plain, cache_dir))
    assert code == 0 and "plain.jsonl" in out, err


def test_a_byte_order_mark_inside_a_csv_input_is_refused_naming_the_line(tmp_path, capsys):
    """Old: two judgment files joined (the second saved with a UTF-8 byte-order mark) were
    read with the mark inside a cell: item "\\ufeffx0" became a sixth item beside "x0", shown
    the same, exit 0 (a silent wrong fit); with the second header kept, the error named
    "judgment 5, field 'outcome'". New: exit 2 naming the file and the line of the mark.
    Control: a mark at the very start is dropped and the file fits."""
    rows = "".join(f"x{i},x{(i + 1) % 5},{'ab'[i % 2]}\n" for i in range(5))
    path = tmp_path / "j.csv"
    path.write_bytes(b"item_a,item_b,winner\n" + rows.encode() + b"\xef\xbb\xbf" + rows.encode())
    code, _, err = cli(capsys, "pairwise", "fit", path, "--out", tmp_path / "o.csv")
    assert code == 2 and f"{path}, line 7: a byte-order mark" in err, err
    assert not (tmp_path / "o.csv").exists()
    path.write_bytes(b"\xef\xbb\xbfitem_a,item_b,winner\n" + rows.encode() * 2)  # control
    code, _, err = cli(capsys, "pairwise", "fit", path, "--out", tmp_path / "o.csv")
    assert code == 0, err
    assert len((tmp_path / "o.csv").read_text().splitlines()) == 6  # header + 5 items
