"""Every example in the README runs: its Python blocks in order, its shell commands in a temp folder.

Setup commands (`make ...`, `pip install ...`) and `argbench reproduce` are what `.ci/run`
itself executes (`make test`, `make reproduce`), so they are not run a second time here.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
RUN_BY_CI = ("make ", "pip ", "argbench reproduce")


def blocks(language: str) -> list[str]:
    return re.findall(
        rf"^```{language}\n(.*?)^```", README.read_text(encoding="utf-8"), flags=re.S | re.M
    )


def shell_commands() -> list[str]:
    commands = []
    for block in blocks("bash"):
        for line in block.splitlines():
            command = line.split("  #")[0].strip()
            if command and not command.startswith("#") and not command.startswith(RUN_BY_CI):
                commands.append(command)
    return commands


def test_readme_has_examples():
    assert len(blocks("python")) >= 4 and len(shell_commands()) >= 5


@pytest.fixture
def in_tmp(real_mirror, tmp_path, monkeypatch):
    monkeypatch.setenv("ARGBENCH_SOURCES", str(real_mirror))
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.mirror
def test_python_examples_run(in_tmp):
    namespace: dict = {"__name__": "readme"}
    for number, block in enumerate(blocks("python"), 1):
        try:
            exec(compile(block, f"README.md python block {number}", "exec"), namespace)
        except Exception as error:  # pragma: no cover - the message is the point
            pytest.fail(
                f"README python block {number} failed: {type(error).__name__}: {error}\n{block}"
            )


@pytest.mark.mirror
def test_shell_examples_run(in_tmp):
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for command in shell_commands():
        done = subprocess.run(
            command, shell=True, cwd=in_tmp, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, (
            f"README command failed: {command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        )
