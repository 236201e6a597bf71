"""Helpers the test modules share (one copy each): the CLI called in-process, a JSON / JSONL
writer, and the real corpora built once per test session (the ``real_corpora`` fixture in
conftest.py hands out :class:`RealCorpora`)."""

from __future__ import annotations

import json
import os
import sys
from contextlib import contextmanager
from pathlib import Path

from argbench.cli import main

CQ_IDS = [f"TRUMP_1_{k}" for k in range(4)]  # the expanded cqs_gen fixture, in order


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


def cached_venv(name: str, *installs: list[str]) -> Path:
    """The python of a venv made once under ``$ARGBENCH_TEST_VENVS`` (default
    ``~/.cache/argbench-test-venvs``) and reused: ``name`` says what it holds (a digest of its
    requirements, the Python version), ``installs`` are the ``pip install`` argument lists run
    in it. For what must not enter the project's venv (the Space's Gradio, the Every Eval Ever
    validator whose requirements clash with argbench's)."""
    import shutil
    import subprocess
    import time

    root = Path(os.environ.get("ARGBENCH_TEST_VENVS", Path.home() / ".cache/argbench-test-venvs"))
    target = root / f"{name}-py{sys.version_info[0]}.{sys.version_info[1]}"
    python, complete = target / "bin" / "python", target / ".complete"
    with locked(Path(f"{target}.lock")):  # one maker at a time: xdist workers, other runs
        if complete.is_file():
            return python
        shutil.rmtree(target, ignore_errors=True)  # a half-made one
        start = time.monotonic()
        subprocess.run([sys.executable, "-m", "venv", str(target)], check=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", "--upgrade", "pip"], capture_output=True
        )
        for arguments in installs:
            done = subprocess.run(
                [str(python), "-m", "pip", "install", "-q", *arguments],
                capture_output=True,
                text=True,
            )
            if done.returncode != 0:
                raise RuntimeError(f"cannot make the venv {target}: {done.stderr[-3000:]}")
        complete.write_text(f"made in {time.monotonic() - start:.0f} s\n")
        print(f"{target.name}: made in {time.monotonic() - start:.0f} s", file=sys.stderr)
        return python


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


def expanded_fixtures(root: Path) -> dict[str, dict[str, Path]]:
    """Fixture source files with more items: 4 CQs-Gen interventions, ClaimDiff pairs in 4
    issues (so the issue-exclusive dev split has issues to draw) with positives in both."""
    from tests.conftest import FIXTURES

    out: dict[str, dict[str, Path]] = {}
    validation = json.loads((FIXTURES / "cqs_gen/validation.json").read_text())
    first = next(iter(validation.values()))
    grown = {}
    for k, cq_id in enumerate(CQ_IDS):
        refs = [{**r, "id": f"{r['id']}_{k}"} for r in first["cqs"]]
        text = f"{first['intervention']} (intervention {k})"
        grown[cq_id] = {**first, "intervention_id": cq_id, "intervention": text, "cqs": refs}
    (root / "validation.json").write_text(json.dumps(grown))
    out["cqs_gen"] = {"validation": root / "validation.json"}
    out["claimdiff"] = {}
    for config, stem in (("S", "strength"), ("W", "weak")):
        data = json.loads((FIXTURES / f"claimdiff/ClaimDiff-{stem}.json").read_text())
        pairs = []
        for k in range(4):
            for record in data["data"]:
                base, rev = (
                    record["pair_id"].removesuffix("_rev"),
                    record["pair_id"].endswith("_rev"),
                )
                pair_id = f"t{k}{base}" + ("_rev" if rev else "")
                pairs.append({**record, "topic": f"Issue {k}", "pair_id": pair_id})
        path = root / f"ClaimDiff-{stem}.json"
        path.write_text(json.dumps({"data": pairs, "ver": 1.0}))
        for split in ("train", "test", "test-full"):
            out["claimdiff"][f"{config}/{split}"] = path
    return out


def harness_environment(tmp: Path, minilm: str) -> dict:
    """Environment for harness processes (lm_eval, inspect; the ``harness_env`` fixture):
    corpora built from the expanded fixtures into a folder, a tiny causal LM, the offline
    MiniLM as STS model, everything offline and in ``tmp``."""
    import pytest

    import argbench
    from argbench.loaders import builder_class
    from argbench.sources import SourceFile, mirror_path, sha256_of
    from tests.conftest import FIXTURE_FILES, FIXTURES
    from tests.tiny_lm import build_tiny_lm

    grown = expanded_fixtures(tmp)
    mirror, data = tmp / "mirror", tmp / "data"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_DATASETS_OFFLINE", "1")
        patch.setenv("HF_HUB_OFFLINE", "1")
        for name in ("cqs_gen", "claimdiff", "cam_answers"):
            cls = builder_class(name)
            declared = dict(cls.SOURCES)
            for key, relative in FIXTURE_FILES[name].items():
                target = mirror_path(mirror, cls.SOURCES[key])
                target.parent.mkdir(parents=True, exist_ok=True)
                source = grown.get(name, {}).get(key, FIXTURES / relative)
                target.write_bytes(Path(source).read_bytes())
                declared[key] = SourceFile(cls.SOURCES[key].url, sha256_of(target))
            patch.setattr(cls, "SOURCES", declared)
            argbench.build(name, data, sources=mirror, cache_dir=str(tmp / "build-cache"))
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ARGBENCH_", "HF_", "OPENAI_", "INSPECT_"))
    }
    env.update(
        ARGBENCH_HARNESS_DATA=str(data),
        ARGBENCH_STS_MODEL=minilm,
        ARGBENCH_EMBEDDINGS_CACHE=str(tmp / "emb"),
        HF_HOME=str(tmp / "hf"),
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        TOKENIZERS_PARALLELISM="false",
        INSPECT_LOG_DIR=str(tmp / "inspect-logs"),
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    )
    return {
        "env": env,
        "tmp": tmp,
        "model": build_tiny_lm(tmp / "tiny", positions=2048, never_blank=True),
    }
