"""The site's generated pages (scripts/mkdocs_hooks.py) cover what the code has, so a new
corpus, metric, subcommand or docs page shows up without anyone listing it. `make docs`
(in .ci/run) builds the site itself with --strict."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

import argbench

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def hooks():
    pytest.importorskip("mkdocs")
    spec = importlib.util.spec_from_file_location("mkdocs_hooks", ROOT / "scripts/mkdocs_hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_page_per_corpus_and_metric_and_reference(hooks, monkeypatch):
    monkeypatch.delenv("ARGBENCH_DOCS_BUILD", raising=False)
    monkeypatch.delenv("ARGBENCH_DOCS_REQUIRE", raising=False)
    pages = hooks.generated_pages()
    assert {f"corpora/{n}.md" for n in argbench.list_datasets()} <= set(pages)
    assert {f"metric-cards/{n}.md" for n in argbench.list_metrics()} <= set(pages)
    for name in ("cli", "api/index", "api/argbench.io", "exit-codes", "performance"):
        assert f"reference/{name}.md" in pages
    # templates without a build: placeholders are explained, never left raw
    assert (
        "{{" not in pages["corpora/cqs_gen.md"] and "argbench build" in pages["corpora/cqs_gen.md"]
    )
    # the home page is docs/index.md (the quick tour); the notebook page has its outputs
    assert "index.md" not in pages and (ROOT / "docs" / "index.md").is_file()
    assert '```text title="Output"' in pages["quick-tour.md"]


def test_cli_page_has_every_subcommand(hooks):
    import argparse

    from argbench.cli import parser

    page = hooks.cli_page()
    (sub,) = [a for a in parser()._actions if isinstance(a, argparse._SubParsersAction)]
    assert all(f"## `argbench {name}`" in page for name in sub.choices)
    assert "## `argbench pairwise fit`" in page  # nested subcommands too


def test_exit_codes_come_from_the_cli(hooks):
    rows = hooks.exit_code_rows()
    assert [status for status, *_ in rows] == [0, 1, 2, 130]
    assert "`FileNotFoundError`" in rows[2][2]


def test_nav_takes_every_docs_page(hooks, tmp_path):
    """A page another branch adds (say docs/judges.md or docs/zzz.md) is in the nav unlisted."""
    for name in ("install.md", "zzz-new.md", "development.md"):
        (tmp_path / name).write_text(f"# Title of {name}\n")
    hooks._PAGES.clear()
    hooks._PAGES.update({"reference/cli.md": "# CLI\n", "reproduction/report.md": "# R\n"})
    nav = json.dumps(hooks._nav(tmp_path))
    assert all(name in nav for name in ("install.md", "zzz-new.md", "development.md"))
    assert nav.index("install.md") < nav.index("zzz-new.md")
    # grouped: tutorials, how-to guides (where unlisted pages go), results, reference, about
    groups = [next(iter(entry)) for entry in hooks._nav(tmp_path)]
    assert groups == ["Home", "Tutorials", "How-to guides", "Results", "Reference", "About"]
    # the leaderboard page (another branch adds docs/leaderboard.md) sits beside the report
    (tmp_path / "leaderboard.md").write_text("# Leaderboard\n")
    results = next(e["Results"] for e in hooks._nav(tmp_path) if "Results" in e)
    assert results == [{"R": "reproduction/report.md"}, {"Leaderboard": "leaderboard.md"}]


def test_missing_report_is_an_error_when_required(hooks, monkeypatch, tmp_path):
    monkeypatch.setenv("ARGBENCH_DOCS_BUILD", str(tmp_path))
    monkeypatch.setenv("ARGBENCH_DOCS_REQUIRE", "1")
    with pytest.raises(SystemExit, match="make reproduce"):
        hooks.report_pages()
    monkeypatch.setenv("ARGBENCH_DOCS_REQUIRE", "")
    assert "Not in this build" in hooks.report_pages()["reproduction/report.md"]


def test_performance_page_says_what_ran_when_and_what_is_missing(hooks, monkeypatch, tmp_path):
    """The committed full run and this build's run, each with date and machine; a bench that
    timed out or never ran is named, never silently absent."""
    runs = {
        "small": False,
        "machine": "Linux, 2 CPUs, load 3.0",
        "date": "2026-11-26 11:22 UTC",
        "benches": [
            {
                "bench": "bench_cli",
                "command": "python scripts/bench_cli.py",
                "returncode": 0,
                "seconds": 12.0,
                "output": "bench_cli.txt",
            },
            {
                "bench": "bench_compare",
                "command": "python scripts/bench_compare.py",
                "returncode": None,
                "timed_out": True,
                "seconds": 1500.0,
                "output": "bench_compare.txt",
            },
        ],
    }
    (tmp_path / "benches.json").write_text(json.dumps(runs))
    (tmp_path / "bench_cli.txt").write_text("ratio 3.1x\n")
    (tmp_path / "bench_compare.txt").write_text("")
    monkeypatch.setattr(hooks, "FULL_BENCH", tmp_path)
    monkeypatch.delenv("ARGBENCH_DOCS_BENCH", raising=False)
    monkeypatch.delenv("ARGBENCH_DOCS_REQUIRE", raising=False)
    page = hooks.performance_page()
    assert "full size, 2026-11-26 11:22 UTC; machine: Linux, 2 CPUs, load 3.0." in page
    assert "ratio 3.1x" in page and "timed out, 1500.0 s in all" in page
    assert "Did not finish in this run: `bench_compare`." in page
    assert "Not in this run: " in page and "`bench_sts`" in page
