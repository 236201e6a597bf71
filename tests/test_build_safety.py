"""Built folders are ordinary folders: readable as the umask says, no leftovers from killed
builds, two builds into one --out at once both succeed, and a bad --out is a clear error."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import argbench
from argbench import layout
from argbench.cli import main
from argbench.loaders import builder_class


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_built_folder_follows_the_umask(fixture_mirror, cache_dir, tmp_path):
    mirror = fixture_mirror("cqs_gen")
    old = os.umask(0o022)
    try:
        folder = argbench.build("cqs_gen", tmp_path / "out", sources=mirror, cache_dir=cache_dir)
    finally:
        os.umask(old)
    assert _mode(folder) == 0o755  # not 0o700 (a private temp folder renamed into place)
    assert _mode(folder / "data") == 0o755
    assert _mode(folder / "README.md") == 0o644
    parquet = next(folder.glob("data/*/*.parquet"))
    assert _mode(parquet) == 0o644


def test_next_build_removes_leftovers_of_killed_builds(fixture_mirror, cache_dir, tmp_path):
    mirror = fixture_mirror("cqs_gen")
    out = tmp_path / "out"
    (out / ".cqs_gen.partial-k1l2m3/data").mkdir(parents=True)
    (out / ".cqs_gen.old-424242").mkdir()
    (out / ".cqs_gen.old-17").symlink_to(tmp_path / "gone")  # a dangling link
    (out / ".claimdiff.partial-x").mkdir()  # another dataset's: maybe being built right now
    (out / ".cqs_gen.lock").write_text("")  # a killed build's lock file (its flock is gone)
    logged: list[str] = []
    layout.build("cqs_gen", out, sources=mirror, cache_dir=cache_dir, log=logged.append)
    assert sorted(p.name for p in out.iterdir()) == [".claimdiff.partial-x", "cqs_gen"]
    assert sum("removed .cqs_gen" in line for line in logged) == 3


def test_out_that_is_a_file_is_a_clear_error(tmp_path, capsys, fixture_mirror, cache_dir):
    mirror = fixture_mirror("cqs_gen")
    target = tmp_path / "a-file"
    target.write_text("not a folder")
    argv = ["build", "cqs_gen", "--sources", str(mirror), "--cache-dir", cache_dir]
    assert main([*argv, "--out", str(target)]) == 2
    assert f"output folder {target} is a file" in capsys.readouterr().err
    assert main([*argv, "--out", str(target / "below")]) == 2
    assert "is a file" in capsys.readouterr().err
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "cqs_gen").write_text("a file where the dataset folder goes")
    assert main([*argv, "--out", str(tmp_path / "out")]) == 2
    assert "cqs_gen is a file, not a dataset folder" in capsys.readouterr().err


def test_out_without_write_permission_is_a_clear_error(tmp_path, capsys, monkeypatch):
    def refuse(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "mkdir", refuse)
    assert main(["build", "cqs_gen", "--out", str(tmp_path / "ro" / "out")]) == 2
    err = capsys.readouterr().err
    assert "cannot write to output folder" in err and "Permission denied" in err
    assert "choose a folder you can write to" in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write to a read-only folder")
def test_read_only_out_is_a_clear_error(tmp_path, capsys):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        assert main(["build", "cqs_gen", "--out", str(folder)]) == 2
    finally:
        folder.chmod(0o755)
    assert "cannot write to output folder" in capsys.readouterr().err


# ---- two processes building into one --out ----

_CHILD = r"""
import json, os, sys
from argbench import layout
from argbench.loaders import builder_class
from argbench.sources import SourceFile

spec = json.loads(sys.argv[1])
cls = builder_class(spec["name"])
cls.SOURCES = {key: SourceFile(*value) for key, value in spec["sources"].items()}
if spec["pause"]:  # stop between moving the old folder aside and moving the new one in
    real = os.replace
    def replace(src, dst, paused=[]):
        real(src, dst)
        if ".old-" in str(dst) and not paused:
            paused.append(1)
            print("paused", flush=True)
            sys.stdin.readline()
    os.replace = replace
layout.build(spec["name"], spec["out"], sources=spec["mirror"], cache_dir=spec["cache"],
             log=lambda message: print(message, flush=True))
print("built", flush=True)
"""


def _child(spec: dict, pause: bool) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", _CHILD, json.dumps({**spec, "pause": pause})],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _read_until(process: subprocess.Popen, word: str) -> list[str]:
    lines = []
    for line in process.stdout:
        lines.append(line)
        if word in line:
            break
    return lines


def test_two_builds_into_one_out_at_once_both_succeed(fixture_mirror, cache_dir, tmp_path):
    """A is held inside its swap (old folder moved aside, new one not yet in); B starts then.
    Without a lock B puts its folder in, and A's rename fails; with it B waits for A."""
    mirror = fixture_mirror("cqs_gen")
    out = tmp_path / "out"
    argbench.build("cqs_gen", out, sources=mirror, cache_dir=cache_dir)
    cls = builder_class("cqs_gen")
    spec = {
        "name": "cqs_gen",
        "out": str(out),
        "mirror": str(mirror),
        "cache": cache_dir,
        "sources": {k: [s.url, s.sha256] for k, s in cls.SOURCES.items()},
    }
    a = _child(spec, pause=True)
    b = None
    guard = threading.Timer(600, lambda: [p.kill() for p in (a, b) if p])  # never hang CI
    guard.start()
    try:
        assert "paused" in "".join(_read_until(a, "paused"))
        b = _child(spec, pause=False)
        b_lines = _read_until(b, "waiting for another build")
        a.stdin.write("\n")
        a.stdin.flush()
        a_rest, _ = a.communicate()
        b_rest, _ = b.communicate()
    finally:
        guard.cancel()
    assert a.returncode == 0, a_rest
    assert b.returncode == 0, "".join(b_lines) + b_rest
    assert "waiting for another build of cqs_gen" in "".join(b_lines)
    assert sorted(p.name for p in out.iterdir()) == ["cqs_gen"]  # the lock file is gone too
    assert layout.row_counts(out / "cqs_gen") == {
        "interventions": {"test": 2, "validation": 2},
        "questions": {"test": 5, "validation": 4},
        "extended": {"test": 2},
    }


def test_reproduce_out_that_is_a_file_is_a_clear_error(tmp_path, capsys):
    target = tmp_path / "a-file"
    target.write_text("x")
    assert main(["reproduce", "--out", str(target)]) == 2
    assert f"output folder {target} is a file" in capsys.readouterr().err
