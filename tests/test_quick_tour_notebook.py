"""docs/quick-tour.ipynb, executed by a real Jupyter kernel (nbclient + ipykernel).

The site shows the outputs committed in the notebook (scripts/docs_render.py renders them),
so this test fails when a cell fails and when a cell prints anything other than what is
committed: the page can never show a number the code no longer gives.
``ARGBENCH_NOTEBOOK_WRITE=1`` writes the fresh outputs back instead (after a change to the
notebook or to what it prints); standard error (progress bars, warnings) is not kept.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import nbclient  # nbclient, nbformat, ipykernel: in the test extra (a missing one fails)
import nbformat
import pytest

NOTEBOOK = Path(__file__).resolve().parents[1] / "docs" / "quick-tour.ipynb"


def shown(cell) -> list[str]:
    """What a code cell shows on the page: standard output and results, as text."""
    texts = []
    for output in cell.get("outputs", []):
        if output["output_type"] == "stream" and output["name"] == "stdout":
            texts.append(output["text"])
        elif output["output_type"] in ("execute_result", "display_data"):
            texts.append(output["data"].get("text/plain", ""))
        elif output["output_type"] == "error":
            texts.append(f"error {output['ename']}")
    # one stdout stream may arrive in several pieces: compare the joined text
    return [re.sub(r"[ \t]+\n", "\n", "".join(texts)).strip()]


def execute(notebook, folder: Path):
    client = nbclient.NotebookClient(
        notebook,
        timeout=900,
        kernel_name="python3",
        resources={"metadata": {"path": str(folder)}},
    )
    client.execute()
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = [
                o for o in cell.outputs if not (o.output_type == "stream" and o.name == "stderr")
            ]
    return notebook


def test_a_failing_cell_fails(tmp_path):
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("1 / 0")]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    with pytest.raises(nbclient.exceptions.CellExecutionError, match="ZeroDivisionError"):
        execute(notebook, tmp_path)


@pytest.mark.mirror
@pytest.mark.slow  # a real Jupyter kernel runs the quick tour
def test_quick_tour_runs_and_prints_what_the_site_shows(real_mirror, tmp_path, monkeypatch):
    monkeypatch.setenv("ARGBENCH_SOURCES", str(real_mirror))  # the kernel inherits it
    committed = nbformat.read(NOTEBOOK, as_version=4)
    writing = os.environ.get("ARGBENCH_NOTEBOOK_WRITE") == "1"
    if not writing:  # what the committed file shows is checked before the kernel runs it
        committed_code = [c for c in committed.cells if c.cell_type == "code"]
        assert committed_code, "the notebook has no code cell"
        for number, old in enumerate(committed_code, 1):
            assert old.get("execution_count") is not None, (
                f"code cell {number} committed unexecuted"
            )
    fresh = execute(nbformat.read(NOTEBOOK, as_version=4), tmp_path)
    if writing:
        nbformat.write(fresh, NOTEBOOK)
        pytest.skip(f"wrote the fresh outputs to {NOTEBOOK}")
    code = [
        (c, f) for c, f in zip(committed.cells, fresh.cells, strict=True) if c.cell_type == "code"
    ]
    for number, (old, new) in enumerate(code, 1):
        assert shown(new) == shown(old), f"code cell {number} prints something else now"
