"""Helpers the test modules share (one copy each): the CLI called in-process, a JSON / JSONL
writer, and the real corpora built once per test session (the ``real_corpora`` fixture in
conftest.py hands out :class:`RealCorpora`)."""

from __future__ import annotations

import json
import os
from contextlib import contextmanager
from pathlib import Path

from argbench.cli import main


def cli(capsys, *argv) -> tuple[int, str, str]:
    """``argbench ARGV`` in this process: (exit code, stdout, stderr); never a traceback."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def write(path: Path, data) -> str:
    """``data`` as JSON, or as JSON lines when ``path`` ends in ``.jsonl``; returns the path."""
    if path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in data), encoding="utf-8")
    else:
        path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


@contextmanager
def locked(path: Path):
    """An exclusive lock file shared by the processes of one run (pytest-xdist's workers)."""
    from filelock import FileLock

    path.parent.mkdir(parents=True, exist_ok=True)
    with FileLock(str(path)):
        yield


def run_root(tmp_path_factory) -> Path:
    """A folder every process of this pytest run sees: the base temp folder, or under
    pytest-xdist the folder that holds each worker's base temp folder."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


class RealCorpora:
    """Every corpus built from the real mirror at most once per test run (across xdist workers
    too), on first use: its Hub-layout folder, and one datasets cache in which every config
    of every corpus built so far is prepared.

    Tests read these and must not change them: a test that writes or breaks a cache, or scans
    one, builds its own in ``tmp_path``.
    """

    def __init__(self, mirror: Path, root: Path):
        self.mirror, self.root = Path(mirror), Path(root)
        self.cache = str(self.root / "cache")

    def folder(self, name: str) -> Path:
        """``argbench.build``'s folder of ``name`` (README card + Parquet), built on first use."""
        import argbench

        done = self.root / f".{name}.complete"
        with locked(self.root / f".{name}.lock"):
            if not done.is_file():
                argbench.build(name, self.root / "built", sources=self.mirror, cache_dir=self.cache)
                done.write_text("built\n")
        return self.root / "built" / name

    def load(self, name: str, config=None, split=None, **options):
        """``argbench.load_dataset`` on the mirror, from the cache ``folder(name)`` prepared."""
        import argbench

        self.folder(name)
        return argbench.load_dataset(
            name, config, split, sources=self.mirror, cache_dir=self.cache, **options
        )
