"""Every example in README.md and docs/*.md runs, and prints what the page shows.

One test per page (any new ``docs/*.md`` is picked up), run from an empty temporary folder
with ``ARGBENCH_SOURCES`` set:
- ```` ```python ```` blocks run in order, each in a fresh namespace: a reader can copy any
  one block alone, so a block that needs an import from an earlier one fails;
- ```` ```bash ```` blocks run each as a ``bash -euo pipefail`` script in the page's folder;
- ``<!-- not run: REASON -->`` on the line before a fence skips that block (a reason is
  required: the page fails to parse without one);
- a ```` ```text title="Output" ```` block right after a run block is what that block prints:
  compared line by line (trailing spaces ignored), ``...`` matches any text (several lines
  too), a number followed by ``s`` (a time: ``0.52 s``, ``12s``) matches any number; every
  other character must be printed as shown.
All failures of a page are reported together (a later block still runs after one fails).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

import pytest

from .openai_stub import StubServer

ROOT = Path(__file__).resolve().parents[1]
# the README, the guides, and the cards the site shows as pages (metric and dataset cards)
PAGES = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted((ROOT / "metrics").glob("*/README.md")),
    *sorted((ROOT / "dataset_cards").glob("*.md")),
]
RUN = ("python", "bash")
SKIP = re.compile(r"^<!--\s*not run:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(`{3,})(.*)$")
OUTPUT_INFO = re.compile(r'^text\s+title="Output"\s*$')


@dataclass
class Block:
    page: str
    line: int  # of the opening fence, 1-based
    language: str
    code: str
    skip: str | None = None
    output: str | None = None  # the Output block that follows, if any


def parse(path: Path) -> list[Block]:
    """The fenced blocks of a page, with their markers and the Output block after each."""
    lines = path.read_text(encoding="utf-8").splitlines()
    blocks: list[Block] = []
    i = 0
    previous = ""  # the last non-blank line before the current one
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            if lines[i].strip():
                if SKIP.match(previous) and not SKIP.match(lines[i]):
                    raise ValueError(f"{path.name}:{i}: a 'not run' marker not followed by a fence")
                previous = lines[i]
            i += 1
            continue
        ticks, info = opening.group(1), opening.group(2).strip()
        end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == ticks), None)
        if end is None:
            raise ValueError(f"{path.name}:{i + 1}: fence never closed")
        code = "\n".join(lines[i + 1 : end]) + "\n"
        marker = SKIP.match(previous)
        if marker and not marker.group(1):
            raise ValueError(f"{path.name}:{i}: 'not run' needs a reason")
        language = info.split()[0] if info else ""
        if OUTPUT_INFO.match(info):
            if not blocks or blocks[-1].language not in RUN or blocks[-1].output is not None:
                raise ValueError(f"{path.name}:{i + 1}: an Output block must follow a run block")
            if blocks[-1].skip:
                raise ValueError(f"{path.name}:{i + 1}: output of a block that is not run")
            if not _only_blank_between(lines, blocks[-1].line, i, blocks[-1]):
                raise ValueError(f"{path.name}:{i + 1}: text between a block and its Output")
            blocks[-1].output = code
        else:
            blocks.append(
                Block(path.name, i + 1, language, code, marker.group(1) if marker else None)
            )
        previous = lines[end]
        i = end + 1
    return blocks


def _only_blank_between(lines, block_line, output_index, block) -> bool:
    block_end = block_line + block.code.count("\n")  # index of the closing fence
    return all(not line.strip() for line in lines[block_end + 1 : output_index])


def expected_pattern(expected: str) -> re.Pattern:
    """``...`` = any text; a number before ``s`` (a time) = any number; the rest literal."""
    parts = re.split(r"(\.\.\.|\d+(?:\.\d+)?(?=\s?s\b))", expected)
    regex = ""
    for n, part in enumerate(parts):
        if n % 2 == 0:
            regex += re.escape(part)
        elif part == "...":
            regex += ".*?"
        else:
            regex += r"\d+(?:\.\d+)?"
    return re.compile(regex, flags=re.S)


def _normal(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


def matches(expected: str, printed: str) -> bool:
    return expected_pattern(_normal(expected)).fullmatch(_normal(printed)) is not None


def _id(path: Path) -> str:
    return str(path.relative_to(ROOT))


# ---- the runner's own rules, on small pages ----


def test_parse_markers_and_outputs(tmp_path):
    page = tmp_path / "p.md"
    page.write_text(
        "x\n<!-- not run: needs a GPU -->\n```python\nprint(1)\n```\n\n"
        '```bash\necho hi\n```\n\n```text title="Output"\nhi\n```\n```text\nnot run\n```\n'
    )
    first, second, third = parse(page)
    assert (first.language, first.skip, first.output) == ("python", "needs a GPU", None)
    assert (second.language, second.skip, second.output) == ("bash", None, "hi\n")
    assert third.language == "text"
    page.write_text("<!-- not run: reason -->\nplain text\n```bash\nls\n```\n")
    with pytest.raises(ValueError, match="not followed by a fence"):
        parse(page)
    page.write_text('```python\nx = 1\n```\nwords\n```text title="Output"\n1\n```\n')
    with pytest.raises(ValueError, match="text between"):
        parse(page)
    page.write_text("<!-- not run: -->\n```bash\nls\n```\n")
    with pytest.raises(ValueError, match="needs a reason"):
        parse(page)
    page.write_text('<!-- not run: GPU -->\n```bash\nls\n```\n```text title="Output"\nx\n```\n')
    with pytest.raises(ValueError, match="not run"):
        parse(page)


def test_output_matching_rules():
    assert matches("score 0.683\n", "score 0.683  \n")
    assert not matches("score 0.683", "score 0.684")  # numbers are exact
    assert matches("took 0.52 s, then 12s", "took 3.1 s, then 140s")  # times are not
    assert not matches("took 0.52 s", "took a while")
    assert matches("a\n...\nz", "a\nb\nc\nz") and not matches("a\n...\nz", "a\nb")


# ---- the pages ----


@pytest.fixture
def llm_endpoint(monkeypatch):
    """Examples with an LLM judge talk to a local OpenAI-compatible stub that answers 1."""
    with StubServer(lambda request, number: (200, "1", 0, None)) as server:
        monkeypatch.setenv("ARGBENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("ARGBENCH_LLM_API_KEY", "stub")
        monkeypatch.setenv("ARGBENCH_LLM_MODEL", "stub-model")
        yield server


def _run_python(block: Block, namespace: dict) -> tuple[str, str | None]:
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(block.code, f"{block.page} line {block.line}", "exec"), namespace)
    except Exception:  # the page's failure is reported, with the next blocks' ones
        return out.getvalue(), traceback.format_exc(limit=-3)
    return out.getvalue(), None


def _run_bash(block: Block, folder: Path) -> tuple[str, str | None]:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block.code],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode:
        return done.stdout, f"exit status {done.returncode}\n{done.stderr[-3000:]}"
    return done.stdout, None


def _has_examples(page: Path) -> bool:
    """A page with a block to run; a page that does not parse is kept, so its test fails."""
    try:
        return any(not b.skip and b.language in RUN for b in parse(page))
    except ValueError:
        return True


# a page without a block to run has no test: it could only be skipped
EXAMPLE_PAGES = [page for page in PAGES if _has_examples(page)]


@pytest.mark.mirror
@pytest.mark.parametrize("page", EXAMPLE_PAGES, ids=_id)
@pytest.mark.slow  # every page's examples on the real files
def test_page_examples_run(page, real_mirror, tmp_path, monkeypatch, llm_endpoint):
    monkeypatch.setenv("ARGBENCH_SOURCES", str(real_mirror))
    monkeypatch.chdir(tmp_path)
    failures = []
    ran = 0
    for block in parse(page):
        if block.skip or block.language not in RUN:
            continue
        ran += 1
        if block.language == "python":
            printed, error = _run_python(block, {"__name__": "docs_example"})
        else:
            printed, error = _run_bash(block, tmp_path)
        where = f"{_id(page)}:{block.line} ({block.language})"
        if os.environ.get("ARGBENCH_DOCS_SHOW"):  # for page authors: pytest -s shows each output
            print(f"\n== {where}\n{printed}== end")
        if error:
            failures.append(f"{where} failed:\n{error}")
        elif block.output is not None and not matches(block.output, printed):
            failures.append(
                f"{where} printed something else than its Output block.\n"
                f"--- shown ---\n{block.output}--- printed ---\n{printed}"
            )
    if not ran:
        pytest.skip(f"{_id(page)}: no example to run")
    if "judge=llm" in page.read_text(encoding="utf-8"):
        assert llm_endpoint.requests, f"{_id(page)}: the LLM-judge example never reached the stub"
    assert not failures, "\n\n".join(failures)
