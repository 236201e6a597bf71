import json
import subprocess
import sys

import pytest

import argbench
from argbench.cli import main

HEAVY = ["datasets", "evaluate", "pyarrow", "sentence_transformers", "torch", "transformers"]


def test_list(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("datasets:\n  cam_answers\n") and "claimdiff" in out
    assert "metrics:\n  annotator_agreement\n" in out and "  cr_diversity\n" in out


def test_list_json_names_datasets_and_metrics(capsys):
    assert main(["list", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found == {"datasets": argbench.list_datasets(), "metrics": argbench.list_metrics()}


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out == f"argbench {argbench.__version__}\n"


def _heavy_imports(argv: list[str], tmp_path) -> tuple[int, list[str]]:
    """Exit status of ``argbench ARGV`` in a fresh interpreter, and the heavy modules it loaded."""
    code = (
        "import sys\nfrom argbench.cli import main\ntry:\n    status = main(sys.argv[1:])\n"
        "except SystemExit as e:\n    status = e.code\n"
        f"print(status, sorted(set({HEAVY!r}) & set(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=tmp_path
    )
    status, _, loaded = done.stdout.strip().splitlines()[-1].partition(" ")
    return int(status), eval(loaded)


@pytest.mark.parametrize(
    "argv, status",
    [
        (["--help"], 0),
        (["--version"], 0),
        (["list", "--json"], 0),
        (["evaluate", "cr_diversity", "records.jsonl"], 0),
        (["evaluate", "argument_relevance", "records.jsonl"], 0),
        (["evaluate", "cq_reference_match", "records.jsonl"], 2),  # bad record, before any model
        (["evaluate", "cr_diversity", "missing.jsonl"], 2),
        (["evaluate", "cr_diversity", "records.jsonl", "--option", "nope=1"], 2),
        (["publish", "--metric", "cr_diversity", "--repo-id", "o/cr_diversity", "--dry-run"], 0),
        (["publish", "nope", "--repo-id", "o/nope"], 2),
        (["build", "nope", "--out", "b"], 2),
    ],
)
def test_quick_commands_import_no_heavy_library(argv, status, tmp_path):
    """What makes them answer at once: no datasets / evaluate / torch import (the speed itself
    is measured by scripts/bench_cli.py, not here)."""
    (tmp_path / "records.jsonl").write_text(
        '{"cq": "Is the claim true here?", "answer": "Yes [1].", "argument_relevance": [3]}\n'
    )
    assert _heavy_imports(argv, tmp_path) == (status, [])


@pytest.mark.parametrize(
    "argv",
    [
        ["build", "nope", "--out", "b"],
        ["publish", "nope", "--repo-id", "o/nope", "--dry-run"],
        ["evaluate", "cr_diversity", "--dataset", "nope"],
    ],
)
def test_an_unknown_dataset_is_the_same_mistake_everywhere(argv, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "error: unknown dataset" in err and "available: cam_answers" in err


def test_build_prints_progress_and_summary(fixture_mirror, tmp_path, capsys, cache_dir):
    mirror = fixture_mirror("cqs_gen")
    code = main(
        [
            "build",
            "cqs_gen",
            "--out",
            str(tmp_path / "out"),
            "--sources",
            str(mirror),
            "--cache-dir",
            cache_dir,
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "[1/1] cqs_gen" in out
    assert "cqs_gen/interventions/validation" in out and "summary (rows per config/split):" in out
    assert (tmp_path / "out/cqs_gen/README.md").is_file()


def test_build_unknown_name_is_an_error(capsys, tmp_path):
    assert main(["build", "nope", "--out", str(tmp_path)]) == 2
    assert "argbench build: error: unknown dataset(s): nope" in capsys.readouterr().err


def test_build_missing_sources_reports_error(capsys, tmp_path, cache_dir):
    code = main(
        [
            "build",
            "cqs_gen",
            "--out",
            str(tmp_path / "o"),
            "--sources",
            str(tmp_path / "none"),
            "--cache-dir",
            cache_dir,
        ]
    )
    assert code == 1
    assert "not available offline" in capsys.readouterr().err
