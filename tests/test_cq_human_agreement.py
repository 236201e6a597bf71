"""The reference-based CQs-Gen labels against human labels: κ, NAE, confusion, thresholds,
and the leave-one-submission-out protocol of the paper's Fig. 4."""

import pytest

import argbench
from argbench.scoring.cq_human_agreement import (
    cq_human_agreement,
    label_agreement,
    leave_one_submission_out,
)
from argbench.scoring.cq_reference_match import NAE


def test_label_agreement_matches_the_authors_sklearn_kappa_with_nae_as_a_category():
    sklearn = pytest.importorskip("sklearn.metrics")
    human = ["Useful", "Useful", "Unhelpful", "Invalid", "Useful", "Invalid", 0, 1]
    predicted = ["Useful", NAE, "Unhelpful", "Useful", "Useful", NAE, "Useful", "Invalid"]
    result = label_agreement(predicted, human)
    names = ["Useful", "Unhelpful", "Invalid"]
    truth = [h if isinstance(h, str) else names[h] for h in human]
    assert result["kappa"] == pytest.approx(sklearn.cohen_kappa_score(truth, predicted))
    assert result["nae_rate"] == 2 / 8 and result["accuracy"] == 4 / 8 and result["n"] == 8
    labels = result["confusion"]["labels"]
    assert labels == [*names, NAE]
    expected = sklearn.confusion_matrix(truth, predicted, labels=labels).tolist()
    assert result["confusion"]["matrix"] == expected


def test_label_agreement_rejects_bad_input():
    with pytest.raises(ValueError, match="2 predicted labels but 1 human"):
        label_agreement(["Useful", "Useful"], ["Useful"])
    with pytest.raises(ValueError, match=r"predicted\[0\]: label 'useful' is not one of"):
        label_agreement(["useful"], ["Useful"])
    with pytest.raises(ValueError, match=r"human\[0\]: label 'Wrong reasoning' is not one of"):
        label_agreement(["Useful"], ["Wrong reasoning"])
    with pytest.raises(ValueError, match="nothing to compare"):
        label_agreement([], [])


def _exact(question, references):
    """A strict matcher: the reference with the same words, else None (NAE)."""
    key = " ".join(question.lower().split())
    for k, ref in enumerate(references):
        if " ".join(ref.lower().split()) == key:
            return k
    return None


def test_callable_matcher_gives_one_result_without_threshold():
    refs = [[{"id": "a", "cq": "Why?", "label": "Useful"}, {"id": "b", "cq": "How?", "label": 2}]]
    out = cq_human_agreement(
        [["why? ", "How?", "When?"]], [["Useful", "Unhelpful", "Invalid"]], refs, matcher=_exact
    )
    (only,) = out["by_threshold"].values()
    assert list(out["by_threshold"]) == [None]
    assert out["labels"][None] == ["Useful", "Invalid", NAE]
    assert only["confusion"]["matrix"][1] == [0, 0, 1, 0]  # human Unhelpful -> metric Invalid
    assert only["nae_rate"] == 1 / 3
    with pytest.raises(ValueError, match="intervention 0: 2 questions but 1 human labels"):
        cq_human_agreement([["a", "b"]], [["Useful"]], refs, matcher=_exact)


def test_thresholds_share_one_match_and_equal_separate_runs(minilm):
    refs = [
        [
            {"id": "a", "cq": "What evidence supports the claim?", "label": "Useful"},
            {"id": "b", "cq": "Who said it?", "label": "Unhelpful"},
        ]
    ]
    questions = [["Is there evidence for the claim?", "Who is the speaker?", "Is the sky blue?"]]
    human = [["Useful", "Unhelpful", "Invalid"]]
    out = cq_human_agreement(questions, human, refs, thresholds=(0.3, 0.6, 0.9), model=minilm)
    assert "thr:swept" in out["signature"]
    naes = [out["by_threshold"][t]["nae_rate"] for t in (0.3, 0.6, 0.9)]
    assert naes == sorted(naes) and naes[-1] == 1.0  # more NAE as the threshold rises
    for threshold in (0.3, 0.6):
        alone = cq_human_agreement(questions, human, refs, thresholds=(threshold,), model=minilm)
        assert alone["labels"][threshold] == out["labels"][threshold]


def test_leave_one_submission_out_by_hand(fixture_mirror, cache_dir):
    """On the fixture (3 submissions), with the exact matcher: step 0 uses the test references
    only; each step adds up to 5 of the other submissions' questions per intervention."""
    mirror = fixture_mirror("cqs_gen")
    ext = argbench.load_dataset("cqs_gen", "extended", "test", sources=mirror, cache_dir=cache_dir)
    curve = leave_one_submission_out(list(ext), matcher=_exact, batch_size=5)
    assert [p["added"] for p in curve] == [0, 5]  # at most 5 others per intervention
    first, last = curve
    assert first["n"] == last["n"] == 12  # every submitted question, each held out once
    # no submitted question repeats a reference's or another submission's words: all NAE
    assert first["nae_rate"] == last["nae_rate"] == 1.0 and first["kappa"] == 0.0
    assert first["confusion"]["matrix"][0] == [0, 0, 0, 5]  # 5 human-Useful questions
    assert first["confusion"]["matrix"][2] == [0, 0, 0, 3]  # 'Wrong reasoning' counted Invalid
    with pytest.raises(ValueError, match=r"interventions\[0\]: needs 'references'"):
        leave_one_submission_out([{"references": [{"cq": "x", "label": 0}]}], matcher=_exact)
    with pytest.raises(ValueError, match="batch_size must be >= 1"):
        leave_one_submission_out(list(ext), matcher=_exact, batch_size=0)


def test_leave_one_submission_out_adds_references_that_match():
    """Two submissions asking the same question: held out, each matches the other's once it
    is added (step 1), and inherits its human label."""
    rows = [
        {
            "references": [
                {"id": "r", "cq": "Original?", "label": "Useful", "submission": -1},
                {"id": "a", "cq": "Same question?", "label": "Unhelpful", "submission": 0},
                {"id": "b", "cq": "same question?", "label": "Unhelpful", "submission": 1},
            ]
        }
    ]
    curve = leave_one_submission_out(rows, matcher=_exact, batch_size=1)
    assert [(p["added"], p["nae_rate"], p["accuracy"]) for p in curve] == [
        (0, 1.0, 0.0),
        (1, 0.0, 1.0),
    ]


def test_bad_inputs_are_named():
    one = [
        {
            "references": [
                {"cq": "a", "label": 0, "submission": -1},
                {"cq": "b", "label": 1, "submission": 0},
            ]
        }
    ]
    with pytest.raises(ValueError, match="at least two submissions"):
        leave_one_submission_out(one, matcher=_exact)
    with pytest.raises(ValueError, match="no questions to compare"):
        cq_human_agreement([[]], [[]], [[{"id": "a", "cq": "x", "label": 0}]], matcher=_exact)
    with pytest.raises(ValueError, match="1 question lists, 2 label lists"):
        cq_human_agreement([["a"]], [["Useful"], ["Useful"]], [[]], matcher=_exact)


def test_a_loader_without_earlier_versions_says_which_it_has(fixture_mirror, cache_dir):
    with pytest.raises(ValueError, match="ClaimDiff has versions 1.0.0, 1.1.0, not 0.9"):
        argbench.load_dataset("claimdiff", "S", version="0.9", cache_dir=cache_dir)
    with pytest.raises(ValueError, match="CamRelevance has versions 1.0.0, not 2.0.0"):
        argbench.load_dataset("cam_relevance", version="2.0.0", cache_dir=cache_dir)
