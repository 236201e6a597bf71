"""Hostile pass over what leaves argbench as a figure (issue 27, the results part).

Each case is tried as a hostile user would and comes with a control that succeeds:
- a leaderboard value is a complete run on the benchmark's protocol (eval-results refuses
  partial, incomplete and off-protocol results; every task of eval.yaml can give an entry);
- results files are checked, not trusted (edited values, types, ranges, headlines, digests);
- no run erases another (eval-results --out adds to the entries list);
- contracts hold (each refusal of the exit-code table exits as it says; docs/errors.md is
  what the code renders; the max_questions=all note says what was scored).
"""

from __future__ import annotations

import errno
import json
import os
import re
from pathlib import Path

import pytest
import yaml

import argbench
from argbench.cli.exits import REFUSALS, markdown
from argbench.hub_eval import NotALeaderboardValue, eval_results_entry, read_entry
from argbench.results import (
    PRIMARY,
    ResultsFileError,
    build_document,
    compare_results,
    evaluate_predictions,
    headline_figure,
    per_item,
    read_results,
    write_results,
)
from argbench.scoring import declared_metrics, ranked_metrics
from argbench.scoring.argument_relevance import argument_relevance
from argbench.tasks import hub_tasks, tasks

from .helpers import cli
from .openai_stub import StubServer
from .test_hostile import judgments
from .test_hub_protocol import CQ, publish

ROOT = Path(__file__).parents[1]
HUB_SILVER = {  # the identity of cam_answers silver/train as a Hub dataset at a commit
    "name": "org/cam-answers",
    "config": "silver",
    "split": "train",
    "version": "2.0.0",
    "content_hash": "sha256:" + "0" * 64,
    "source": "hub:org/cam-answers",
    "revision": "v2.0.0",
    "commit": "c0ffee" * 6 + "c0ff",
}


def relevance_doc(n=6, *, threshold=2, missing=(), system="mine", **extra) -> dict:
    """A real argument_relevance result (half the answers cite a relevant argument) as a
    results document of cam_answers silver/train on the Hub."""
    answers = [f"Answer {i} [{1 + i % 2}]." for i in range(n)]
    labels = [[3, 0] for _ in range(n)]
    result = argument_relevance(answers, labels, relevance_threshold=threshold)
    result.update(extra)
    ids = [f"silver-{i}-0" for i in range(n)]
    return build_document(
        "argument_relevance", result, HUB_SILVER, ids, missing=missing, system=system
    )


def edited(path: Path, change) -> Path:
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))
    return path


# ---- 1. results files are checked, not trusted ----


def _set_item(key, value):
    return lambda doc: doc["result"]["per_item"][key].__setitem__(0, value)


EDITS = {  # edit -> what the refusal names
    "per-item string": (_set_item("f1", "0.5"), r"per_item 'f1' of item 'silver-0-0' is '0.5', not a number"),
    "per-item true": (_set_item("f1", True), r"per_item 'f1' of item 'silver-0-0' is True, not a number"),
    "per-item 1e300": (_set_item("f1", 1e300), r"per_item 'f1' .* not a finite number in \[0, 1\]"),
    "per-item 7.5": (_set_item("precision", 7.5), r"per_item 'precision' .* in \[0, 1\]"),
    "headline 0.99": (lambda d: d["result"].__setitem__("f1", 0.99), r"result 'f1' is 0.99 but its 6 per-item values give 0.5"),
    "headline true": (lambda d: d["result"].__setitem__("f1", True), r"result 'f1' is True, not a number"),
    "headline 7.5": (lambda d: d["result"].__setitem__("f1", 7.5), r"result 'f1' is 7.5, not a finite number in \[0, 1\]"),
    "short list": (lambda d: d["result"]["per_item"]["f1"].pop(), r"per_item 'f1' holds 5 values for 6 item_ids"),
    "n_items": (lambda d: d.__setitem__("n_items", 600), r"'n_items' is 600 but the file lists 6 ids"),
    "ids repeat": (lambda d: d["item_ids"].__setitem__(1, "silver-0-0"), r"'item_ids' repeat an id"),
    "system renamed": (lambda d: d.__setitem__("system", "someone else"), r"does not match its digest"),
    "signature of another metric": (lambda d: d.__setitem__("signature", "rationale_f1|v:1"), r"is not one of 'argument_relevance'"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(EDITS))
def test_an_edited_results_file_is_refused_naming_file_and_field(case, tmp_path, capsys):
    change, message = EDITS[case]
    good = write_results(relevance_doc(), tmp_path / "good.json")
    other = write_results(relevance_doc(system="other"), tmp_path / "other.json")
    # control: the file as written reads back, compares and becomes an entry
    assert read_results(good)["result"]["f1"] == pytest.approx(0.5)
    code, out, _ = cli(capsys, "compare", good, other)
    assert code == 0 and "argument_relevance f1" in out
    code, out, _ = cli(capsys, "eval-results", good)
    assert code == 0 and "value: 0.5" in out
    bad = tmp_path / "bad.json"
    bad.write_bytes(good.read_bytes())
    edited(bad, change)
    with pytest.raises(ResultsFileError, match=message) as caught:
        read_results(bad)
    assert str(bad) in str(caught.value)
    for argv in (("compare", good, bad), ("eval-results", bad)):
        code, out, err = cli(capsys, *argv)
        assert code == 2 and str(bad) in err and not out, err


def test_a_figure_that_does_not_decompose_is_held_by_its_digest(
    tmp_path, fixture_mirror, cache_dir
):
    mirror = fixture_mirror("claimdiff")
    split = argbench.load_dataset("claimdiff", "S", "test", sources=mirror, cache_dir=cache_dir)
    scores = [{"pair_id": r["pair_id"], "score": 0.2 + 0.6 * r["label"]} for r in split]
    scores[0]["score"] = 1 - scores[0]["score"]  # not perfect: AUROC below 1
    doc = evaluate_predictions(
        "claim_relation", scores, "claimdiff", "S", "test", options={"threshold": 0.5},
        sources=mirror, cache_dir=cache_dir,
    )  # fmt: skip
    path = write_results(doc, tmp_path / "relation.json")
    assert read_results(path)["result"]["auroc"] == doc["result"]["auroc"]  # control
    edited(path, lambda d: d["result"].__setitem__("auroc", 0.99))
    with pytest.raises(ResultsFileError, match="does not match its digest"):
        read_results(path)
    edited(path, lambda d: d.pop("digest"))
    with pytest.raises(ResultsFileError, match=r"no digest: a claim_relation figure cannot be"):
        read_results(path)


def test_a_partial_run_cannot_be_laundered_by_dropping_its_missing_ids(tmp_path, capsys):
    """Editing out missing_ids keeps the per-item values consistent; the digest (required of
    every file) is what refuses it."""
    path = write_results(relevance_doc(missing=["silver-9-0"]), tmp_path / "partial.json")
    assert headline_figure(read_results(path))["partial"]  # control: read, and said partial

    def launder(doc):
        doc.update(missing_ids=[], n_missing=0)
        doc.pop("digest")

    edited(path, launder)
    with pytest.raises(ResultsFileError, match="no digest: argbench writes one with every"):
        read_results(path)
    code, out, err = cli(capsys, "eval-results", path)
    assert code == 2 and "no digest" in err and not out


def test_in_memory_documents_are_checked_by_compare_too():
    good = relevance_doc()
    assert compare_results([good, relevance_doc(system="other")], resamples=100)["key"] == "f1"
    bad = relevance_doc(system="bad")
    bad["result"]["per_item"]["f1"][0] = "0.5"
    with pytest.raises(ResultsFileError, match=r"bad: per_item 'f1' of item 'silver-0-0'"):
        compare_results([good, bad], resamples=100)


def test_one_builder_refuses_what_read_results_would_refuse(tmp_path):
    result = argument_relevance(["A [1]."], [[3, 0]])
    with pytest.raises(ValueError, match="needs the id of every scored item"):
        build_document("argument_relevance", result, HUB_SILVER, None)
    with pytest.raises(ValueError, match="per_item 'precision' has 1 values for 2 item ids"):
        build_document("argument_relevance", result, HUB_SILVER, ["a", "b"])
    doc = build_document("argument_relevance", result, HUB_SILVER, ["a"])  # control
    doc["result"]["f1"] = 0.25  # does not follow from its per-item values: never written
    with pytest.raises(ResultsFileError, match="result 'f1' is 0.25"):
        write_results(doc, tmp_path / "r.json")
    assert not (tmp_path / "r.json").exists()


def test_evaluate_dataset_out_writes_ids_that_read_back(tmp_path, capsys, fixture_mirror):
    """The CLI's own path (records of a split, no predictions file) builds through the one
    builder: item ids, never null, and the file reads back."""
    mirror = fixture_mirror("cam_answers")
    out = tmp_path / "silver.json"
    code, _, err = cli(
        capsys, "evaluate", "argument_relevance", "--dataset", "cam_answers", "--config",
        "silver", "--sources", mirror, "--cache-dir", tmp_path / "c", "--out", out,
    )  # fmt: skip
    assert code == 0, err
    doc = read_results(out)
    assert doc["item_ids"] and doc["n_items"] == len(doc["item_ids"])
    assert headline_figure(doc)["value"] == doc["result"]["f1"] and headline_figure(doc)["complete"]
    ids, values = per_item(doc)
    assert ids == doc["item_ids"] and values == doc["result"]["per_item"]["f1"]


# ---- 2. a leaderboard value is a complete run on the benchmark's protocol ----


def test_eval_results_refuses_partial_incomplete_and_off_protocol(tmp_path, capsys):
    control = write_results(relevance_doc(), tmp_path / "control.json")
    code, out, err = cli(capsys, "eval-results", control)
    assert code == 0, err
    (entry,) = yaml.safe_load(out)
    assert entry["value"] == 0.5 and read_entry(entry)["off_protocol"] == []
    assert entry["dataset"]["task_id"] == "argument_relevance"
    cases = {
        "partial": (relevance_doc(missing=["silver-9-0"]), "partial results: 1 of the split's 7"),
        "incomplete": (
            relevance_doc(complete=False, n_failed=2),
            r"incomplete results \(complete: false, 2 failed",
        ),
        "off-protocol": (relevance_doc(threshold=3), r"relevant:>=3 \(protocol: relevant:>=2\)"),
    }
    for name, (doc, why) in cases.items():
        path = write_results(doc, tmp_path / f"{name}.json")
        code, out, err = cli(capsys, "eval-results", path)
        assert code == 2 and not out, (name, err)
        assert re.search(why, err), (name, err)
    # the opt-in writes an off-protocol value only with notes that say so
    code, out, err = cli(capsys, "eval-results", tmp_path / "off-protocol.json", "--off-protocol")
    (entry,) = yaml.safe_load(out)
    assert code == 0 and read_entry(entry)["off_protocol"] == ["relevant:>=3 (protocol: relevant:>=2)"]  # fmt: skip
    assert entry["notes"].startswith("OFF-PROTOCOL: relevant:>=3 (protocol: relevant:>=2)\nargbench argument_relevance|")  # fmt: skip
    for name in ("partial", "incomplete"):  # no opt-in makes a partial run a task's value
        code, _, _ = cli(capsys, "eval-results", tmp_path / f"{name}.json", "--off-protocol")
        assert code == 2


def test_every_task_of_eval_yaml_can_give_an_entry_and_nothing_else_can(
    tmp_path, fixture_mirror, cache_dir, minilm
):
    """Each task, scored with the metric's default settings on its split, keeps its protocol
    and becomes an entry (claim_relation_S/_W included); the same metric on another split
    does not."""
    corpora = sorted({t.corpus for t in tasks().values() if t.hub})
    sources = {}
    for dataset in corpora:
        sources[dataset] = fixture_mirror(dataset)
    predictions = {
        "cq_reference_match": lambda r: {"intervention_id": r["intervention_id"], "cqs": [q["cq"] for q in r["references"][:3]]},
        "argument_relevance": lambda r: {"question_id": r["question_id"], "answer_index": r["answer_index"], "answer": r["answer"]},
        "argument_overlap": lambda r: {"question_id": r["question_id"], "answer_index": r["answer_index"], "answer": r["answer"]},
        "claim_relation": lambda r: {"pair_id": r["pair_id"], "score": 0.3 + 0.4 * r["label"]},
        "rationale_f1": lambda r: {"pair_id": r["pair_id"], "predicted_rationales": r["rationales"][:1]},
    }  # fmt: skip
    options = {"claim_relation": {"threshold": 0.5}, "cq_reference_match": {"model": minilm}}
    seen = set()
    for dataset in corpora:
        where = {"sources": sources[dataset], "cache_dir": cache_dir}
        for task in hub_tasks(dataset):
            rows = argbench.load_dataset(dataset, task.config, task.split, **where)
            doc = evaluate_predictions(
                task.metric, [predictions[task.metric](r) for r in rows], dataset,
                task.config, task.split, options=options.get(task.metric), **where,
            )  # fmt: skip
            doc["dataset"].update(source=f"hub:org/{dataset}", commit="abc123")
            doc = read_results(write_results(doc, tmp_path / f"{task.id}.json"))
            name, entry = eval_results_entry(doc)
            key = ranked_metrics()[task.metric].value
            assert name == f"{task.id}.yaml" and entry["value"] == doc["result"][key], task.id
            seen.add(task.id)
            doc["dataset"]["split"] = "elsewhere"  # the same figure on no task's split
            with pytest.raises(NotALeaderboardValue, match="is no benchmark task"):
                eval_results_entry(doc)
    assert {"claim_relation_S", "claim_relation_W"} <= seen


def test_eval_results_needs_a_hub_dataset(tmp_path, capsys):
    doc = relevance_doc()
    doc["dataset"] = {**HUB_SILVER, "source": "argbench"}
    del doc["dataset"]["commit"]
    path = write_results(doc, tmp_path / "local.json")
    code, _, err = cli(capsys, "eval-results", path)
    assert code == 2 and "not computed on a Hub dataset" in err


# ---- 3. no run erases another ----


def test_eval_results_out_adds_to_the_list_and_replaces_only_the_same_slot(tmp_path, capsys):
    out = tmp_path / ".eval_results"
    target = out / "argument_relevance.yaml"
    mine = write_results(relevance_doc(system="mine"), tmp_path / "mine.json")
    theirs = write_results(relevance_doc(n=4, system="theirs"), tmp_path / "theirs.json")
    code, _, err = cli(capsys, "eval-results", mine, "--out", out)
    assert code == 0, err
    code, stdout, _ = cli(capsys, "eval-results", theirs, "--out", out)
    assert code == 0 and stdout.startswith("added to")
    entries = yaml.safe_load(target.read_text())
    assert [e["source"]["name"] for e in entries] == ["mine", "theirs"]  # the first run is kept
    again = write_results(relevance_doc(n=8, system="mine"), tmp_path / "again.json")
    code, stdout, _ = cli(capsys, "eval-results", again, "--out", out)
    assert code == 0 and stdout.startswith("replaced the entry")
    entries = yaml.safe_load(target.read_text())
    assert [e["source"]["name"] for e in entries] == ["theirs", "mine"] and len(entries) == 2
    other = dict(HUB_SILVER, commit="f" * 40)  # another revision of the dataset: its own slot
    doc = relevance_doc(system="mine")
    doc["dataset"] = other
    code, _, _ = cli(
        capsys, "eval-results", write_results(doc, tmp_path / "rev.json"), "--out", out
    )
    assert code == 0 and len(yaml.safe_load(target.read_text())) == 3
    # a file that is not a list of entries is refused, never overwritten
    target.write_text("just: a mapping\n")
    code, _, err = cli(capsys, "eval-results", mine, "--out", out)
    assert code == 2 and "not a list of eval-results entries" in err
    assert target.read_text() == "just: a mapping\n"


def test_eval_results_out_problems_surface_before_the_results_are_read(tmp_path, capsys):
    (tmp_path / "a_file").write_text("")
    code, _, err = cli(
        capsys, "eval-results", tmp_path / "not-there.json", "--out", tmp_path / "a_file" / "x"
    )
    assert code == 2 and "a part of that path is a file" in err and "not-there" not in err
    code, _, err = cli(capsys, "eval-results", tmp_path / "not-there.json")  # control: the read
    assert code == 2 and "not-there.json does not exist" in err


# ---- 4. the whole route through a (stub) Hub and a real LLM-judge HTTP server ----


@pytest.mark.real_server
def test_partial_incomplete_and_off_protocol_cqs_gen_runs_never_reach_the_leaderboard(
    hub,
    tmp_path,
    fixture_mirror,
    cache_dir,
    minilm,
):
    server = hub
    mirror = fixture_mirror("cqs_gen")
    plan = publish("cqs_gen", "org/cqs-gen", sources=mirror, cache_dir=cache_dir, api=server.api())
    rows = argbench.load_dataset(
        "cqs_gen", "interventions", split="validation", sources=mirror, cache_dir=cache_dir
    )
    records = [
        {
            "intervention_id": r["intervention_id"],
            "cqs": ([q["cq"] for q in r["references"]] * 5)[:5],
        }
        for r in rows
    ]
    full, half = tmp_path / "full.json", tmp_path / "half.json"
    full.write_text(json.dumps(records))
    half.write_text(json.dumps(records[:1]))
    dataset = ["--dataset", f"org/cqs-gen@v{CQ}", "--config", "interventions", "--split", "validation"]  # fmt: skip

    def evaluate(source, out, *extra):
        done = server.cli("evaluate", "cq_reference_match", source, *dataset, "--model", minilm, "--out", out, *extra)  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done

    entries = tmp_path / ".eval_results"
    evaluate(full, tmp_path / "full.results.json")
    done = server.cli("eval-results", tmp_path / "full.results.json", "--out", entries)
    assert done.returncode == 0, done.stderr  # control
    (entry,) = yaml.safe_load((entries / "cq_reference_match_validation.yaml").read_text())
    assert entry["dataset"]["revision"] == plan["commit"] and "OFF-PROTOCOL" not in entry["notes"]
    evaluate(half, tmp_path / "half.results.json", "--allow-missing")
    every = evaluate(full, tmp_path / "all.results.json", "--option", "max_questions=all", "--system", "all")  # fmt: skip
    assert "every question was labelled" in every.stderr and "only the first" not in every.stderr
    assert "Useful / max(3, n): every question scored" in every.stdout  # not the card's /3
    low = evaluate(full, tmp_path / "low.results.json", "--threshold", "0.1", "--system", "low")
    assert "only the first 3 of each were scored" in low.stderr
    for name, why in (
        ("half", "partial results: 1 of the split's 2 items were not scored"),
        ("all", "max_q:all (protocol: max_q:3)"),
        ("low", "thr:>0.1 (protocol: thr:>0.65 or absent)"),
    ):
        done = server.cli("eval-results", tmp_path / f"{name}.results.json", "--out", entries)
        assert done.returncode == 2 and why in done.stderr, done.stderr
    done = server.cli("eval-results", tmp_path / "all.results.json", "--out", entries, "--off-protocol")  # fmt: skip
    assert done.returncode == 0, done.stderr
    kept = yaml.safe_load((entries / "cq_reference_match_validation.yaml").read_text())
    assert [read_entry(e)["off_protocol"] for e in kept] == [[], ["max_q:all (protocol: max_q:3)"]]


def test_an_incomplete_llm_run_is_no_leaderboard_value(tmp_path, capsys, monkeypatch):
    """A real HTTP judge that fails one judgment: --allow-incomplete scores the rest (exit 0,
    complete: false); eval-results refuses the file; a run where every judgment came back
    is an entry (control)."""
    refs = json.loads((ROOT / "tests" / "fixtures" / "cqs_gen" / "validation.json").read_text())
    submission = {
        key: {"cqs": [{"id": j, "cq": q["cq"]} for j, q in enumerate(item["cqs"][:3])]}
        for key, item in refs.items()
    }
    (tmp_path / "sub.json").write_text(json.dumps(submission))
    first_question = next(iter(submission.values()))["cqs"][0]["cq"]

    def judge(request, number):  # the first question's judgment never parses
        prompt = request["messages"][-1]["content"]
        return 200, ("banana" if f"\n{first_question}\n" in prompt else "0"), 0, None

    with StubServer(judge) as server:
        monkeypatch.setenv("ARGBENCH_LLM_MODEL", "stub-model")
        monkeypatch.setenv("ARGBENCH_LLM_BASE_URL", server.base_url)
        monkeypatch.setenv("ARGBENCH_LLM_API_KEY", "x")
        from argbench.scoring.cq_reference_match import cq_reference_match, read_submission

        inputs = read_submission(submission, refs)
        result = cq_reference_match(**inputs, matcher="llm", on_failure="incomplete")
    assert result["complete"] is False and result["n_failed"] >= 1
    ids = inputs["intervention_ids"]
    identity = {**HUB_SILVER, "config": "interventions", "split": "validation", "name": "org/cqs-gen", "source": "hub:org/cqs-gen"}  # fmt: skip
    doc = build_document("cq_reference_match", result, identity, ids)
    path = write_results(doc, tmp_path / "incomplete.json")
    code, _, err = cli(capsys, "eval-results", path)
    assert code == 2 and "incomplete results (complete: false" in err
    whole = {**result, "complete": True, "n_failed": 0, "failed": []}
    whole["per_item"] = {"score": [0.0 if s is None else s for s in result["per_item"]["score"]]}
    whole["score"] = sum(whole["per_item"]["score"]) / len(ids)
    path = write_results(
        build_document("cq_reference_match", whole, identity, ids), tmp_path / "w.json"
    )
    code, out, err = cli(capsys, "eval-results", path)
    assert code == 0, err


# ---- 5. contracts: every refusal exits as the table says; the docs are the code's ----


def _evaluate_records(tmp_path, records) -> Path:
    path = tmp_path / "records.json"
    path.write_text(json.dumps(records))
    return path


def _stub_llm(monkeypatch, server) -> None:
    monkeypatch.setenv("ARGBENCH_LLM_MODEL", "stub-model")
    monkeypatch.setenv("ARGBENCH_LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("ARGBENCH_LLM_API_KEY", "x")


def _scenario(case: tuple[str, str], tmp_path, capsys, monkeypatch, request) -> int:
    """Make refusal ``case`` happen; returns the exit status."""
    relation = [{"score": 0.9, "label": 1}, {"score": 0.1, "label": 0}]

    def run(*argv):
        try:
            return cli(capsys, *argv)[0]
        except SystemExit as stop:  # argparse's own usage errors
            capsys.readouterr()
            return stop.code

    match case:
        case ("*", "usage"):
            return run("evaluate", "claim_relation", "x.json", "--treshold", "1")
        case ("*", "disk-full"):

            def full(*args):
                raise OSError(errno.ENOSPC, "No space left on device")

            monkeypatch.setattr("argbench.io.os.replace", full)
            return run(
                "pairwise", "fit", judgments(tmp_path / "j.csv"), "--out", tmp_path / "s.csv"
            )
        case ("*", "interrupted"):

            def interrupt(args):
                raise KeyboardInterrupt

            monkeypatch.setattr("argbench.cli.datasets._cmd_list", interrupt)
            return run("list")
        case ("evaluate", "option"):
            return run(
                "evaluate",
                "claim_relation",
                _evaluate_records(tmp_path, relation),
                "--option",
                "nope=1",
            )
        case ("evaluate", "record"):
            return run(
                "evaluate",
                "claim_relation",
                _evaluate_records(tmp_path, [{"score": "x", "label": 1}]),
                "--threshold",
                "0.5",
            )
        case ("evaluate", "ids" | "out"):
            mirror = request.getfixturevalue("fixture_mirror")("cam_answers")
            silver = ["--dataset", "cam_answers", "--config", "silver", "--sources", mirror]
            if case[1] == "out":  # checked before the split is built
                return run("evaluate", "argument_relevance", *silver, "--out", tmp_path / "r.txt")
            one = [{"question_id": "silver-0", "answer_index": 0, "answer": "A."}]
            path = _evaluate_records(tmp_path, one)  # the other answers have no prediction
            return run(
                "evaluate", "argument_relevance", path, *silver, "--cache-dir", tmp_path / "c"
            )
        case ("evaluate", "judgments"):
            refs = ROOT / "tests" / "fixtures" / "cqs_gen" / "validation.json"
            items = json.loads(refs.read_text())
            sub = {k: {"cqs": [{"id": 0, "cq": v["cqs"][0]["cq"]}]} for k, v in items.items()}
            with StubServer(lambda request, number: (200, "banana", 0, None)) as server:
                _stub_llm(monkeypatch, server)
                return run(
                    "evaluate",
                    "cq_reference_match",
                    _evaluate_records(tmp_path, sub),
                    "--references",
                    refs,
                    "--matcher",
                    "llm",
                )
        case ("compare" | "eval-results", "edited"):
            path = write_results(relevance_doc(), tmp_path / "a.json")
            edited(path, _set_item("f1", "0.5"))
            return run(*case[:1], path, *([path] if case[0] == "compare" else []))
        case ("leaderboard", "results"):
            good = write_results(relevance_doc(), tmp_path / "a.json")
            assert run("leaderboard", good, "--out", tmp_path / "board0") == 0  # control
            path = write_results(relevance_doc(), tmp_path / "b.json")
            edited(path, _set_item("f1", "0.5"))
            return run("leaderboard", good, path, "--out", tmp_path / "board")
        case ("merge", "fragments"):  # a results file is not a fragment
            whole = write_results(relevance_doc(), tmp_path / "a.json")
            return run("merge", whole, "--out", tmp_path / "m.json")
        case ("evaluate", "shard"):
            return run("evaluate", "argument_relevance", "--shard", "2/2")
        case ("compare", "not-comparable"):
            a = write_results(relevance_doc(), tmp_path / "a.json")
            b = write_results(relevance_doc(threshold=3), tmp_path / "b.json")
            return run("compare", a, b)
        case ("eval-results", "partial"):
            return run(
                "eval-results", write_results(relevance_doc(missing=["x"]), tmp_path / "p.json")
            )
        case ("eval-results", "incomplete"):
            return run(
                "eval-results",
                write_results(relevance_doc(complete=False, n_failed=1), tmp_path / "i.json"),
            )
        case ("eval-results", "off-protocol"):
            return run(
                "eval-results", write_results(relevance_doc(threshold=1), tmp_path / "o.json")
            )
        case ("eval-results", "not-a-task"):
            doc = relevance_doc()
            doc["dataset"]["config"] = "gold"
            return run("eval-results", write_results(doc, tmp_path / "g.json"))
        case ("eval-results", "out"):
            (tmp_path / "f").write_text("")
            return run(
                "eval-results",
                write_results(relevance_doc(), tmp_path / "ok.json"),
                "--out",
                tmp_path / "f" / "x",
            )
        case ("pairwise fit", "judgments"):
            bad = tmp_path / "bad.csv"
            bad.write_text("item_a,item_b,winner\nx,y,a,extra\n")
            return run("pairwise", "fit", bad, "--out", tmp_path / "s.csv")
        case ("pairwise fit", "not-converged"):
            import argbench.scoring.bradley_terry as bt

            real = bt.fit_bradley_terry
            monkeypatch.setattr(bt, "fit_bradley_terry", lambda *a, **k: real(*a, **k, max_iter=1))
            return run(
                "pairwise", "fit", judgments(tmp_path / "j.csv"), "--out", tmp_path / "s.csv"
            )
        case ("build", "dataset"):
            return run("build", "no_such_corpus", "--out", tmp_path / "b")
        case ("build", "offline"):
            (tmp_path / "empty").mkdir()
            return run(
                "build",
                "cqs_gen",
                "--out",
                tmp_path / "b",
                "--sources",
                tmp_path / "empty",
                "--cache-dir",
                tmp_path / "c",
            )
        case ("publish", "credentials"):
            server = request.getfixturevalue("hub")
            argv = ("publish", "--metric", "cr_diversity", "--repo-id", "org/cr_diversity")
            wrong = server.cli(*argv, HF_TOKEN="hf_wrong")
            none = server.cli(*argv, HF_TOKEN="")
            assert "refused the token" in wrong.stderr and "no Hugging Face token" in none.stderr
            assert wrong.returncode == none.returncode, (wrong.stderr, none.stderr)
            return wrong.returncode
        case ("publish", "offline"):
            return run("publish", "--metric", "cr_diversity", "--repo-id", "org/cr_diversity")
        case ("reproduce", "out"):
            (tmp_path / "rep" / "report.md").mkdir(parents=True)
            return run("reproduce", "--out", tmp_path / "rep")
        case ("import-harness", "path"):
            return run("import-harness", tmp_path / "no-such-log", "--out", tmp_path / "o")
    raise AssertionError(f"no scenario for refusal {case}: add one")  # pragma: no cover


# refusals made to happen in their own area's tests, which assert exit_for(command, case)
ELSEWHERE = {
    ("import-harness", "broken"): "tests/test_hostile_harness.py",
    ("import-harness", "out"): "tests/test_hostile_harness.py",
    ("import-harness", "collision"): "tests/test_hostile_harness.py",
    ("import-harness", "degenerate"): "tests/test_hostile_harness.py",
    ("import-harness", "prompt"): "tests/test_hostile_harness.py",
    ("publish", "repo-id"): "tests/test_hostile_publish.py",
    ("publish", "other-corpus"): "tests/test_hostile_publish.py",
    ("publish", "tag"): "tests/test_hostile_publish.py",
    ("submissions", "collision"): "tests/test_submissions.py",
    ("compare", "same-results"): "tests/test_system_identity.py",
    ("export eee", "edited"): "tests/test_eee.py",
}
HERE = [r for r in REFUSALS if (r.command, r.case) not in ELSEWHERE]


def test_every_refusal_of_the_table_is_made_to_happen_by_a_test():
    """A row of the table with no test is a claim nobody checks: each one is either a
    scenario below or asserted with exit_for in the test file ELSEWHERE names."""
    for (command, case), test_file in ELSEWHERE.items():
        text = (ROOT / test_file).read_text(encoding="utf-8")
        called = rf'exit_for\(\s*"{re.escape(command)}",\s*"{re.escape(case)}"\s*\)'
        assert re.search(called, text), f"{test_file} does not assert refusal {command}:{case}"


# the scenarios that start the test Hub (tests/hub_server.py) are in tier real_server
ON_THE_HUB = {("publish", "credentials")}


@pytest.mark.parametrize(
    "refusal",
    [
        pytest.param(r, marks=pytest.mark.real_server) if (r.command, r.case) in ON_THE_HUB else r
        for r in HERE
    ],
    ids=[f"{r.command}:{r.case}" for r in HERE],
)
def test_each_refusal_exits_as_the_table_says(refusal, tmp_path, capsys, monkeypatch, request):
    code = _scenario((refusal.command, refusal.case), tmp_path, capsys, monkeypatch, request)
    assert code == refusal.status, f"{refusal.command} {refusal.case}: exit {code}"


def test_the_control_of_the_table_exits_0(tmp_path, capsys):
    records = _evaluate_records(tmp_path, [{"score": 0.9, "label": 1}, {"score": 0.1, "label": 0}])
    code, out, _ = cli(capsys, "evaluate", "claim_relation", records, "--threshold", "0.5")
    assert code == 0 and "auroc" in out
    assert cli(capsys, "list")[0] == 0


def test_docs_errors_md_is_what_the_code_renders():
    page = (ROOT / "docs" / "errors.md").read_text(encoding="utf-8")
    assert markdown() in page, "run: python -m argbench.cli.exits docs/errors.md"
    for refusal in REFUSALS:
        assert f"| {refusal.what} | `{refusal.status}` |" in page


def test_one_headline_per_metric_declaration():
    """PRIMARY (what compare pairs on) comes from the metrics' declarations; every metric a
    benchmark task scores has a headline a leaderboard can show."""
    headlines = ranked_metrics()
    assert PRIMARY == {m: h.pair for m, h in headlines.items() if h.pair}
    assert PRIMARY["argument_answer_coherence"] == headlines["argument_answer_coherence"].value
    assert headlines["claim_relation"].pair is None  # AUROC: no per-item value to pair on
    assert all(task.metric in headlines for task in hub_tasks())
    assert declared_metrics()["cr_diversity"].headline is None  # a measurement: not ranked


def test_a_library_write_takes_the_output_claim(tmp_path):
    """write_results refuses a path another process is writing, as the command line does."""
    import subprocess
    import sys

    target = tmp_path / "r.json"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import time; from argbench.io import claim_output; "
         f"claim_output({str(target)!r}, suffixes=('.json',)); print('held', flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, text=True, cwd=ROOT, env={**os.environ},
    )  # fmt: skip
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(FileExistsError, match="being written by another"):
            write_results(relevance_doc(), target)
        assert not target.exists()
    finally:
        holder.kill()
        holder.wait()
    write_results(relevance_doc(), target)  # control: free again
    assert read_results(target)["system"] == "mine"


def test_write_results_once_writes_all_or_nothing_and_never_over_another_result(tmp_path):
    """No run erases another, in the library as on the command line: the same result again is
    left as it is (its time and command may differ); another result, an edited file, or a file
    that is not JSON at one of the paths stops the whole write before any file is touched."""
    from argbench.results import write_results_once

    first, second = tmp_path / "a.json", tmp_path / "b.json"
    doc_a, doc_b = relevance_doc(system="a"), relevance_doc(system="b")
    outcome = write_results_once([(first, doc_a), (second, doc_b)])
    assert [written for _, _, written in outcome] == [True, True]
    before = {p: p.read_bytes() for p in (first, second)}
    again = {**relevance_doc(system="a"), "command": "argbench another-command"}
    assert [w for _, _, w in write_results_once([(first, again)])] == [False]

    third = tmp_path / "c.json"
    other = relevance_doc(system="a", threshold=3)  # other settings: another result
    with pytest.raises(FileExistsError, match="a.json exists and holds another result"):
        write_results_once([(third, doc_b), (first, other)])
    assert not third.exists() and {p: p.read_bytes() for p in (first, second)} == before

    second.write_text("not json at all")
    with pytest.raises(FileExistsError, match="nothing was written"):
        write_results_once([(second, doc_b)])
    assert second.read_text() == "not json at all"
