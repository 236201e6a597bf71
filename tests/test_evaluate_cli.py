"""``argbench evaluate``: every metric from JSON/JSONL files and datasets, --json, errors."""

from __future__ import annotations

import json

import pytest

import argbench
from argbench.cli import main
from argbench.loaders.registry import path_of
from argbench.scoring.argument_answer_coherence import argument_answer_coherence
from argbench.scoring.argument_overlap import argument_overlap
from argbench.scoring.argument_relevance import argument_relevance
from argbench.scoring.claim_relation import claim_relation
from argbench.scoring.cq_reference_match import cq_reference_match, read_submission
from argbench.scoring.cr_diversity import cr_diversity
from argbench.scoring.rationale_f1 import rationale_f1

from .conftest import FIXTURES
from .helpers import write
from .openai_stub import StubServer, user_prompt

ARGS = ["Cats are smarter than dogs.", "Dogs are more loyal than cats."]
NUMBERED = [f"{k}. {a}" for k, a in enumerate(ARGS, 1)]
ANSWERS = ["Brains: cats are smarter [1]. Loyalty: dogs [2].", "Dogs win [2, generated]."]
CAM_FILE = [  # the CAM release's layout: numbered arguments, several answers per question
    {"object1": "cat", "object2": "dog", "arguments": NUMBERED, "gpt_answers": ANSWERS},
    {"object1": "tea", "object2": "coffee", "arguments": [], "gpt_answers": ["Tea [generated]."]},
]


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(["evaluate", *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def run_json(capsys, *argv) -> tuple[dict, str]:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out), err


def table(out: str) -> dict[str, str]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("name "))
    # name, value, then the value's meaning from the card (test_metric_modules checks those)
    return {
        name: value
        for name, value, *_ in (line.split(None, 2) for line in lines[start + 1 :])
        if not name.startswith("(")
    }


# ---- every metric through the CLI ----


def test_argument_relevance_jsonl_table_and_json(tmp_path, capsys):
    answer = "A is faster [1, 2]. B is cheaper [generated]."
    path = write(
        tmp_path / "a.jsonl", [{"answer": answer, "argument_relevance": [3, 0, 2], "extra": 1}]
    )
    code, out, _ = run(capsys, "argument_relevance", path)
    assert code == 0
    assert out.splitlines()[0] == f"argument_relevance on {path}: 1 examples"
    rows = table(out)
    assert rows["precision"] == rows["recall"] == rows["f1"] == "0.5"
    assert rows["generated_share"] == "0.5" and rows["n_answers"] == "1"
    result, _ = run_json(capsys, "argument_relevance", path, "--option", "relevance_threshold=3")
    assert result == argument_relevance([answer], [[3, 0, 2]], relevance_threshold=3)


def test_argument_overlap_cam_file_strips_numbers_and_expands_answers(tmp_path, capsys):
    path = write(tmp_path / "silver.json", CAM_FILE)
    result, err = run_json(capsys, "argument_overlap", path, "--column", "predictions=gpt_answers")
    assert "stripped the authors' 'N. ' prefixes from the arguments" in err
    assert "2 record(s) hold a list where a string is expected: 2 records -> 3 examples" in err
    assert result == argument_overlap(ANSWERS + ["Tea [generated]."], [ARGS, ARGS, []])
    # the same answers with arguments already stripped give the same numbers, silently
    plain = [{"answer": a, "arguments": ARGS} for a in ANSWERS]
    again, err = run_json(capsys, "argument_overlap", write(tmp_path / "p.json", plain))
    assert again == argument_overlap(ANSWERS, [ARGS, ARGS]) and "note" not in err


def test_inconsistent_numbering_is_kept_and_said(tmp_path, capsys):
    records = [{"answer": ANSWERS[0], "arguments": ["1. Cats are smarter.", "3. Dogs."]}]
    result, err = run_json(capsys, "argument_overlap", write(tmp_path / "x.json", records))
    assert "arguments kept as they are: example 0 argument 1 is not numbered '2. '" in err
    assert result == argument_overlap([ANSWERS[0]], [records[0]["arguments"]])


def test_argument_answer_coherence_llm_judge_options_as_json(tmp_path, capsys):
    def responder(request, number):  # coherent when the excerpt mentions cats
        return 200, "1" if "cats" in user_prompt(request).rsplit("Second:", 1)[1] else "0", 0, None

    path = write(tmp_path / "cam.json", CAM_FILE)
    with StubServer(responder) as server:
        llm = {"model": "stub", "base_url": server.base_url, "api_key": "x"}
        result, err = run_json(
            capsys,
            "argument_answer_coherence",
            path,
            "--column",
            "predictions=gpt_answers",
            "--option",
            "llm=" + json.dumps(llm),
        )
        expected = argument_answer_coherence(
            ANSWERS + ["Tea [generated]."], [ARGS, ARGS, []], judge="llm", llm=llm
        )
    assert "stripped" in err
    assert result["n_pairs"] == 3 and result["aac"] == pytest.approx(1 / 3)
    assert result == expected


def test_rationale_f1_with_and_without_contexts(tmp_path, capsys):
    record = {
        "claim_a": "Officials saw Stone as the access point to WikiLeaks.",
        "predicted_rationales": ["Stone as the access point"],
        "rationales": ["Stone as the access point to WikiLeaks"],
    }
    result, err = run_json(capsys, "rationale_f1", write(tmp_path / "r.json", [record]))
    assert result["iou_f1"] == 1.0 and round(result["token_f1"], 3) == 0.833 and not err
    # no claim_a: phrases become token sets, and the CLI says contexts are not used
    del record["claim_a"]
    result, err = run_json(capsys, "rationale_f1", write(tmp_path / "r2.json", [record]))
    assert "contexts: the records have no field 'claim_a'; not used" in err
    assert result == rationale_f1([record["predicted_rationales"]], [record["rationales"]])
    # --column contexts= turns them off explicitly
    result, err = run_json(
        capsys, "rationale_f1", write(tmp_path / "r3.json", [record]), "--column", "contexts="
    )
    assert not err


def test_claim_relation_threshold_dev_file_hard_labels_and_plot(tmp_path, capsys):
    scores, labels = [0.9, 0.8, 0.4, 0.3, 0.2], [1, 0, 1, 0, 0]
    test = write(
        tmp_path / "t.jsonl",
        [{"score": s, "label": y} for s, y in zip(scores, labels, strict=True)],
    )
    dev = write(tmp_path / "d.json", [{"score": 0.7, "label": 1}, {"score": 0.1, "label": 0}])
    result, _ = run_json(capsys, "claim_relation", test, "--threshold", "0.35")
    assert result == claim_relation(scores, labels, threshold=0.35)
    png = tmp_path / "pr.png"
    code, out, err = run(capsys, "claim_relation", test, "--dev", dev, "--plot", str(png))
    assert code == 0 and f"precision-recall curve: {png}" in err
    assert table(out)["threshold"] == "0.7" and table(out)["auroc"] == "0.833333"
    assert png.read_bytes().startswith(b"\x89PNG")
    code, out, _ = run(capsys, "claim_relation", test, "--column", "predictions=score")
    assert code == 2  # scores without a threshold: bad input
    code, out, _ = run(capsys, "claim_relation", test, "--column", "predictions=label")
    assert code == 0 and "hard-labels" in out  # 0/1 and no threshold: decisions (evaluator)
    code, out, _ = run(
        capsys, "claim_relation", test, "--column", "predictions=label", "--option",
        "hard_labels=true",
    )  # fmt: skip
    assert code == 0 and table(out)["auroc"] == "undefined" and table(out)["f1"] == "1"
    for argv, message in [
        (["--threshold", "0.5", "--dev", dev], "--threshold or --dev, not both"),
        (["--dev", str(tmp_path / "none.json")], "none.json does not exist"),
    ]:
        code, _, err = run(capsys, "claim_relation", test, *argv)
        assert code in (1, 2) and message in err, (argv, err)
    code, _, err = run(capsys, "cr_diversity", test, "--plot", str(png))
    assert code == 2 and "--dev and --plot go with claim_relation" in err


def test_cr_diversity_bare_strings_and_submission_paths(tmp_path, capsys):
    texts = ["Is the claim true?", "Is the claim true?", "Who says so?"]
    result, _ = run_json(capsys, "cr_diversity", write(tmp_path / "t.json", texts))
    assert result == cr_diversity(texts)
    submission = {
        "A": {"cqs": [{"id": 0, "cq": texts[0]}, {"id": 1, "cq": texts[1]}]},
        "B": {"cqs": [{"id": 0, "cq": texts[2]}]},
    }
    path = write(tmp_path / "sub.json", submission)
    result, err = run_json(capsys, "cr_diversity", path, "--column", "predictions=cqs.cq")
    assert result == cr_diversity(texts) and "2 records -> 3 examples" in err
    result, _ = run_json(
        capsys,
        "cr_diversity",
        path,
        "--column",
        "predictions=cqs.cq",
        "--option",
        "algorithm=xz",
        "--option",
        "num_n=2",
    )
    assert result == cr_diversity(texts, "xz", 2)


def test_annotator_agreement_keyed_rows_with_nulls(tmp_path, capsys):
    rows = {"i1": [0, 0, 1], "i2": [2, 2, 2], "i3": [1, None, 1], "i4": [3, 3, 2]}
    code, out, _ = run(capsys, "annotator_agreement", write(tmp_path / "r.json", rows))
    assert code == 0
    values = table(out)
    assert values["krippendorff_alpha_ordinal"] == "0.864082"
    assert values["fleiss_kappa"] == "0.541667" and values["ratings"] == "11"
    records = [{"ratings": r} for r in rows.values()]
    result, _ = run_json(
        capsys,
        "annotator_agreement",
        write(tmp_path / "r.jsonl", records),
        "--option",
        "categories=[0, 1, 2, 3, 4]",
    )
    expected = argbench.load_metric("annotator_agreement").compute(
        ratings=list(rows.values()), categories=[0, 1, 2, 3, 4]
    )
    assert result == json.loads(json.dumps(expected))


# ---- cq_reference_match: shared-task files, --references-dataset, plain records ----

VALIDATION = FIXTURES / "cqs_gen" / "validation.json"


def _submission(tmp_path) -> tuple[str, dict]:
    refs = json.loads(VALIDATION.read_text())
    submission = {
        "TRUMP_1": {
            "cqs": [
                {"id": 0, "cq": refs["TRUMP_1"]["cqs"][0]["cq"]},
                {"id": 1, "cq": "Is bringing back jobs a good idea at all?"},
                {"id": 2, "cq": "How tall is the Eiffel tower?"},
            ]
        },
        "rrd_7": {"cqs": "Missing CQs"},
    }
    return write(tmp_path / "sub.json", submission), submission


def test_cq_submission_with_reference_file_and_dataset(
    tmp_path, capsys, minilm, fixture_mirror, cache_dir
):
    path, submission = _submission(tmp_path)
    result, _ = run_json(
        capsys,
        "cq_reference_match",
        path,
        "--references",
        str(VALIDATION),
        "--model",
        minilm,
        "--threshold",
        "0.6",
    )
    expected = cq_reference_match(
        **read_submission(submission, str(VALIDATION)), model=minilm, threshold=0.6
    )
    assert result == json.loads(json.dumps(expected))
    assert result["labels"][0][0] == "Useful" and result["n_missing_cqs"] == 1
    mirror = fixture_mirror("cqs_gen")
    from_dataset, _ = run_json(
        capsys,
        "cq_reference_match",
        path,
        "--references-dataset",
        "--sources",
        str(mirror),
        "--cache-dir",
        cache_dir,
        "--model",
        minilm,
        "--threshold",
        "0.6",
    )
    assert from_dataset == result
    code, _, err = run(
        capsys,
        "cq_reference_match",
        path,
        "--references",
        str(VALIDATION),
        "--option",
        "no_such=1",
        "--model",
        minilm,
    )
    assert code == 2 and "cq_reference_match has no option 'no_such'; options: matcher" in err


def test_cq_plain_records_and_unknown_intervention(tmp_path, capsys, minilm):
    refs = [
        {"id": "r0", "cq": "Is the source reliable?", "label": "Useful"},
        {"id": "r1", "cq": "Is the speaker nice?", "label": 2},
    ]
    records = [
        {"intervention_id": "X", "cqs": ["Is the source reliable?", "Why?"], "references": refs}
    ]
    result, _ = run_json(
        capsys, "cq_reference_match", write(tmp_path / "c.jsonl", records), "--model", minilm
    )
    assert result["labels"] == [["Useful", "not_able_to_evaluate"]]
    assert result["intervention_ids"] == ["X"] and result["similarities"][0][0] > 0.99
    path = write(tmp_path / "s.json", {"nope": {"cqs": [{"id": 0, "cq": "Why?"}]}})
    code, _, err = run(capsys, "cq_reference_match", path, "--references", str(VALIDATION))
    assert code == 2 and "intervention 'nope' has no references" in err
    code, _, err = run(capsys, "cq_reference_match", path)  # a submission needs --references
    assert code == 2 and "record 0 ('nope'): no field 'references'" in err
    assert "a shared-task submission needs --references FILE or --references-dataset" in err


# ---- --dataset ----


def test_dataset_input_equals_the_plain_function(capsys, fixture_mirror, cache_dir):
    mirror = fixture_mirror("cam_answers")
    common = (
        "--dataset",
        "cam_answers",
        "--config",
        "silver",
        "--sources",
        str(mirror),
        "--cache-dir",
        cache_dir,
    )
    result, _ = run_json(capsys, "argument_relevance", *common)
    rows = argbench.load_dataset(
        "cam_answers", "silver", "train", sources=str(mirror), cache_dir=cache_dir
    )
    assert result == argument_relevance(rows["answer"], rows["argument_relevance"])
    code, out, _ = run(capsys, "argument_overlap", *common)
    assert code == 0 and out.startswith("argument_overlap on cam_answers/silver/train: 9 ")
    assert table(out)["n_answers"] == str(len(rows))


def test_dataset_with_several_splits_needs_split(capsys, fixture_mirror, cache_dir):
    mirror = fixture_mirror("cqs_gen")
    common = (
        "cr_diversity",
        "--dataset",
        "cqs_gen",
        "--config",
        "interventions",
        "--sources",
        str(mirror),
        "--cache-dir",
        cache_dir,
        "--column",
        "predictions=references.cq",
    )
    code, _, err = run(capsys, *common)
    assert code == 2 and "has splits validation, test: pick --split" in err
    result, _ = run_json(capsys, *common, "--split", "validation")
    texts = [c["cq"] for v in json.loads(VALIDATION.read_text()).values() for c in v["cqs"]]
    assert result == cr_diversity(texts)


# ---- errors ----


def test_errors_name_record_and_field(tmp_path, capsys):
    good = {"answer": "A [1].", "argument_relevance": [3]}
    path = write(tmp_path / "m.json", {"a": good, "b": {"answer": "B [1]."}})
    code, out, err = run(capsys, "argument_relevance", path)
    assert code == 2 and not out
    assert "record 1 ('b'): no field 'argument_relevance' (has ['answer'])" in err
    path = write(tmp_path / "t.jsonl", [good, {"answer": "B", "argument_relevance": ["high"]}])
    code, _, err = run(capsys, "argument_relevance", path)
    assert code == 2 and "record 1, field 'argument_relevance'[0]: expected an integer" in err
    code, _, err = run(
        capsys, "argument_overlap", write(tmp_path / "n.json", [{"answer": 3, "arguments": []}])
    )
    assert code == 2 and "record 0, field 'answer': expected a string, got 3" in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(good) + "\n{oops\n")
    code, _, err = run(capsys, "argument_relevance", str(bad))
    assert code == 2 and "bad.jsonl, line 2: not JSON" in err
    code, _, err = run(capsys, "argument_relevance", str(tmp_path / "missing.json"))
    assert code == 2 and "missing.json does not exist" in err
    code, _, err = run(capsys, "argument_relevance", write(tmp_path / "e.json", []))
    assert code == 2 and "no records" in err


def test_usage_errors(tmp_path, capsys):
    path = write(tmp_path / "a.json", [{"answer": "A [1].", "argument_relevance": [3]}])
    with pytest.raises(SystemExit) as exit_info:
        main(["evaluate", "no_such_metric", path])
    assert (
        exit_info.value.code == 2 and "invalid choice: 'no_such_metric'" in capsys.readouterr().err
    )
    for argv, message in [
        (
            ["--option", "nope=1"],
            "argument_relevance has no option 'nope'; options: relevance_threshold, semantics",
        ),
        (["--option", "novalue"], "expected KEY=VALUE"),
        (["--model", "x"], "has no option 'model'"),
        (["--column", "labels=x"], "INPUT one of predictions, references"),
        (["--option", "predictions=[]"], "is an input: set it with --column"),
        (["--references", path], "go with cq_reference_match"),
        (["--allow-missing"], "--allow-missing and --id go with FILE --dataset"),
        (["--out", "r.json"], "--out needs --dataset"),
        (["--split", "train"], "--config and --split go with --dataset"),
    ]:
        code, _, err = run(capsys, "argument_relevance", path, *argv)
        assert code == 2 and message in err, (argv, err)
    code, _, err = run(capsys, "argument_relevance")
    assert code == 2 and "give a FILE of records or --dataset NAME" in err
    code, _, err = run(capsys, "argument_relevance", "--dataset", "nope")
    assert code == 2 and "unknown dataset 'nope'" in err
    code, _, err = run(capsys, "argument_relevance", path, "--option", 'semantics="loose"')
    assert code == 2 and "semantics" in err


def test_json_output_is_strict_json_with_nan_as_null(tmp_path, capsys):
    path = write(tmp_path / "a.json", [{"answer": "No relevant [1].", "argument_relevance": [0]}])
    code, out, _ = run(capsys, "argument_relevance", path, "--json")
    assert code == 0
    result = json.loads(out, parse_constant=lambda c: pytest.fail(f"non-standard JSON {c}"))
    assert result["precision"] is None and result["n_scored"] == 0
    code, out, _ = run(capsys, "argument_relevance", path)
    assert table(out)["precision"] == "undefined"


# ---- the real files ----


@pytest.mark.mirror
def test_real_cam_file_equals_the_dataset_and_table_3(real_mirror, real_corpora, capsys):
    cam = path_of("cam_answers", "silver_112", real_mirror)
    from_file, err = run_json(
        capsys, "argument_overlap", str(cam), "--column", "predictions=gpt_answers"
    )
    assert "stripped the authors' 'N. ' prefixes" in err and "112 records -> 336 examples" in err
    from_dataset, _ = run_json(
        capsys,
        "argument_overlap",
        "--dataset",
        "cam_answers",
        "--config",
        "silver",
        "--sources",
        str(real_mirror),
        "--cache-dir",
        real_corpora.cache,
    )
    assert from_file == from_dataset
    published = (0.25, 0.21, 11.82)  # CAM Table 3, silver: Jaccard text / sentence, Levenshtein
    got = from_file["jaccard_text"], from_file["jaccard_sent"], from_file["levenshtein"]
    assert tuple(round(x, 2) for x in got) == published


def test_cq_submission_as_json_lines(tmp_path, capsys, minilm):
    """A shared-task submission in JSON Lines (one intervention per line) reads like the JSON one."""
    path, submission = _submission(tmp_path)
    lines = [{"intervention_id": k, **v} for k, v in submission.items()]
    jsonl = write(tmp_path / "sub.jsonl", lines)
    common = ("--references", str(VALIDATION), "--model", minilm)
    from_json, _ = run_json(capsys, "cq_reference_match", path, *common)
    from_jsonl, _ = run_json(capsys, "cq_reference_match", jsonl, *common)
    assert from_jsonl == from_json
