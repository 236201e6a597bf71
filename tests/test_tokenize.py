"""The pure-Python spaCy-compatible tokenizer: hand-checked cases from spaCy 3.8.18."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from argbench.tokenize import get_tokenizer, token_texts, tokenize


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "“We won’t back down,” said Sen. Smith (D-N.Y.), who’s running",
            "“ We wo n’t back down , ” said Sen. Smith ( D - N.Y. ) , who ’s running",
        ),
        (
            "$4.50/gal. at 10 a.m.; e.g., in L.A. and St. Louis.",
            "$ 4.50 / gal . at 10 a.m. ; e.g. , in L.A. and St. Louis .",
        ),
        ("US$1,000,000 (about €900k) — a record!", "US$ 1,000,000 ( about € 900k ) — a record !"),
        (
            "the '90s, rock 'n' roll, U.S.-China, 20%-30%",
            "the ' 90s , rock ' n ' roll , U.S.-China , 20%-30 %",
        ),
        ("Hello!!! 10am co-op's AT&T", "Hello ! ! ! 10 am co - op 's AT&T"),
        ("I can't, you gonna?", "I ca n't , you gon na ?"),
    ],
)
def test_spacy_tokens(text, expected):
    assert " ".join(token_texts(text)) == expected


def test_whitespace_tokens_like_spacy():
    # one space after a word is its trailing whitespace; the rest are tokens, as in spaCy
    assert token_texts("a  b\nc") == ["a", " ", "b", "\n", "c"]
    assert token_texts(" a") == [" ", "a"]
    assert tokenize("") == []


def test_special_case_matcher_pass():
    # outputs checked against spacy.blank("en") 3.8.18
    assert token_texts("\"):'s:)") == ['"', "):", "'s", ":)"]
    assert token_texts(";Mr.A") == [";", "Mr.", "A"]


def test_errors():
    with pytest.raises(TypeError, match="text must be a str"):
        tokenize(3)
    with pytest.raises(ValueError, match="tokenizer must be"):
        get_tokenizer("nltk")


@given(st.text(max_size=80))
def test_spans_cover_non_space_text(text):
    spans = tokenize(text)
    assert all(0 <= a < b <= len(text) for a, b in spans)
    assert all(b1 <= a2 for (_, b1), (a2, _) in zip(spans, spans[1:], strict=False))
    covered = "".join(text[a:b] for a, b in spans)
    assert covered.replace(" ", "") == "".join(text.split(" "))
