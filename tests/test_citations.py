"""The citation parser: every bracket shape of the CAM answers, and the notebook's reading."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from argbench.citations import (
    Excerpt,
    notebook_argument_ids,
    notebook_citations,
    parse_bracket,
    parse_citations,
)
from argbench.loaders.cam_answers import release_answer_texts


@pytest.mark.parametrize(
    "content, numbers, generated, unparsed",
    [
        ("3", [3], False, []),
        ("1, 3, 13, 14", [1, 3, 13, 14], False, []),
        ("2,6", [2, 6], False, []),
        ("2,6, 8", [2, 6, 8], False, []),
        ("5-7", [5, 6, 7], False, []),
        ("5-7, 9-10", [5, 6, 7, 9, 10], False, []),
        ("Argument 4", [4], False, []),
        ("1.5, 10", [10], False, ["1.5"]),
        ("generated", [], True, []),
        ("Generated", [], True, []),
        ("generated?", [], True, []),
        ("generated x3", [], True, []),
        ("Generated Argument", [], True, []),
        ("8, generated", [8], True, []),
        ("generated, 11", [11], True, []),
        ("1, 4, 5, 9 generated", [1, 4, 5, 9], True, []),
        ("Paris", [], False, ["Paris"]),
        ('"1. Text, with commas"', [], False, ['"1. Text, with commas"']),
        ("7-5", [], False, ["7-5"]),
    ],
)
def test_bracket_shapes(content, numbers, generated, unparsed):
    assert parse_bracket(content) == (numbers, generated, unparsed)


def test_excerpts_spans_and_groups():
    answer = (
        "**Summary:** Intro without citation.\n\n"
        "- Speed: Ruby is slower than PHP. [1, 3]\n"
        "- Cost: cheaper [3][5] and nicer [[generated].\n"
        "[2] [2-3]\n"
        "Free text [Paris]"
    )
    ex = parse_citations(answer)
    assert [e.text for e in ex] == [
        "Speed: Ruby is slower than PHP",
        "Cost: cheaper",
        "and nicer",
        "",
        "Free text",
    ]
    assert [e.numbers for e in ex] == [(1, 3), (3, 5), (), (2, 3), ()]
    assert [e.generated for e in ex] == [False, False, True, False, False]
    assert ex[-1].unparsed == ("Paris",)
    for e in ex:
        assert answer[e.start : e.end] == e.text


def test_no_citation_and_type_error():
    assert parse_citations("No brackets here.") == []
    assert parse_citations("") == []
    with pytest.raises(TypeError, match="answer must be a str"):
        parse_citations(None)


def test_notebook_reading_differs_where_documented():
    assert notebook_argument_ids("8, generated") == []
    assert notebook_argument_ids("3 generated") == [3]
    assert notebook_argument_ids("Argument 1") == []
    assert notebook_argument_ids("2,6") == [2, 6]
    assert notebook_argument_ids("5-10, 17-20") == [5, 6, 7, 8, 9, 10, 17, 18, 19, 20]
    assert notebook_argument_ids("Paris") == []
    # lower-case line: the notebook regex skips to the next capital letter, argbench does not
    answer = "Fast [1]\nand cheap [2]\nGood [3]"
    assert notebook_citations(answer) == [("Fast ", [1]), ("Good ", [3])]
    assert [e.numbers for e in parse_citations(answer)] == [(1,), (2,), (3,)]


@given(st.lists(st.integers(1, 50), min_size=1, max_size=6), st.booleans())
def test_roundtrip_numbers(numbers, gen):
    parts = [str(n) for n in numbers] + (["generated"] if gen else [])
    (e,) = parse_citations(f"Claim text [{', '.join(parts)}]")
    assert e.numbers == tuple(dict.fromkeys(numbers))
    assert e.generated is gen and e.unparsed == () and isinstance(e, Excerpt)


@given(st.text(max_size=200))
def test_never_crashes_and_spans_hold(text):
    for e in parse_citations(text):
        assert text[e.start : e.end] == e.text
        assert all(isinstance(n, int) for n in e.numbers)


def test_real_answers_shapes(real_mirror):
    """Every citation shape counted in the release is read; only free text is left unparsed."""
    unparsed = [
        u for a in release_answer_texts(real_mirror) for e in parse_citations(a) for u in e.unparsed
    ]
    assert sorted(unparsed, key=str) == sorted(
        ["Paris", "Paris", "1.5", next(u for u in unparsed if u.startswith('"1. Additionally'))]
    )
    groups = [e for a in release_answer_texts(real_mirror) for e in parse_citations(a)]
    assert sum(e.generated for e in groups) >= 1092 + 72 + 25 + 5 + 3
    assert json.dumps([e.numbers for e in groups])  # plain ints
