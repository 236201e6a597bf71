"""``argbench export eee``: results files as Every Eval Ever records, checked by Every Eval
Ever's own validator (``python -m every_eval_ever validate``, every-eval-ever 0.3.0).

The validator runs in a venv of its own (``$ARGBENCH_TEST_VENVS``, made once, about a minute
with pip's cache): its package declares Python >= 3.12 and huggingface_hub < 2, so it is
installed ``--no-deps --ignore-requires-python`` beside the libraries it imports (DESIGN.md,
"Models and tools on the package registry"). The results files are real runs on the fixture
corpora: CAM argument relevance, ClaimDiff rationales and claim relation, CQs-Gen reference
matching by STS and by an LLM judge (the loopback OpenAI stub); the harness import's export is
in tests/test_harness.py (it needs the real lm_eval run).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import argbench
from argbench.cli.exits import exit_for
from argbench.results import read_results, write_results
from tests.helpers import cached_venv, cli, write
from tests.openai_stub import StubServer

FIXTURES = Path(__file__).parent / "fixtures"
EEE = "every-eval-ever==0.3.0"
# what its validator imports (its declared requirements hold huggingface_hub < 2 and Python 3.12)
EEE_IMPORTS = ["jsonschema", "pydantic", "pyyaml", "requests", "rich<15", "pandas", "duckdb"]


def eee_validate(out: Path) -> dict:
    """Every Eval Ever's validator on every record under ``out/data``: {file: report}; the
    validator's exit code 0 means no error and no warning."""
    python = cached_venv(
        "every-eval-ever-0.3.0",
        ["--no-deps", "--ignore-requires-python", EEE],
        EEE_IMPORTS,
    )
    done = subprocess.run(
        [
            str(python), "-m", "every_eval_ever", "validate", "--format", "json",
            str(out / "data/*/*/*/*.json"), str(out / "data/*/*/*/*.jsonl"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    return {Path(r["file"]).name: r for r in json.loads(done.stdout)}


def export(capsys, out: Path, *results, extra=("--developer", "argbench-tests")) -> list[Path]:
    code, stdout, err = cli(capsys, "export", "eee", *results, "--out", out, *extra)
    assert code == 0, err
    return [Path(line) for line in stdout.splitlines()]


def aggregates(paths) -> list[dict]:
    return [json.loads(p.read_text()) for p in paths if p.suffix == ".json"]


@pytest.fixture
def runs(tmp_path, capsys, fixture_mirror, cache_dir, minilm, monkeypatch) -> dict[str, str]:
    """Results files of real runs on the fixture corpora, by name."""
    out = {}

    def evaluate(name, metric, records, dataset, *options):
        path = write(tmp_path / f"{name}.jsonl", records)
        target = tmp_path / f"{name}.results.json"
        code, _, err = cli(
            capsys, "evaluate", metric, path, "--dataset", dataset, *options,
            "--cache-dir", cache_dir, "--out", target,
        )  # fmt: skip
        assert code == 0, err
        out[name] = str(target)

    cam = str(fixture_mirror("cam_answers"))
    silver = argbench.load_dataset(
        "cam_answers", "silver", "train", sources=cam, cache_dir=cache_dir
    )
    answers = [
        {"question_id": r["question_id"], "answer_index": r["answer_index"], "answer": r["answer"]}
        for r in silver
    ]
    evaluate(
        "cam", "argument_relevance", answers, "cam_answers", "--config", "silver",
        "--sources", cam, "--ci", "--resamples", "300",
    )  # fmt: skip
    claimdiff = str(fixture_mirror("claimdiff"))
    test = argbench.load_dataset("claimdiff", "S", "test", sources=claimdiff, cache_dir=cache_dir)
    rationales = [
        {"pair_id": r["pair_id"], "predicted_rationales": r["rationales"][:1]} for r in test
    ]
    evaluate(
        "claimdiff", "rationale_f1", rationales, "claimdiff", "--config", "S", "--split", "test",
        "--sources", claimdiff, "--ci", "--resamples", "300",
    )  # fmt: skip
    scores = [{"pair_id": r["pair_id"], "score": 0.9 if r["label"] else 0.2} for r in test]
    evaluate(
        "claimdiff_relation", "claim_relation", scores, "claimdiff", "--config", "S",
        "--split", "test", "--sources", claimdiff, "--threshold", "0.5",
    )  # fmt: skip
    cqs = str(fixture_mirror("cqs_gen"))
    refs = json.loads((FIXTURES / "cqs_gen" / "validation.json").read_text())
    submission = [
        {
            "intervention_id": key,
            "cqs": [{"id": j, "cq": q["cq"]} for j, q in enumerate(item["cqs"][:3])],
        }
        for key, item in refs.items()
    ]
    evaluate(
        "cqs_gen", "cq_reference_match", submission, "cqs_gen", "--split", "validation",
        "--sources", cqs, "--model", minilm, "--ci", "--resamples", "300",
    )  # fmt: skip
    with StubServer(lambda request, number: (200, "Similar reference not found.", 0, None)) as stub:
        monkeypatch.setenv("ARGBENCH_LLM_BASE_URL", stub.base_url)
        monkeypatch.setenv("ARGBENCH_LLM_API_KEY", "x")
        monkeypatch.setenv("ARGBENCH_LLM_MODEL", "stub-model")
        monkeypatch.setenv("ARGBENCH_LLM_MODEL_ID", "stub-judge-v1")
        evaluate(
            "cqs_gen_llm", "cq_reference_match", submission, "cqs_gen", "--split", "validation",
            "--sources", cqs, "--matcher", "llm", "--ci",
            "--resamples", "300",
        )  # fmt: skip
    return out


@pytest.mark.slow  # Every Eval Ever's validator in its own venv
def test_cam_claimdiff_cqs_gen_runs_export_as_valid_records(runs, tmp_path, capsys):
    out = tmp_path / "eee"
    written = export(capsys, out, *runs.values())
    reports = eee_validate(out)
    assert len(reports) == len(written) and all(r["valid"] for r in reports.values())
    assert all(not r["warnings"] for r in reports.values()), reports
    records = {a["source_metadata"]["source_name"].split()[-1]: a for a in aggregates(written)}

    cam = records["cam.results.json"]
    doc = read_results(runs["cam"])
    assert cam["eval_library"] == {
        "name": "argbench",
        "version": argbench.__version__,
        "additional_details": cam["eval_library"]["additional_details"],
    }
    assert cam["eval_library"]["additional_details"]["signature"] == doc["signature"]
    f1 = next(r for r in cam["evaluation_results"] if r["evaluation_result_id"].endswith(".f1"))
    assert f1["score_details"]["score"] == pytest.approx(doc["result"]["f1"])
    interval = f1["score_details"]["uncertainty"]["confidence_interval"]
    assert (interval["lower"], interval["upper"]) == (doc["result"]["ci"]["f1"]["low"], doc["result"]["ci"]["f1"]["high"])  # fmt: skip
    assert interval["confidence_level"] == 0.95
    assert f1["score_details"]["uncertainty"]["num_bootstrap_samples"] == 300
    source = f1["source_data"]["additional_details"]
    assert source["content_hash"] == doc["dataset"]["content_hash"] and source["version"] == "2.0.0"
    assert f1["metric_config"]["metric_parameters"]["relevant"] == ">=2"
    assert "llm_scoring" not in f1["metric_config"]  # no LLM scored CAM's relevance
    samples = (out / cam["detailed_evaluation_results"]["file_path"]).read_text().splitlines()
    assert len(samples) == cam["detailed_evaluation_results"]["total_rows"] > 0
    assert {json.loads(s)["sample_id"] for s in samples} <= set(doc["item_ids"])

    llm = records["cqs_gen_llm.results.json"]["evaluation_results"][0]["metric_config"]
    judge = llm["llm_scoring"]["judges"][0]["model_info"]
    assert judge["name"] == "stub-model" and judge["additional_details"]["argbench_identity"] == "id:stub-judge-v1"  # fmt: skip
    assert "llm_scoring" not in records["cqs_gen.results.json"]["evaluation_results"][0]["metric_config"]  # fmt: skip
    # a corpus-level figure (AUROC): an aggregate without per-item samples
    relation = records["claimdiff_relation.results.json"]
    assert "detailed_evaluation_results" not in relation
    assert {r["evaluation_result_id"] for r in relation["evaluation_results"]} >= {"claim_relation.auroc"}  # fmt: skip
    assert records["claimdiff.results.json"]["detailed_evaluation_results"]["total_rows"] > 0


def test_the_same_run_exports_the_same_ids_twice(runs, tmp_path, capsys):
    first = export(capsys, tmp_path / "a", runs["cam"], runs["cqs_gen"])
    again = export(capsys, tmp_path / "b", runs["cam"], runs["cqs_gen"])
    assert [p.relative_to(tmp_path / "a") for p in first] == [p.relative_to(tmp_path / "b") for p in again]  # fmt: skip
    ids = [a["evaluation_id"] for a in aggregates(first)]
    assert ids == [a["evaluation_id"] for a in aggregates(again)] and len(set(ids)) == 2
    for path in first:  # the samples files are byte for byte the same
        if path.suffix == ".jsonl":
            assert path.read_bytes() == (tmp_path / "b" / path.relative_to(tmp_path / "a")).read_bytes()  # fmt: skip
    # the same export into the same folder replaces its files: no second copy
    export(capsys, tmp_path / "a", runs["cam"], runs["cqs_gen"])
    assert sorted((tmp_path / "a").rglob("*.json*")) == sorted(first)
    # another run (other settings: another signature and digest) is another record
    doc = read_results(runs["cam"])
    other = tmp_path / "other.results.json"
    doc.pop("digest")
    doc["system"] = "mine-again"
    write_results(doc, other)
    (record,) = aggregates(export(capsys, tmp_path / "c", other))
    assert record["evaluation_id"] not in ids


def test_an_edited_results_file_is_refused_and_nothing_is_written(runs, tmp_path, capsys):
    doc = json.loads(Path(runs["cam"]).read_text())
    doc["system"] = "someone else"  # the digest no longer matches
    edited = tmp_path / "edited.results.json"
    edited.write_text(json.dumps(doc))
    code, _, err = cli(capsys, "export", "eee", runs["cqs_gen"], edited, "--out", tmp_path / "x")
    assert code == exit_for("export eee", "edited") == 2
    assert "edited.results.json: the content does not match its digest" in err
    assert not (tmp_path / "x").exists()  # the good file before it was not exported either
    # a folder: its results files are read the same way; other JSON files are named, skipped
    folder = tmp_path / "board"
    (folder / "results").mkdir(parents=True)
    (folder / "space.json").write_text("{}")
    (folder / "results" / "cam.json").write_bytes(Path(runs["cam"]).read_bytes())
    code, stdout, err = cli(capsys, "export", "eee", folder, "--out", tmp_path / "y")
    assert code == 0 and "skipped" in err and "space.json: not an argbench results file" in err
    assert len(stdout.splitlines()) == 2  # control: the aggregate and its samples
    (folder / "results" / "edited.json").write_text(json.dumps(doc))
    code, _, err = cli(capsys, "export", "eee", folder, "--out", tmp_path / "z")
    assert code == 2 and "edited.json: the content does not match its digest" in err
    assert not (tmp_path / "z").exists()
