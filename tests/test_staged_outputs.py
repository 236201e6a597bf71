"""Folders argbench writes whole (issue 35, classes 2 and 3): the leaderboard site, the
submissions, the leaderboard Space's folder, a dataset build. Each is written beside its
target and swapped in (argbench.io.staged_folder): Ctrl-C, kill -9 or a full disk leaves the
old output as it was, the rerun removes its own leftovers, and a file argbench did not write
is never deleted or overwritten."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

import argbench.io
from argbench.cli import main
from argbench.cli.exits import exit_for
from argbench.io import MANIFEST, ForeignFilesError, staged_folder
from argbench.leaderboard.space import config as space_config
from argbench.publish import publish_leaderboard
from tests.test_leaderboard import board, results, write
from tests.test_publish import StubApi


def snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.name.endswith(".argbench-lock")
    }


def beside(folder: Path) -> list[str]:
    """What stands beside ``folder`` in its parent (leftovers of an interrupted run)."""
    return sorted(p.name for p in folder.parent.iterdir() if p.name.startswith(f".{folder.name}."))


def fail_after(monkeypatch, module, count: int, error: BaseException) -> None:
    """``module.atomic_write`` fails (``error``) after ``count`` writes."""
    real = module.atomic_write
    done = []

    def write(path, data):
        if len(done) >= count:
            raise error
        done.append(path)
        return real(path, data)

    monkeypatch.setattr(module, "atomic_write", write)


def site(tmp_path, paths, out, *extra) -> int:
    return main(["leaderboard", *paths, "--out", str(out), "--resamples", "200", *extra])


# ---- class 2: interrupted outputs ----


@pytest.mark.parametrize(
    "error, status",
    [
        (OSError(errno.ENOSPC, "No space left on device"), exit_for("*", "disk-full")),
        (KeyboardInterrupt(), exit_for("*", "interrupted")),
    ],
    ids=["full-disk", "ctrl-c"],
)
def test_an_interrupted_rebuild_leaves_the_old_site_whole(tmp_path, monkeypatch, error, status):
    """Old: a full disk or Ctrl-C while the site was rebuilt left the new index.html (linking
    to pages never written) beside the old pages. New: the old site, byte for byte, and
    nothing beside it. Control: the same rebuild without the failure."""
    from argbench.leaderboard import site as site_module

    paths = board(tmp_path)
    out = tmp_path / "site"
    assert site(tmp_path, paths[:2], out) == 0
    before = snapshot(out)
    fail_after(monkeypatch, site_module, 2, error)
    assert site(tmp_path, paths, out) == status
    assert snapshot(out) == before and beside(out) == []
    monkeypatch.undo()
    assert site(tmp_path, paths, out) == 0  # control
    assert snapshot(out) != before and len(list(out.glob("system-*.html"))) == 3


def test_an_interrupted_first_build_is_not_refused_on_the_rerun(tmp_path, monkeypatch):
    """Old: Ctrl-C during the first build into a new folder left half a site, and the rerun
    was refused ("holds files that argbench leaderboard did not write"). New: no folder, and
    the rerun builds it."""
    from argbench.leaderboard import site as site_module

    paths = board(tmp_path)
    out = tmp_path / "new-site"
    fail_after(monkeypatch, site_module, 3, KeyboardInterrupt())
    assert site(tmp_path, paths, out) == 130
    assert not out.exists() and beside(out) == []
    monkeypatch.undo()
    assert site(tmp_path, paths, out) == 0
    assert (out / "index.html").is_file() and (out / MANIFEST).is_file()


_KILLED = """
import os, signal, sys
from argbench.leaderboard import site
real, done = site.atomic_write, []
def write(path, data):
    if len(done) == 3:
        os.kill(os.getpid(), signal.SIGKILL)
    done.append(path)
    return real(path, data)
site.atomic_write = write
from argbench.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_kill_9_mid_build_leaves_the_old_site_and_the_rerun_removes_the_leftovers(tmp_path):
    """A build killed with SIGKILL after three pages: the old site is as it was, its
    leftover stands beside it; the rerun removes it (and says so) and builds the site."""
    paths = board(tmp_path)
    out = tmp_path / "site"
    assert site(tmp_path, paths[:2], out) == 0
    before = snapshot(out)
    argv = ["leaderboard", *paths, "--out", str(out), "--resamples", "200"]
    killed = subprocess.run([sys.executable, "-c", _KILLED, *argv], capture_output=True)
    assert killed.returncode == -signal.SIGKILL
    assert snapshot(out) == before
    # its staging folder, and its lock file (the kernel released the lock itself)
    assert [n.split("-")[0] for n in beside(out)] == [".site.argbench", ".site.staging"]
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from argbench.cli import main; sys.exit(main(sys.argv[1:]))",
            *argv,
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "left by an interrupted run" in done.stdout + done.stderr
    assert beside(out) == [] and len(list(out.glob("system-*.html"))) == 3


def test_a_kill_between_the_two_renames_is_put_back(tmp_path, monkeypatch):
    """Where the system cannot swap two folders in one step, a kill between moving the old
    folder aside and moving the new one in leaves no folder at the target: the next run puts
    the old one back before anything else."""
    out = tmp_path / "out"
    with staged_folder(out) as staging:
        (staging.path / "a.txt").write_text("old")
    monkeypatch.setattr(argbench.io, "_exchange", lambda a, b: False)
    real = os.replace

    def replace(src, dst):
        if Path(src) == out:
            real(src, dst)
            raise KeyboardInterrupt  # killed right after the first rename
        return real(src, dst)

    monkeypatch.setattr(argbench.io.os, "replace", replace)
    with pytest.raises(KeyboardInterrupt), staged_folder(out) as staging:
        (staging.path / "a.txt").write_text("new")
    monkeypatch.undo()
    assert not out.exists() and [n.split("-")[0] for n in beside(out)] == [".out.old"]
    logged = []
    with pytest.raises(RuntimeError), staged_folder(out, log=logged.append):
        assert (out / "a.txt").read_text() == "old"  # put back before the work
        raise RuntimeError("the work fails")
    assert (out / "a.txt").read_text() == "old" and beside(out) == []
    assert any("put back" in m for m in logged)


@pytest.mark.mirror
def test_an_interrupted_submissions_run_leaves_no_partial_folder(
    real_corpora, tmp_path, monkeypatch, capsys
):
    """Old: `argbench submissions` stopped by a full disk after 3 of CAM's 8 results files
    left those 3 and said nothing of the others. New: exit 1 and no cam/ folder; the rerun
    (control) writes all 8."""
    from argbench.results import write as results_write

    real, done = results_write.write_json, []

    def write_json(path, value, **kwargs):
        if len(done) == 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        done.append(path)
        return real(path, value, **kwargs)

    monkeypatch.setattr(results_write, "write_json", write_json)
    argv = ["submissions", "--out", str(tmp_path / "out"), "--only", "cam", "--resamples", "20"]
    argv += ["--sources", str(real_corpora.mirror), "--cache-dir", str(real_corpora.cache)]
    assert main(argv) == exit_for("*", "disk-full")
    assert "No space left" in capsys.readouterr().err
    assert not (tmp_path / "out" / "cam").exists() and beside(tmp_path / "out" / "cam") == []
    monkeypatch.undo()
    assert main(argv) == 0
    assert len(list((tmp_path / "out" / "cam").glob("*.json"))) == 8


# ---- class 3: files argbench did not write ----


def test_a_rebuild_keeps_the_users_own_files_and_never_writes_over_them(tmp_path, capsys):
    """Old: a file of the user's in the site folder made every rebuild fail ("did not write"),
    and one placed where a page goes would be overwritten. New: the user's notes survive a
    rebuild (the same file, hard-linked across); a file in place of a page argbench writes is
    refused, naming it, and nothing changes. Control: a folder argbench wrote, rebuilt."""
    paths = board(tmp_path)
    out = tmp_path / "site"
    assert site(tmp_path, paths, out) == 0
    (out / "notes.txt").write_text("my own file")
    inode = (out / "notes.txt").stat().st_ino
    assert site(tmp_path, paths[:2], out) == 0
    assert (out / "notes.txt").read_text() == "my own file"
    assert (out / "notes.txt").stat().st_ino == inode
    capsys.readouterr()
    (out / "index.html").write_text("<p>my own edit</p>")  # argbench's page, edited since
    before = snapshot(out)
    assert site(tmp_path, paths, out) == 2
    err = capsys.readouterr().err
    assert "index.html" in err and "did not write or that were edited" in err
    assert snapshot(out) == before and beside(out) == []


def test_a_folder_argbench_did_not_write_is_refused_untouched(tmp_path, capsys):
    paths = board(tmp_path)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("my own file")
    assert site(tmp_path, paths, mine) == 2
    assert "did not write" in capsys.readouterr().err
    assert [p.name for p in mine.iterdir()] == ["notes.txt"] and beside(mine) == []


def _space_results(tmp_path, names=("strong", "weak")):
    return [
        write(tmp_path, results(name, [1.0, 0.0] * 10 if k else [1.0] * 20))
        for k, name in enumerate(names)
    ]


def _publish(paths, out, api=None, dry_run=False):
    return publish_leaderboard(
        paths,
        "org/board",
        space_config("cq_reference_match", "org/refs"),
        out_dir=out,
        dry_run=dry_run,
        api=api if api is not None else StubApi(),
    )


def test_republishing_from_the_space_folder_keeps_its_inputs(tmp_path):
    """Old: `publish --leaderboard OUT/board/results/*.json --out OUT` emptied
    OUT/board/results/ before copying its inputs: the inputs were deleted, then a raw errno.
    New: the Space folder is written beside and swapped in; the board is the same."""
    out = tmp_path / "out"
    _publish(_space_results(tmp_path), out)
    kept = sorted((out / "board" / "results").glob("*.json"))
    first = {p.name: p.read_bytes() for p in kept}
    plan = _publish([str(p) for p in kept], out)
    again = {p.name: p.read_bytes() for p in (out / "board" / "results").glob("*.json")}
    assert sorted(again.values()) == sorted(first.values())
    assert plan["folder"] == str(out / "board")


def test_a_dry_run_writes_nothing_but_its_own_staging(tmp_path):
    """Old: `publish --leaderboard --dry-run --out OUT` wrote (and emptied) OUT/board. New:
    OUT is not touched; the plan lists the files. Control: without --dry-run it is written."""
    out = tmp_path / "out"
    plan = _publish(_space_results(tmp_path), out, dry_run=True)
    assert not out.exists() or list(out.iterdir()) == []
    assert "space.json" in {f["path"] for f in plan["files"]} and plan["folder"] is None
    _publish(_space_results(tmp_path), out)
    assert (out / "board" / "space.json").is_file()


def test_the_users_own_readme_in_the_space_folder_is_never_overwritten(tmp_path, capsys):
    """Old: the user's own README.md / app.py in OUT/<space>/ were overwritten without a
    word. New: refused, naming them; nothing is uploaded and the files are as they were."""
    out = tmp_path / "out"
    paths = _space_results(tmp_path)
    _publish(paths, out)
    (out / "board" / "README.md").write_text("# my own card\n")
    api = StubApi()
    with pytest.raises(ForeignFilesError, match="README.md"):
        _publish(paths, out, api=api)
    assert (out / "board" / "README.md").read_text() == "# my own card\n"
    assert not any(call[0] == "upload_folder" for call in api.calls)
    fresh = tmp_path / "fresh"  # a folder of the user's own, not argbench's
    (fresh / "board").mkdir(parents=True)
    (fresh / "board" / "app.py").write_text("print('mine')\n")
    with pytest.raises(ForeignFilesError, match="did not write"):
        _publish(paths, fresh)
    assert (fresh / "board" / "app.py").read_text() == "print('mine')\n"


def test_a_board_is_republished_as_a_new_revision_keeping_the_uploads(tmp_path):
    """Old: a published board could not be updated without bumping argbench's version (its
    tag was v<version>). New: a board with other results is a new revision (a tag with the
    board's digest), only argbench's own board files are replaced (uploads kept), and the
    same board again is refused as published. The user's notes in --out are not uploaded."""
    out = tmp_path / "out"
    api = StubApi()
    first = _publish(_space_results(tmp_path), out, api=api)
    (out / "board" / "notes.txt").write_text("not for the Space")
    paths = _space_results(tmp_path, ("strong", "weak", "third"))
    second = _publish(paths, out, api=api)
    assert first["tag"] != second["tag"] and second["tag"].startswith("v")
    uploads = [call[1] for call in api.calls if call[0] == "upload_folder"]
    assert len(uploads) == 2
    # the board's own results and judge cards (the uploads live in their dataset repo)
    assert uploads[1]["delete_patterns"] == [
        "results/[0-9][0-9][0-9]-*.json",
        "cards/[0-9][0-9][0-9]-*.json",
    ]
    assert "notes.txt" not in uploads[1]["allow_patterns"]
    assert (out / "board" / "notes.txt").read_text() == "not for the Space"
    with pytest.raises(RuntimeError, match="same board"):
        _publish(paths, out, api=api)


def test_a_rebuild_keeps_the_users_file_in_a_built_dataset_folder(
    fixture_mirror, cache_dir, tmp_path
):
    """Old: `argbench build` replaced OUT/<name>/ whole, deleting a file the user had put
    there. New: kept; the built files are replaced."""
    import argbench

    mirror = fixture_mirror("cqs_gen")
    folder = argbench.build("cqs_gen", tmp_path / "out", sources=mirror, cache_dir=cache_dir)
    (folder / "NOTES.md").write_text("mine")
    manifest = json.loads((folder / MANIFEST).read_text())
    assert "README.md" in manifest["files"] and "NOTES.md" not in manifest["files"]
    argbench.build("cqs_gen", tmp_path / "out", sources=mirror, cache_dir=cache_dir)
    assert (folder / "NOTES.md").read_text() == "mine" and (folder / "README.md").is_file()


USER_YAML = """\
# my model's scores, kept by hand
- &base
  dataset:
    id: someone/other   # another benchmark
    task_id: other
  value: 0.5
- <<: *base
  value: 0.6  # a second run
"""


def test_eval_results_keeps_the_users_comments_and_anchors(tmp_path, capsys):
    """Old: adding an entry to an existing <task>.yaml rewrote it with PyYAML: every comment
    and anchor gone (the alias expanded). New: edited round-trip (ruamel.yaml), the user's
    text kept and the entry added. Control: a new file is a plain list of one entry."""
    from argbench.results import write_results
    from tests.helpers import cli
    from tests.test_hostile_results import relevance_doc

    out = tmp_path / ".eval_results"
    out.mkdir()
    target = out / "argument_relevance.yaml"
    target.write_text(USER_YAML)
    mine = write_results(relevance_doc(system="mine"), tmp_path / "mine.json")
    code, _, err = cli(capsys, "eval-results", mine, "--out", out)
    assert code == 0, err
    text = target.read_text()
    assert text.startswith(USER_YAML)  # every line of the user's as it was
    entries = yaml.safe_load(text)
    assert [(e.get("source") or {}).get("name") for e in entries] == [None, None, "mine"]
    assert entries[1]["dataset"]["id"] == "someone/other" and entries[1]["value"] == 0.6
    again = write_results(relevance_doc(n=8, system="mine"), tmp_path / "again.json")
    assert cli(capsys, "eval-results", again, "--out", out)[0] == 0  # replaces its own entry
    assert target.read_text().startswith(USER_YAML) and len(yaml.safe_load(target.read_text())) == 3
    fresh = tmp_path / "fresh"  # control
    assert cli(capsys, "eval-results", mine, "--out", fresh)[0] == 0
    assert [e["source"]["name"] for e in yaml.safe_load((fresh / target.name).read_text())] == [
        "mine"
    ]


def test_eval_results_writes_through_a_symlink_and_keeps_it(tmp_path, capsys):
    """Old: a <task>.yaml that is a symbolic link (to a shared file) was replaced by a plain
    file. New: the file it points at gets the entry; the link stays a link."""
    from argbench.results import write_results
    from tests.helpers import cli
    from tests.test_hostile_results import relevance_doc

    shared = tmp_path / "shared" / "argument_relevance.yaml"
    shared.parent.mkdir()
    shared.write_text(USER_YAML)
    out = tmp_path / ".eval_results"
    out.mkdir()
    (out / shared.name).symlink_to(shared)
    mine = write_results(relevance_doc(system="mine"), tmp_path / "mine.json")
    code, _, err = cli(capsys, "eval-results", mine, "--out", out)
    assert code == 0, err
    assert (out / shared.name).is_symlink()
    assert [(e.get("source") or {}).get("name") for e in yaml.safe_load(shared.read_text())][
        -1
    ] == "mine"


def test_write_results_once_releases_the_locks_it_took(tmp_path):
    """Old: the output locks write_results_once took were held until the interpreter exited
    (a notebook kept them: its lock files stayed, another process was refused the paths).
    New: released when the write is done; a claim the caller took is left to the caller."""
    from argbench.io import claim_output, is_claimed, release_output
    from argbench.results import write_results_once

    doc = results("a", [1.0] * 20)
    path = tmp_path / "a.json"
    write_results_once([(path, doc)])
    assert not is_claimed(path) and not list(tmp_path.glob(".*argbench-lock"))
    held = tmp_path / "b.json"  # control: the caller's own claim stays until it releases it
    claim_output(held, suffixes=(".json",))
    write_results_once([(held, results("b", [1.0] * 20))])
    assert is_claimed(held)
    release_output(held)


def test_eval_results_gives_every_reason_and_leaves_no_empty_folder(tmp_path, capsys):
    """Old: a partial run not computed on a Hub dataset was refused with the first reason
    only ("not computed on a Hub dataset"), and --out .eval_results/ was left behind, empty.
    New: every reason (here: not a Hub dataset, and partial), and no folder. Control: a
    complete Hub run writes the folder and its entry."""
    from argbench.results import write_results
    from tests.helpers import cli
    from tests.test_hostile_results import relevance_doc

    doc = relevance_doc(missing=["x"])
    doc["dataset"] = {**doc["dataset"], "source": "argbench", "commit": None}
    bad = write_results(doc, tmp_path / "partial.json")
    out = tmp_path / ".eval_results"
    code, _, err = cli(capsys, "eval-results", bad, "--out", out)
    assert code == 2 and "2 reasons" in err
    assert "not computed on a Hub dataset" in err and "partial results" in err
    assert not out.exists()
    good = write_results(relevance_doc(system="mine"), tmp_path / "good.json")
    assert cli(capsys, "eval-results", good, "--out", out)[0] == 0 and any(out.iterdir())


def test_staged_folder_edges(tmp_path):
    """A hostile pass on the helper itself: a file of the user's where argbench writes a
    folder is refused; a second run on the same folder is refused at once; a target that is a
    symbolic link is written where it points (the link stays); a manifest edited into garbage
    refuses the folder; a rerun in the same process leaves no lock or staging beside it."""
    from argbench.io import OutputBusyError

    out = tmp_path / "out"
    with staged_folder(out) as staging:
        (staging.path / "a.txt").write_text("a")
    (out / "results").write_text("the user's file, where a folder goes")
    with pytest.raises(ForeignFilesError, match="results"), staged_folder(out) as staging:
        (staging.path / "results").mkdir()
        (staging.path / "results" / "x.json").write_text("{}")
    assert (out / "results").read_text().startswith("the user's")
    with staged_folder(out), pytest.raises(OutputBusyError), staged_folder(out):
        pass  # the same folder, while the first run holds it
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    with staged_folder(link) as staging:
        (staging.path / "b.txt").write_text("b")
    assert link.is_symlink() and (real / "b.txt").read_text() == "b"
    (out / MANIFEST).write_text("not json")
    with pytest.raises(ForeignFilesError, match="manifest"), staged_folder(out):
        pass
    assert beside(out) == [] and beside(real) == []
