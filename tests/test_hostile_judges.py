"""Hostile inputs to the judges' neighbours (issue 27): thresholds the CQs-Gen metric refuses
are refused by the agreement study too (one shared check), and citation parsing gives the
notebook regex's result in linear time (the timing claim is in scripts/bench_citations.py)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from argbench.citations import NOTEBOOK_EXCERPT_PATTERN, notebook_excerpts, parse_citations
from argbench.scoring.cq_human_agreement import cq_human_agreement
from argbench.scoring.cq_reference_match import cq_reference_match

REFS = [[{"id": "a", "cq": "Why?", "label": "Useful"}, {"id": "b", "cq": "How?", "label": 2}]]
QUESTIONS, HUMAN = [["Why?", "How?"]], [["Useful", "Invalid"]]


def _fail_if_called(question, references):
    raise AssertionError("the matcher ran: the threshold should have been refused first")


@pytest.mark.parametrize(
    "threshold", [65, float("nan"), -5, float("inf"), True, "0.65", None, np.float32(1.5)]
)
def test_agreement_refuses_thresholds_the_metric_refuses(threshold):
    # old: cq_human_agreement(thresholds=(65,)) gave kappa 0 without a word
    with pytest.raises((ValueError, TypeError)) as metric:
        cq_reference_match(QUESTIONS, REFS, matcher=_fail_if_called, threshold=threshold)
    with pytest.raises(type(metric.value)) as study:
        cq_human_agreement(QUESTIONS, HUMAN, REFS, matcher=_fail_if_called, thresholds=(threshold,))
    assert "thresholds[0] must be a cosine in [-1, 1]" in str(study.value)
    assert str(metric.value).partition(" must")[2] == str(study.value).partition(" must")[2]


@pytest.mark.parametrize("thresholds", [0.65, "0.65", ()])
def test_agreement_refuses_a_threshold_list_that_is_not_one(thresholds):
    with pytest.raises((TypeError, ValueError), match="thresholds"):
        cq_human_agreement(QUESTIONS, HUMAN, REFS, thresholds=thresholds, model="unused")


def test_control_valid_thresholds_pass_the_check():
    exact = lambda q, refs: refs.index(q) if q in refs else None  # noqa: E731
    out = cq_human_agreement(QUESTIONS, HUMAN, REFS, matcher=exact, thresholds=(-1, 0, 0.65, 1))
    assert out["by_threshold"][None]["n"] == 2


def test_notebook_excerpts_equal_the_notebook_regex_on_random_text():
    rng = random.Random(27)
    alphabet = "Aab [],\n1Z -"
    for _ in range(5000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        assert notebook_excerpts(text) == NOTEBOOK_EXCERPT_PATTERN.findall(text), text


def test_parse_citations_on_one_long_line_finds_every_group_at_the_right_place():
    sentence = "Cars are Faster than bikes [3]. "
    text = sentence * 20_000 + "tail\nSecond line [4]"
    found = parse_citations(text)
    assert len(found) == 20_001
    assert found[0].text == "Cars are Faster than bikes" and found[-1].text == "Second line"
    assert found[-2].start == len(sentence) * 19_999
    assert found[-1].start == text.rindex("Second")
