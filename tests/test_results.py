"""Your system on a corpus split (argbench.evaluate_predictions, argbench evaluate FILE
--dataset), results files, and argbench compare."""

from __future__ import annotations

import json

import pytest

import argbench
from argbench.results import (
    compare_results,
    content_hash,
    load_split,
    read_results,
    write_results,
)
from argbench.scoring.argument_relevance import argument_relevance
from argbench.scoring.cq_reference_match import cq_reference_match, read_submission
from argbench.scoring.rationale_f1 import rationale_f1
from argbench.signature import Signature

from .conftest import FIXTURES
from .helpers import cli, write

VALIDATION = FIXTURES / "cqs_gen" / "validation.json"


@pytest.fixture
def cam(fixture_mirror, cache_dir):
    """cam_answers silver (3 questions × 3 answers) from the fixture files."""
    mirror = str(fixture_mirror("cam_answers"))
    rows = argbench.load_dataset(
        "cam_answers", "silver", "train", sources=mirror, cache_dir=cache_dir
    )
    return {"sources": mirror, "cache_dir": cache_dir}, rows


def answers(rows, level="answer", change=lambda text: text):
    out = []
    for row in rows:
        if level == "question" and row["answer_index"] != 0:
            continue
        record = {"question_id": row["question_id"], "answer": change(row["answer"])}
        if level == "answer":
            record["answer_index"] = row["answer_index"]
        out.append(record)
    return out


# ---- joining predictions to a split ----


def test_answers_join_by_question_and_answer_id(cam):
    where, rows = cam
    mine = answers(rows)[::-1]  # any order: the split's order is kept
    doc = argbench.evaluate_predictions(
        "argument_relevance", mine, "cam_answers", "silver", **where
    )
    expected = argument_relevance(rows["answer"], rows["argument_relevance"])
    assert doc["result"] == json.loads(json.dumps(expected).replace("NaN", "null"))
    assert doc["item_ids"] == [f"{r['question_id']}-{r['answer_index']}" for r in rows]
    assert doc["n_items"] == len(rows) and doc["n_missing"] == 0
    assert doc["dataset"] | {"content_hash": None} == {
        "name": "cam_answers",
        "config": "silver",
        "split": "train",
        "version": "2.0.0",
        "content_hash": None,
        "source": "argbench",
    }
    assert doc["dataset"]["content_hash"].startswith("sha256:")
    assert doc["signature"] == expected["signature"] and doc["format"] == "argbench-results/1"
    assert doc["argbench_version"] == argbench.__version__ and doc["created"].endswith("+00:00")


def test_one_answer_per_question_joins_by_question_id(cam):
    where, rows = cam
    mine = answers(rows, "question")
    doc = argbench.evaluate_predictions(
        "argument_relevance", mine, "cam_answers", "silver", **where
    )
    first = [r for r in rows if r["answer_index"] == 0]
    expected = argument_relevance(
        [r["answer"] for r in first], [r["argument_relevance"] for r in first]
    )
    assert doc["item_ids"] == [str(r["question_id"]) for r in first]
    assert doc["result"]["per_item"] == expected["per_item"]
    keyed = {str(r["question_id"]): {"answer": r["answer"]} for r in mine}  # keyed by id
    again = argbench.evaluate_predictions(
        "argument_relevance", keyed, "cam_answers", "silver", **where
    )
    assert again["result"] == doc["result"]


def test_missing_unknown_and_duplicate_ids_are_errors_that_list_them(cam):
    where, rows = cam
    mine = answers(rows)
    run = lambda records, **kw: argbench.evaluate_predictions(  # noqa: E731
        "argument_relevance", records, "cam_answers", "silver", **where, **kw
    )
    with pytest.raises(
        ValueError,
        match=r"2 of the split's 9 items have no prediction: 'silver-0-0', 'silver-0-1'; allow_missing=True scores",
    ):
        run(mine[2:])
    partial = run(mine[2:], allow_missing=True)
    assert partial["n_missing"] == 2 and partial["missing_ids"] == ["silver-0-0", "silver-0-1"]
    assert partial["n_items"] == 7 and len(partial["result"]["per_item"]["f1"]) == 7
    with pytest.raises(ValueError, match=r"1 prediction ids are not in the split: '7-0'"):
        run([*mine, {"question_id": 7, "answer_index": 0, "answer": "x"}], allow_missing=True)
    with pytest.raises(
        ValueError, match=r"1 ids occur more than once in the predictions: 'silver-1-2'"
    ):
        run([*mine, mine[5]])
    with pytest.raises(ValueError, match="record 0: no id field 'question_id'"):
        run([{"answer": "x"}])
    with pytest.raises(
        ValueError, match=r"record 1: no field 'answer' \(has \['question_id', 'answer_index'\]\)"
    ):
        run([mine[0], {"question_id": "silver-0", "answer_index": 1}], allow_missing=True)
    with pytest.raises(
        ValueError, match="prediction 'silver-0-0', field 'answer': expected a string, got a list"
    ):
        run([{**mine[0], "answer": ["a", "b"]}], allow_missing=True)
    with pytest.raises(ValueError, match="id field 'question_id' must be a string or an integer"):
        run([{**mine[0], "question_id": None}], allow_missing=True)


def test_claimdiff_rationales_join_by_pair_id(fixture_mirror, cache_dir):
    where = {"sources": str(fixture_mirror("claimdiff")), "cache_dir": cache_dir}
    test = argbench.load_dataset("claimdiff", "S", "test", **where)
    mine = [{"pair_id": r["pair_id"], "predicted_rationales": r["rationales"][:1]} for r in test]
    doc = argbench.evaluate_predictions("rationale_f1", mine, "claimdiff", "S", "test", **where)
    expected = rationale_f1(
        [r["rationales"][:1] for r in test], test["rationales"], test["claim_a"]
    )
    assert doc["result"]["token_f1"] == expected["token_f1"]
    assert doc["item_ids"] == test["pair_id"] and "spans:positions" in doc["signature"]


def test_cq_submission_json_and_jsonl_on_the_split(tmp_path, minilm, fixture_mirror, cache_dir):
    where = {"sources": str(fixture_mirror("cqs_gen")), "cache_dir": cache_dir}
    submission = {
        "TRUMP_1": {"cqs": [{"id": 0, "cq": "Is the source reliable?"}, {"id": 1, "cq": "Why?"}]},
        "rrd_7": {"intervention_id": "rrd_7", "cqs": "Missing CQs"},
    }
    options = {"options": {"model": minilm}, **where}
    doc = argbench.evaluate_predictions(
        "cq_reference_match",
        write(tmp_path / "s.json", submission),
        "cqs_gen",
        split="validation",
        **options,
    )
    expected = cq_reference_match(**read_submission(submission, str(VALIDATION)), model=minilm)
    assert doc["result"]["per_item"]["score"] == expected["per_item"]["score"]
    assert doc["result"]["signature"] == expected["signature"] and doc["system"] == "s"
    assert doc["item_ids"] == ["TRUMP_1", "rrd_7"] and doc["result"]["n_missing_cqs"] == 1
    lines = [{"intervention_id": k, **v} for k, v in submission.items()]
    jsonl = argbench.evaluate_predictions(
        "cq_reference_match",
        write(tmp_path / "s.jsonl", lines),
        "cqs_gen",
        split="validation",
        **options,
    )
    assert jsonl["result"] == doc["result"]


def test_built_folder_is_the_same_split(tmp_path, fixture_mirror, cache_dir):
    """A folder written by argbench build (the Hub layout) reads as the named dataset: same
    rows, name, version and content hash. A Hub id takes the same datasets.load_dataset path."""
    where = {"sources": str(fixture_mirror("cqs_gen")), "cache_dir": cache_dir}
    folder = argbench.build("cqs_gen", tmp_path / "build", **where)
    by_name = load_split("cqs_gen", "interventions", "validation", **where)
    by_folder = load_split(str(folder), "interventions", "validation", cache_dir=cache_dir)
    assert by_folder.identity() | {"source": None} == by_name.identity() | {"source": None}
    assert by_folder.identity()["source"] == f"folder:{folder.resolve()}"
    questions = by_folder.data.to_list()
    changed = by_folder.data.map(
        lambda row, i: {"intervention": row["intervention"] + ("!" if i == 1 else "")},
        with_indices=True,
    )
    assert content_hash(changed) != content_hash(by_folder.data)
    assert len(questions) == 2


def test_unknown_dataset_and_split_choice(cam):
    where, _ = cam
    from argbench.results import DatasetChoiceError

    with pytest.raises(DatasetChoiceError, match="unknown dataset 'nope'"):
        load_split("nope")
    with pytest.raises(DatasetChoiceError, match="no split 'dev'"):
        load_split("cam_answers", "silver", "dev", **where)


# ---- the command line: evaluate --out / --ci, compare ----


def evaluate(capsys, cam_where, tmp_path, name, records, *extra):
    path = write(tmp_path / f"{name}.jsonl", records)
    out = tmp_path / f"{name}.results.json"
    code, stdout, err = cli(
        capsys,
        "evaluate",
        "argument_relevance",
        path,
        "--dataset",
        "cam_answers",
        "--config",
        "silver",
        "--sources",
        cam_where["sources"],
        "--cache-dir",
        cam_where["cache_dir"],
        "--out",
        str(out),
        *extra,
    )
    assert code == 0, err
    return str(out), stdout


def test_evaluate_writes_a_results_file_and_prints_the_signature(cam, tmp_path, capsys):
    where, rows = cam
    out, stdout = evaluate(
        capsys, where, tmp_path, "mine", answers(rows), "--ci", "--resamples", "500"
    )
    lines = stdout.splitlines()
    assert lines[0].startswith("argument_relevance of ") and lines[0].endswith(": 9 items")
    assert (
        lines[1]
        == f"signature: argument_relevance|parser:strict|relevant:>=2|v:{argbench.__version__}"
    )
    assert "ci.f1.low" in stdout and "per_item.f1" in stdout and "0.666667" not in lines[1]
    doc = read_results(out)
    assert doc["system"] == "mine" and doc["command"].startswith(
        "argbench evaluate argument_relevance "
    )
    assert "--out" in doc["command"] and doc["result"]["ci"]["f1"]["low"] <= doc["result"]["f1"]
    assert "500 resamples" in doc["result"]["ci_method"]


def test_compare_two_systems_text_json_and_plot(cam, tmp_path, capsys):
    where, rows = cam
    same, _ = evaluate(capsys, where, tmp_path, "authors", answers(rows))
    uncited, _ = evaluate(
        capsys, where, tmp_path, "uncited", answers(rows, change=lambda t: t.split("[")[0])
    )
    plot = tmp_path / "scores.png"
    code, out, err = cli(
        capsys, "compare", same, uncited, "--resamples", "2000", "--plot", str(plot)
    )
    assert code == 0, err
    assert out.splitlines()[0].startswith(
        "argument_relevance f1 on cam_answers/silver/train (version 2.0.0, sha256:"
    )
    assert "authors - uncited" in out and "FORCED" not in out and plot.stat().st_size > 1000
    code, out, _ = cli(capsys, "compare", same, uncited, "--json", "--resamples", "2000")
    result = json.loads(out)
    direct = compare_results([same, uncited], resamples=2000)
    assert result == json.loads(json.dumps(direct))
    (pair,) = result["pairs"]
    assert pair["a"] == "authors" and pair["difference"] > 0 and pair["low"] > 0


def test_compare_refuses_other_settings_and_names_the_field(cam, tmp_path, capsys):
    where, rows = cam
    mine, _ = evaluate(capsys, where, tmp_path, "a", answers(rows))
    strict, _ = evaluate(
        capsys, where, tmp_path, "b", answers(rows), "--option", "relevance_threshold=3"
    )
    code, _, err = cli(capsys, "compare", mine, strict)
    assert code == 2 and "results differ in relevant (>=2 in" in err and ">=3 in" in err
    assert "--force" in err
    code, out, _ = cli(capsys, "compare", mine, strict, "--force", "--resamples", "100")
    assert code == 0 and "FORCED (--force): relevant (>=2" in out
    partial, _ = evaluate(capsys, where, tmp_path, "c", answers(rows)[3:], "--allow-missing")
    code, _, err = cli(capsys, "compare", mine, partial)
    assert code == 2 and "score different items (9 in" in err and "6 in common" in err
    code, out, _ = cli(capsys, "compare", mine, partial, "--force", "--resamples", "100")
    assert code == 0 and "only the 6 common items" in out and ", 6 items" in out.splitlines()[0]


def test_compare_refuses_another_dataset_version(cam, tmp_path, capsys):
    where, rows = cam
    mine, _ = evaluate(capsys, where, tmp_path, "a", answers(rows))
    doc = read_results(mine)
    doc["dataset"]["version"] = "3.0.0"
    doc["signature"] = Signature.parse(doc["signature"]).render()
    # written by argbench (a results file of that version), not edited by hand (refused)
    other = str(write_results({**doc, "system": "other"}, tmp_path / "other.json"))
    code, _, err = cli(capsys, "compare", mine, other)
    assert code == 2 and "dataset version (2.0.0 in" in err
    code, _, err = cli(capsys, "compare", mine)
    assert code == 2 and "two or more" in err
    again = str(write_results({**read_results(mine), "system": "again"}, tmp_path / "again.json"))
    code, _, err = cli(capsys, "compare", mine, again, "--key", "n_answers")
    assert code == 2 and "no per-item n_answers" in err
    not_results = write(tmp_path / "x.json", {"f1": 1})
    code, _, err = cli(capsys, "compare", mine, not_results)
    assert code == 2 and "not an argbench results file" in err


def test_corpus_level_metrics_have_nothing_to_resample(tmp_path, capsys):
    path = write(tmp_path / "q.jsonl", [{"cq": "Is it true?"}, {"cq": "Who says so?"}])
    code, _, err = cli(capsys, "evaluate", "cr_diversity", path, "--ci")
    assert code == 2 and "no per-item scores to resample" in err
