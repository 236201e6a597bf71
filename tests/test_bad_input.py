"""Bad input is an error naming the example and field, never a coerced or believable number:
metric modules reject what their plain functions reject, pairwise judgments and files are
checked, empty inputs mean one documented thing, odd Unicode is named."""

from __future__ import annotations

import json
import math

import pytest

import argbench
from argbench.cli import main
from argbench.scoring.annotator_agreement import agreement
from argbench.scoring.argument_answer_coherence import argument_answer_coherence
from argbench.scoring.argument_relevance import argument_relevance
from argbench.scoring.bradley_terry import fit_bradley_terry
from argbench.scoring.cq_reference_match import NAE, cq_reference_match

REFS = [{"id": "r0", "cq": "Is the source reliable?", "label": "Useful"}]


def _first_match(question, references):
    return 0


# ---- metric modules: nothing is coerced by evaluate's Features ----


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        ([1.9, 3], r"references\[0\]\[0\]: expected an integer, got 1.9"),
        ([3, 2.5], r"references\[0\]\[1\]: expected an integer, got 2.5"),
        (["2", 3], r"references\[0\]\[0\]: expected an integer, got '2'"),
        ([True, 3], r"references\[0\]\[0\]: expected an integer, got True"),
        ([7, 3], r"references\[0\]\[0\]: label 7 outside 0..3"),
        ([3, -2], r"references\[0\]\[1\]: label -2 outside 0..3"),
    ],
)
def test_argument_relevance_labels_are_checked_not_coerced(labels, message):
    metric = argbench.load_metric("argument_relevance")
    with pytest.raises((TypeError, ValueError), match=message):
        metric.compute(predictions=["A [1]."], references=[labels])
    plain = message.replace(": expected an integer", " must be an int label.*")
    with pytest.raises((TypeError, ValueError), match=plain):
        argument_relevance(["A [1]."], [labels])


def test_argument_relevance_accepts_unknown_labels_and_numpy_ints():
    import numpy as np

    metric = argbench.load_metric("argument_relevance")
    result = metric.compute(predictions=["A [1]."], references=[[np.int64(3), None, -1]])
    assert result["precision"] == 1.0 and result["n_unknown_cited"] == 0


@pytest.mark.parametrize(
    ("ratings", "message"),
    [
        ([[0, math.inf], [1, 1], [0, 0]], r"rater 1, item 0: rating inf is not a finite number"),
        ([[0, "2"], [1, 1], [0, 0]], r"ratings\[0\]\[1\]: expected a number, got '2'"),
        ([[0, 1], [True, 1], [0, 0]], r"ratings\[1\]\[0\]: expected a number, got True"),
    ],
)
def test_annotator_agreement_ratings_are_checked(ratings, message):
    metric = argbench.load_metric("annotator_agreement")
    with pytest.raises(TypeError if "expected" in message else ValueError, match=message):
        metric.compute(ratings=ratings)
    if "inf" in message:
        with pytest.raises(ValueError, match=message):
            agreement([list(col) for col in zip(*ratings, strict=True)])


@pytest.mark.parametrize(
    ("label", "message"),
    [
        (True, r"references\[0\]\[0\]\.label: expected one of .*Useful.* or its index, got True"),
        (1.0, r"references\[0\]\[0\]\.label: expected one of .* or its index, got 1.0"),
        (7, r"references\[0\]\[0\]\.label: expected one of .* or its index, got 7"),
    ],
)
def test_cq_reference_match_labels_are_checked(label, message):
    metric = argbench.load_metric("cq_reference_match")
    refs = [[{**REFS[0], "label": label}]]
    with pytest.raises(ValueError, match=message):
        metric.compute(predictions=[["Q?"]], references=refs, matcher=_first_match)
    with pytest.raises(ValueError, match=r"references\[0\]\[0\]\.label"):
        cq_reference_match([["Q?"]], refs, matcher=_first_match)


@pytest.mark.parametrize(
    ("name", "inputs", "message"),
    [
        ("argument_overlap", {"predictions": ["A [1].", 5], "references": [["a"], ["b"]]}, r"predictions\[1\]: expected a string, got 5"),
        ("argument_answer_coherence", {"predictions": ["A [1]."], "references": [["a", 3]], "judge": _first_match}, r"references\[0\]\[1\]: expected a string, got 3"),
        ("rationale_f1", {"predictions": [["a"], [5]], "references": [["a"], ["b"]]}, r"predictions\[1\]\[0\]: expected a string, got 5"),
        ("cr_diversity", {"predictions": ["a b c d", 5]}, r"predictions\[1\]: expected a string, got 5"),
        ("cq_reference_match", {"predictions": [["Q?", 5]], "references": [REFS], "matcher": _first_match}, r"predictions\[0\]\[1\]: expected a string, got 5"),
    ],
)  # fmt: skip
def test_string_inputs_are_not_stringified(name, inputs, message):
    """evaluate checks only the first example's type and would turn 5 into "5"."""
    with pytest.raises(TypeError, match=message):
        argbench.load_metric(name).compute(**inputs)


def test_lone_surrogate_is_named_not_an_arrow_traceback():
    metric = argbench.load_metric("argument_overlap")
    with pytest.raises(ValueError, match=r"predictions\[1\]: not valid Unicode.*position 2"):
        metric.compute(predictions=["fine", "ab\ud800c"], references=[["a"], ["b"]])


def test_add_and_add_batch_are_checked_too():
    metric = argbench.load_metric("argument_relevance")
    with pytest.raises(TypeError, match=r"reference\[0\]: expected an integer, got 1.5"):
        metric.add(prediction="A [1].", reference=[1.5])
    with pytest.raises(TypeError, match=r"references\[1\]\[0\]: expected an integer, got 0.5"):
        metric.add_batch(predictions=["A [1].", "B"], references=[[3], [0.5]])


@pytest.mark.parametrize(
    ("ratings", "message"),
    [
        ([[1, 1], [1, 1], [1, 1]], "all 6 ratings of the items rated twice or more are 1"),
        ([[2, 2], [0, None]], "all 2 ratings of the items rated twice or more are 2"),
        ([[2, None], [None, 1]], "no item is rated by two or more raters"),
    ],
)
def test_agreement_without_variation_is_a_clear_error(ratings, message):
    metric = argbench.load_metric("annotator_agreement")
    with pytest.raises(ValueError, match=message):
        metric.compute(ratings=ratings)
    with pytest.raises(ValueError, match=message):
        agreement([list(col) for col in zip(*ratings, strict=True)])


def test_perfect_agreement_is_one_everywhere():
    result = argbench.load_metric("annotator_agreement").compute(ratings=[[0, 0], [1, 1], [2, 2]])
    assert all(result[k] == 1.0 for k in result if k.startswith(("krippendorff", "fleiss")))
    assert result["cohen_kappa_mean"] == 1.0


# ---- empty inputs: one meaning in function, module and command line ----


def test_no_questions_for_an_intervention_is_missing_cqs_everywhere(tmp_path, capsys, minilm):
    """``[]`` means what ``"Missing CQs"`` means: 3 NAE placeholders, 0 points."""
    both = cq_reference_match([[], ["Missing CQs"]], [REFS, REFS], matcher=_first_match)
    assert both["labels"] == [[NAE] * 3, [NAE] * 3] and both["n_missing_cqs"] == 2
    assert both["nae_rate"] == 1.0 and both["score"] == 0.0 and both["n_questions"] == 6
    module = argbench.load_metric("cq_reference_match").compute(
        predictions=[[]], references=[REFS], matcher=_first_match
    )
    assert module["labels"] == [[NAE] * 3] and module["nae_rate"] == 1.0
    submission = {"i1": {"cqs": []}, "i2": {"cqs": "Missing CQs"}}
    validation = {k: {"intervention_id": k, "cqs": REFS} for k in submission}
    (tmp_path / "s.json").write_text(json.dumps(submission))
    (tmp_path / "v.json").write_text(json.dumps(validation))
    argv = ["evaluate", "cq_reference_match", str(tmp_path / "s.json")]
    argv += ["--references", str(tmp_path / "v.json"), "--model", minilm, "--json"]
    assert main(argv) == 0
    cli = json.loads(capsys.readouterr().out)
    assert cli["labels"] == [[NAE] * 3] * 2 and cli["n_missing_cqs"] == 2


@pytest.mark.parametrize(
    ("name", "inputs"),
    [
        ("cq_reference_match", {"matcher": _first_match}),
        ("argument_answer_coherence", {"judge": _first_match}),
        ("argument_relevance", {}),
    ],
)
def test_empty_input_is_an_error_in_module_and_function(name, inputs):
    metric = argbench.load_metric(name)
    with pytest.raises(ValueError, match="empty: nothing to score"):
        metric.compute(predictions=[], references=[], **inputs)
    function = {
        "cq_reference_match": cq_reference_match,
        "argument_answer_coherence": argument_answer_coherence,
        "argument_relevance": argument_relevance,
    }[name]
    with pytest.raises(ValueError, match="empty: nothing to score"):
        function([], [], **inputs)
    with pytest.raises(ValueError, match="empty: nothing to score"):
        argbench.load_metric("annotator_agreement").compute(ratings=[])


# ---- pairwise judgments ----


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"dummy_merit": float("nan")}, "dummy_merit must be a finite number"),
        ({"regularization": float("inf")}, "regularization must be a finite number >= 0"),
        ({"threshold": 1000}, r"threshold τ = 1000 is too large"),
        ({"threshold": float("nan")}, "threshold must be a finite number >= 0"),
    ],
)
def test_bradley_terry_rejects_unusable_parameters(options, message):
    with pytest.raises(ValueError, match=message):
        fit_bradley_terry(["a", "b"], ["b", "c"], ["a", "tie"], **options)


def test_bradley_terry_items_of_different_types_are_not_merged():
    with pytest.raises(
        ValueError, match=r"judgment 1, field 'item_a': item '1' \(str\).*1 \(int\)"
    ):
        fit_bradley_terry([1, "1"], ["b", "c"], ["a", "a"])
    with pytest.raises(
        ValueError, match=r"judgment 0, field 'item_b': item \['x'\] is not hashable"
    ):
        fit_bradley_terry(["a"], [["x"]], ["a"])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("item_a,item_b,winner\nx,y,a\n,z,b\n", r"row 1: empty 'item_a'"),
        ("item_a,item_b,winner\nx,y,a\ny,z,b,extra\n", r"line 3: 4 cells but the header has 3"),
        ("item_a,item_b,winner\nx,y\n", r"line 2: 2 cells but the header has 3"),
        ("item_a,item_b,winner\nx,y,\n", r"row 0: empty 'winner'"),
        ("item_a,item_a,winner\nx,y,a\n", r"line 1: the header names 'item_a' twice"),
    ],
)
def test_pairwise_csv_cells_are_checked(tmp_path, capsys, text, message):
    path = tmp_path / "j.csv"
    path.write_text(text)
    assert main(["pairwise", "fit", str(path), "--out", str(tmp_path / "o.csv")]) == 2
    err = capsys.readouterr().err
    assert str(path) in err
    import re

    assert re.search(message, err), err


# ---- found in the hostile pass: settings that silently zero a score ----


@pytest.mark.parametrize("threshold", [65, -2, float("nan")])
def test_cq_threshold_outside_the_cosine_range_is_an_error(threshold):
    """threshold=65 (a percentage) would label every question NAE: a score of 0."""
    with pytest.raises(ValueError, match=r"threshold must be a cosine in \[-1, 1\]"):
        cq_reference_match([["Q?"]], [REFS], threshold=threshold)


@pytest.mark.parametrize("threshold", [4, -1])
def test_relevance_threshold_outside_the_label_scale_is_an_error(threshold):
    """relevance_threshold=4 would make no argument relevant and every answer unscored."""
    with pytest.raises(ValueError, match=r"relevance_threshold must be a label 0..3"):
        argument_relevance(["A [1]."], [[3]], relevance_threshold=threshold)


def test_pairwise_out_is_checked_before_the_fit(tmp_path, capsys):
    path = tmp_path / "j.csv"
    path.write_text("item_a,item_b,winner\nx,y,a\n")
    assert main(["pairwise", "fit", str(path), "--out", str(tmp_path / "o.txt")]) == 2
    assert "'o.txt': expected a file ending in .csv or .jsonl" in capsys.readouterr().err
    (tmp_path / "d.csv").mkdir()
    assert main(["pairwise", "fit", str(path), "--out", str(tmp_path / "d.csv")]) == 2
    assert "d.csv is a folder" in capsys.readouterr().err


def test_csv_with_a_byte_order_mark_reads_its_first_column(tmp_path, capsys):
    path = tmp_path / "excel.csv"
    path.write_bytes(b"\xef\xbb\xbfitem_a,item_b,winner\nx,y,a\ny,x,tie\n")
    assert main(["pairwise", "fit", str(path), "--out", str(tmp_path / "o.csv")]) == 0
