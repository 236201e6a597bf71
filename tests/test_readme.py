"""Every example in the README runs: its Python blocks in order, its shell commands in a temp folder.

Setup commands (`make ...`, `python -m venv`, `pip install ...`) and `argbench reproduce` are
what `.ci/run` itself executes (`make test`, `make reproduce`), so they are not run a second time here; a
real upload (`argbench publish` without `--dry-run`) needs the Hub and is tested against a
stubbed HfApi in test_publish.py. The benchmark commands stand in a ``text`` block: they run
for up to 40 minutes and print timings, not results to check.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .openai_stub import StubServer

README = Path(__file__).resolve().parents[1] / "README.md"
# the install steps (what `make setup` does) and the reproduction (`make reproduce`)
RUN_BY_CI = ("make ", "pip ", "python -m venv ", "python -m pip ", ". .venv/", "argbench reproduce")


def blocks(language: str) -> list[str]:
    return re.findall(
        rf"^```{language}\n(.*?)^```", README.read_text(encoding="utf-8"), flags=re.S | re.M
    )


def shell_scripts() -> list[str]:
    """Each bash block as one script (variables carry over), less what is run elsewhere."""
    scripts = []
    for block in blocks("bash"):
        kept = []
        for line in block.splitlines():
            command = line.split("  #")[0].strip()
            needs_hub = command.startswith("argbench publish") and "--dry-run" not in command
            if command and not command.startswith(("#", *RUN_BY_CI)) and not needs_hub:
                kept.append(command)
        if kept:
            scripts.append("\n".join(kept))
    return scripts


def test_readme_has_examples():
    assert len(blocks("python")) >= 4 and len(shell_scripts()) >= 3


@pytest.fixture
def in_tmp(real_mirror, tmp_path, monkeypatch):
    monkeypatch.setenv("ARGBENCH_SOURCES", str(real_mirror))
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def llm_endpoint(monkeypatch):
    """The README's LLM-judge example talks to a local OpenAI-compatible stub that answers 1."""
    with StubServer(lambda request, number: (200, "1", 0, None)) as server:
        monkeypatch.setenv("ARGBENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("ARGBENCH_LLM_API_KEY", "stub")
        monkeypatch.setenv("ARGBENCH_LLM_MODEL", "stub-model")
        yield server


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
def test_shell_examples_run(in_tmp, llm_endpoint):
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for script in shell_scripts():
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script],
            cwd=in_tmp,
            env=env,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, (
            f"README commands failed:\n{script}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        )
    assert llm_endpoint.requests, "the LLM-judge example never reached the endpoint"
