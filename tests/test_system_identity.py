"""A system is its results file (its digest), not its display name (issue 35, class 1).

The cases of the issue, each failing before the change, each with a control on good input:
three results files made with ``argbench evaluate --system Same`` (different outputs); one
file given twice (and a copy of it); the same system scored on two dataset commits. The
leaderboard's rows, pages and pairs, and ``argbench compare``, are checked for each.
"""

from __future__ import annotations

import csv
import json
import shutil

import numpy as np
import pytest

from argbench.cli.exits import exit_for
from argbench.leaderboard.table import columns, read
from argbench.results import compare as compare_module
from argbench.results import content_digest, read_results
from argbench.results.compare import compare_results

from .helpers import cli
from .test_leaderboard import DATASET, results, write
from .test_results import answers, cam, evaluate  # noqa: F401 (cam: a fixture)

# three different outputs: strong, middling, weak (20 items)
RNG = np.random.default_rng(1)
OUTPUTS = [list((RNG.random(20) < p).astype(float)) for p in (0.8, 0.5, 0.2)]


def three(tmp_path, names=("Same", "Same", "Same")):
    return [
        write(tmp_path, results(name, values), f"run{k}")
        for k, (name, values) in enumerate(zip(names, OUTPUTS, strict=True))
    ]


def numbers(row) -> tuple:
    versus = row["vs_leader"]
    return (
        row["rank"],
        row["index"],
        row["score"],
        row["low"],
        row["high"],
        None if versus is None else tuple(versus.values()),
        row["tied_with_leader"],
        len(row["not_distinguishable_from"]),
    )


# ---------------------------------------------------------------- one name, three files


def test_three_files_of_one_name_are_three_systems_with_their_own_pairs(tmp_path):
    """Old: rows "Same (Same)" twice, the leader Δ +0.45 against itself, the second row
    +0.45 where the truth is −0.45. New: each row is its file; the name is a label, told
    apart by a digest prefix; every difference is the row's own score minus the leader's."""
    paths = three(tmp_path)
    [column], refused = columns(read(paths), resamples=1000)
    assert not refused
    rows = column.rows
    labels = [r["system"] for r in rows]
    digests = [read_results(p)["digest"] for p in paths]
    assert len(set(labels)) == 3 and all(label.startswith("Same [") for label in labels)
    assert {r["digest"] for r in rows} == set(digests)
    for row in rows:  # the label carries the start of the row's own digest
        assert row["system"] == f"Same [{row['digest'].split(':')[1][:8]}]"
    leader = rows[0]
    assert leader["vs_leader"] is None and leader["score"] == pytest.approx(np.mean(OUTPUTS[0]))
    for row in rows[1:]:
        truth = row["score"] - leader["score"]
        assert truth < 0 and row["vs_leader"]["difference"] == pytest.approx(truth)
        assert row["vs_leader"]["low"] <= truth <= row["vs_leader"]["high"]
    for row in rows:  # never "not distinguishable" from itself
        assert row["system"] not in row["not_distinguishable_from"]
    # the weak one and the middling one cannot be told apart, each from the other
    middle, weak = rows[1], rows[2]
    assert (weak["system"] in middle["not_distinguishable_from"]) == (
        middle["system"] in weak["not_distinguishable_from"]
    )

    # control: the same outputs under three names give the same numbers, row by row
    [named], _ = columns(read(three(tmp_path / "named", ("a", "b", "c"))), resamples=1000)
    assert [r["system"] for r in named.rows] == ["a", "b", "c"]
    assert [numbers(r) for r in named.rows] == [numbers(r) for r in rows]


def test_argbench_evaluate_system_same_three_times_on_the_site(cam, tmp_path, capsys):  # noqa: F811
    """End to end: three ``argbench evaluate --system Same`` runs (different answers) ->
    ``argbench leaderboard``: three rows, three system pages, each row linking its own."""
    where, rows = cam
    variants = {
        "all": lambda t: t,
        "uncited": lambda t: t.split("[")[0],
        "half": lambda t: t if len(t) % 2 else t.split("[")[0],
    }
    paths = [
        evaluate(capsys, where, tmp_path, name, answers(rows, change=f), "--system", "Same")[0]
        for name, f in variants.items()
    ]
    site = tmp_path / "site"
    code, out, err = cli(capsys, "leaderboard", *paths, "--out", site, "--resamples", "300")
    assert code == 0, err
    with open(site / "leaderboard.csv", newline="") as handle:
        table = list(csv.DictReader(handle))
    assert len(table) == 3 and len({r["system"] for r in table}) == 3
    assert {r["digest"] for r in table} == {read_results(p)["digest"] for p in paths}
    board = json.loads((site / "leaderboard.json").read_text())
    [task] = board
    assert task["rows"][0]["vs_leader_difference"] is None  # the leader is not compared to itself
    assert all(r["vs_leader_difference"] <= 0 for r in task["rows"][1:])
    pages = sorted(site.glob("system-*.html"))
    assert len(pages) == 3  # old: one page for the three
    page = next(site.glob("cam_answers*.html")).read_text()
    for page_file in pages:
        assert f"href='{page_file.name}'" in page


def test_compare_tells_apart_two_results_of_one_name_by_digest(tmp_path, capsys):
    """In-memory documents of one name were "Same (Same)" twice; files are named by digest,
    and every system and pair carries the digest it is."""
    docs = [results("Same", values) for values in OUTPUTS]
    comparison = compare_results(docs, resamples=300)
    names = [s["name"] for s in comparison["systems"]]
    assert len(set(names)) == 3 and all(n.startswith("Same [") for n in names)
    digests = [content_digest(d) for d in docs]
    assert [s["digest"] for s in comparison["systems"]] == digests
    by_name = {s["name"]: s for s in comparison["systems"]}
    for pair in comparison["pairs"]:
        a, b = by_name[pair["a"]], by_name[pair["b"]]
        assert (pair["a_digest"], pair["b_digest"]) == (a["digest"], b["digest"])
        assert pair["difference"] == pytest.approx(a["score"] - b["score"])
    paths = three(tmp_path)
    code, out, err = cli(capsys, "compare", *paths, "--resamples", "300")
    assert code == 0, err
    assert len({line.split()[1] for line in out.splitlines() if line.startswith("Same [")}) == 3
    # control: other names are shown as they are
    plain = compare_results(
        [results(n, v) for n, v in zip("abc", OUTPUTS, strict=True)], resamples=300
    )
    assert [s["name"] for s in plain["systems"]] == ["a", "b", "c"]


# ---------------------------------------------------------------- one file, twice


def test_one_file_given_twice_is_one_row(tmp_path, capsys):
    """Old: a duplicate row, every rank below it shifted. New: one row; the repeat (the same
    path again, or a copy of the file) is listed as not placed, with the file it repeats."""
    strong, middle, weak = three(tmp_path, ("strong", "middle", "weak"))
    copy = tmp_path / "copy-of-strong.json"
    shutil.copy(strong, copy)
    [column], refused = columns(read([strong, middle, strong, weak, copy]), resamples=500)
    assert [(r["rank"], r["system"]) for r in column.rows] == [
        (1, "strong"),
        (2, "middle"),
        (3, "weak"),
    ]
    assert [r["path"] for r in refused] == [strong, str(copy)]
    assert all(f"the same results as {strong}" in r["reason"] for r in refused)
    site = tmp_path / "site"
    code, out, err = cli(capsys, "leaderboard", strong, middle, strong, weak, "--out", site)
    assert code == 0 and f"not placed: {strong}: the same results as {strong}" in err
    assert "the same results as" in (site / "index.html").read_text()
    with open(site / "leaderboard.csv", newline="") as handle:
        assert [r["rank"] for r in csv.DictReader(handle)] == ["1", "2", "3"]
    # control: three different files, three rows, nothing set aside
    [column], refused = columns(read([strong, middle, weak]), resamples=500)
    assert len(column.rows) == 3 and not refused


def test_compare_the_same_file_twice(tmp_path, capsys):
    """Old: a file compared with itself (Δ 0, p 1) as two systems. New: compared once; with
    nothing else to compare, refused (exit 2) naming both files and the digest."""
    strong, middle, _ = three(tmp_path, ("strong", "middle", "weak"))
    code, out, err = cli(capsys, "compare", strong, strong)
    assert code == exit_for("compare", "same-results") == 2 and not out
    assert "two or more different results" in err and "holds the same results as" in err
    assert read_results(strong)["digest"] in err
    code, out, err = cli(capsys, "compare", strong, middle, strong, "--json", "--resamples", "200")
    assert code == 0, err
    comparison = json.loads(out)
    assert [s["name"] for s in comparison["systems"]] == ["strong", "middle"]
    assert comparison["repeated"][0]["same_as"] == strong
    code, out, _ = cli(capsys, "compare", strong, middle, strong, "--resamples", "200")
    assert f"compared once: {strong} holds the same results as {strong}" in out
    # control: two different files
    code, out, _ = cli(capsys, "compare", strong, middle, "--resamples", "200")
    assert code == 0 and "compared once" not in out and "strong - middle" in out


# ---------------------------------------------------------------- two dataset commits


def test_each_row_names_its_own_dataset_commit(tmp_path, capsys):
    """Old: the same system on two Hub commits of one content showed the first commit on
    both rows. New: each row its own; the column's header keeps only what they share."""
    hub = {**DATASET, "source": "hub:me/cqs", "revision": "main"}
    paths = [
        write(tmp_path, results("S", OUTPUTS[k], dataset={**hub, "commit": c * 40}), f"at-{c}")
        for k, c in enumerate("ab")
    ]
    [column], _ = columns(read(paths), resamples=200)
    by_commit = {r["dataset_version"]: r for r in column.rows}
    assert set(by_commit) == {"2.0.0 @ aaaaaaaaaaaa", "2.0.0 @ bbbbbbbbbbbb"}
    assert by_commit["2.0.0 @ aaaaaaaaaaaa"]["path"] == paths[0]
    assert "commit" not in column.dataset and column.dataset["content_hash"]
    site = tmp_path / "site"
    assert cli(capsys, "leaderboard", *paths, "--out", site, "--resamples", "200")[0] == 0
    page = next(site.glob("cqs_gen*.html")).read_text()
    assert "@ aaaaaaaaaaaa" in page and "@ bbbbbbbbbbbb" in page
    comparison = compare_results(paths, resamples=200)
    assert {s["dataset_commit"] for s in comparison["systems"]} == {"a" * 40, "b" * 40}
    assert "commit" not in comparison["dataset"]
    # control: one commit for both rows, named on both and in the header
    same = [write(tmp_path, results(n, OUTPUTS[0], dataset={**hub, "commit": "c" * 40}), n)
            for n in ("x", "y")]  # fmt: skip
    [column], _ = columns(read(same), resamples=200)
    assert {r["dataset_version"] for r in column.rows} == {"2.0.0 @ cccccccccccc"}
    assert column.dataset["commit"] == "c" * 40


# ---------------------------------------------------------------- the labels themselves


def test_labels_stay_apart_when_a_name_reads_as_another_label_or_prefixes_collide():
    system_labels = compare_module.system_labels
    first = "sha256:" + "3f2a1b9c" + "0" * 56
    second = "sha256:" + "3f2a1b9c" + "1" * 56
    assert system_labels(["Same", "Same"], [first, second]) == [
        "Same [3f2a1b9c0000]",
        "Same [3f2a1b9c1111]",
    ]  # the prefix grows until the digests differ
    third = "sha256:" + "77" * 32
    # a name that is literally another row's label: every row then carries its prefix
    tricky = system_labels(["Same", "Same", "Same [3f2a1b9c0000]"], [first, second, third])
    assert len(set(tricky)) == 3
    assert tricky[2] == "Same [3f2a1b9c0000] [777777777777]"
    # control: names that differ are left as they are
    assert system_labels(["a", "b"], [first, second]) == ["a", "b"]
    with pytest.raises(ValueError, match="the same results twice"):
        system_labels(["a", "b"], [first, first])


def test_names_that_read_alike_are_told_apart_by_digest(tmp_path, capsys):
    """Issue 35, class 7: names were compared raw, so ``Same``, full-width ``Ｓａｍｅ`` and
    ``same`` gave three rows a reader cannot tell apart. They are compared by the Space's key
    (:func:`argbench.io.name_key`, NFKC and case folded): each row carries its digest prefix."""
    alike = ("Same", "Ｓａｍｅ", "same")
    paths = three(tmp_path, alike)
    [column], refused = columns(read(paths), resamples=200)
    assert not refused
    labels = {r["system"]: r["digest"].split(":")[1][:8] for r in column.rows}
    assert len(labels) == 3
    assert all(label.endswith(f" [{prefix}]") for label, prefix in labels.items())
    assert {label.removesuffix(f" [{prefix}]") for label, prefix in labels.items()} == set(alike)
    code, out, err = cli(capsys, "compare", *paths, "--resamples", "200")
    assert code == 0, err
    for path in paths:
        digest = read_results(path)["digest"].split(":")[1][:8]
        assert f"[{digest}]" in out
    # control: names that differ after normalisation are shown as they are
    [plain], _ = columns(read(three(tmp_path / "plain", ("Same", "Other", "Third"))), resamples=200)
    assert sorted(r["system"] for r in plain.rows) == ["Other", "Same", "Third"]
    digests = ["sha256:" + c * 64 for c in "abc"]
    assert compare_module.system_labels(["Same", "Sam", "Ｓａｍ e"], digests) == [
        "Same",
        "Sam",
        "Ｓａｍ e",
    ]


def test_a_document_in_memory_is_its_content_not_the_digest_it_carries(tmp_path):
    """A program's copy of a document keeps the ``digest`` field of the file it was read from
    while its content changed: identity is the content's digest, so the two stay two."""
    path = write(tmp_path, results("a", OUTPUTS[0]))
    doc = read_results(path)
    renamed = {**doc, "system": "b"}  # carries doc's digest, holds other content
    comparison = compare_results([doc, renamed], resamples=100)
    assert [s["name"] for s in comparison["systems"]] == ["a", "b"]
    assert comparison["systems"][0]["digest"] == doc["digest"]
    assert comparison["systems"][1]["digest"] != doc["digest"] and not comparison["repeated"]
    # control: the very same document twice is one system, refused with nothing else
    with pytest.raises(ValueError, match="two or more different results"):
        compare_results([doc, dict(doc)], resamples=100)
