"""The pure-Python spaCy-compatible tokenizer: hand-checked cases from spaCy 3.8.18, and
property tests against spaCy itself (cold and warm chunk cache)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from argbench import tokenize as tk
from argbench.tokenize import _clear_cache, get_tokenizer, token_texts, tokenize


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


# ---- identical to spaCy's own tokenizer (spaCy is in the test extra) ----

ABBREVIATIONS = "Dr. Mr. St. Sen. Jan. Inc. vs. etc. e.g. i.e. U.S. N.Y. a.m. p.m. No. Mt.".split()
CONTRACTIONS = "can't won't don’t it's they're I'm we'll I'd y'all gonna ain't o'clock".split()
URLS = [
    "https://www.example.org/a/b?id=3&x=y",
    "http://news.example.co.uk",
    "www.example.com/path",
    "example.org",
    "mail@example.com",
    "ftp://10.0.0.1:8080/x",
]
ODD = ":) :-( ;) :D <3 o.O ^_^ (: ):'s \"): 's ’s n't 'n' -- ... … — – US$ €5 5km 3pm 20%-30% '90s"
PIECES = st.one_of(
    st.sampled_from(ABBREVIATIONS + CONTRACTIONS + URLS + ODD.split()),
    st.sampled_from(sorted(tk._rules().exceptions)),  # every special case (emoticons, ...)
    st.from_regex(r"[A-Za-z]{1,8}", fullmatch=True),
    st.integers(-10_000, 10_000_000).map(lambda n: f"{n:,}" if n % 2 else str(n)),
    st.floats(0, 100, allow_nan=False).map(lambda x: f"{x:.1f}%"),
    st.sampled_from(list("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~“”‘’«»¿¡§°")),
    st.sampled_from("café naïve Zürich Москва 北京 Ελλάδα İstanbul ﬁ ½ µg 🙂 👍🏽 ©".split()),
    st.text(max_size=4),  # anything, including control and whitespace characters
)
SEPARATORS = st.sampled_from(["", "", " ", " ", " ", "  ", "\n", "\t", "\xa0", " \n ", "\u2009"])
TEXTS = st.lists(st.tuples(PIECES, SEPARATORS), max_size=20).map(
    lambda parts: "".join(p + s for p, s in parts)
)


@pytest.fixture(scope="module")
def spacy_spans():
    spacy = pytest.importorskip("spacy", reason="spaCy is the reference: pip install spacy")
    tokenizer = spacy.blank("en").tokenizer
    return lambda text: [(t.idx, t.idx + len(t.text)) for t in tokenizer(text)]


@settings(max_examples=400, deadline=None)
@given(text=TEXTS, before=TEXTS, after=TEXTS)
def test_identical_to_spacy(spacy_spans, text, before, after):
    _clear_cache()
    assert tokenize(text) == spacy_spans(text)  # cold cache
    # warm cache: the same chunks again, alone and inside other text
    assert tokenize(text) == spacy_spans(text)
    around = f"{before} {text} {after}"
    assert tokenize(around) == spacy_spans(around)


@pytest.mark.parametrize(
    "texts",
    [
        # a chunk whose tokens the matcher pass re-splits, in different neighbourhoods
        ["\"):'s:)", "a \"):'s:) b", "it \"):'s:)", "\"):'s:) :)"],
        # exception keys inside chunks, next to other pattern tokens; overlapping matches
        [";Mr.A", "(Mr.", "Mr. (", ":) :)", "(:)", "it's 's", "'s it", ":-))):)))", "'';) °c."],
        # whitespace of every kind around cached chunks
        ["x  x", "x\u00a0x", " x", "x ", "x \n x", "\tx\t", "x\u3000x\u2028"],
    ],
)
def test_cache_warm_in_other_contexts(spacy_spans, texts):
    _clear_cache()
    for text in texts + texts[::-1]:
        assert tokenize(text) == spacy_spans(text), text


def test_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(tk, "CACHE_SIZE", 10)
    _clear_cache()
    rules = tk._rules()
    words = [f"w{i}" for i in range(100)] + ["x" * (tk.CACHE_CHUNK_CHARS + 1)]
    for w in words:
        assert token_texts(f"({w}).") == ["(", w, ")", "."]
        assert len(rules.cache) <= 10 and len(rules.old) <= 10
    assert all(len(key) <= tk.CACHE_CHUNK_CHARS for key in {**rules.cache, **rules.old})
    _clear_cache()


CLAIMDIFF = "raw.githubusercontent.com/kaistAI/ClaimDiff/19d033c17dec6457fc807f01dfa31f535172f28a"


@pytest.mark.mirror
def test_every_claimdiff_claim_identical_to_spacy(real_mirror, spacy_spans):
    """All 2,231 distinct claims of the released files, cold and with a warm cache."""
    claims: set[str] = set()
    for path in sorted((real_mirror / CLAIMDIFF).glob("ClaimDiff-*/*.json")):
        for row in json.loads(path.read_text())["data"]:
            claims.update((row["claim_a"], row["claim_b"]))
    assert len(claims) == 2231
    _clear_cache()
    for _ in range(2):
        differ = [c for c in sorted(claims) if tokenize(c) != spacy_spans(c)]
        assert not differ, differ[:3]


@settings(max_examples=500, deadline=None)
@given(s=st.one_of(TEXTS, st.text(min_size=1, max_size=12)).filter(bool))
def test_affix_lengths_equal_the_combined_regexes(s):
    """The prefilters and the per-alternative suffix search only save time."""
    rules = tk._rules()
    assert rules.prefix_len(s) == tk._length(rules.prefix(s))
    assert rules.suffix_len(s) == tk._length(rules.suffix(s))
    if rules.infix_first.isdisjoint(s):
        assert not any(rules.infix(s))


def test_prefilters_are_built():
    # the regex parser read every table, so the fast paths are in use
    rules = tk._rules()
    assert rules.prefix_first and rules.suffix_index and rules.infix_first
    assert "does"[-1] not in rules.suffix_index or rules.suffix_len("does") == 0
    assert (rules.suffix_len("5km"), rules.suffix_len("it's"), rules.suffix_len("x...")) == (
        2,
        2,
        3,
    )
