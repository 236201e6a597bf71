"""spaCy-compatible English tokenisation without spaCy.

The ClaimDiff paper scores rationales on spaCy's English tokens. This module re-implements
the algorithm of spaCy's ``Tokenizer`` (whitespace split, prefix/suffix/infix rules, special
cases, URL match, and the special-case matcher pass) in plain Python over the rule tables of
``spacy.blank("en")`` (spaCy 3.8.18, MIT; shipped in ``argbench/data/spacy_en.json``). How
often it agrees with spaCy on ClaimDiff's claims: ``scripts/check_tokenizer.py``.

``tokenize(text)`` returns ``(start, end)`` character spans, one per spaCy token, including
spaCy's whitespace tokens (extra spaces, newlines), so token indices equal spaCy's.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources

__all__ = ["tokenize", "token_texts", "spacy_tokenize", "get_tokenizer", "tokenizer_name"]


class _Rules:
    """Compiled tables; built once per process."""

    def __init__(self) -> None:
        data = json.loads(
            resources.files("argbench").joinpath("data/spacy_en.json").read_text("utf-8")
        )
        self.exceptions: dict[str, list[str]] = data["exceptions"]
        # spaCy's compile_*_regex: alternation order matters (first match wins)
        self.prefix = re.compile("|".join("^" + p for p in data["prefixes"] if p.strip()))
        self.suffix = re.compile("|".join(p + "$" for p in data["suffixes"] if p.strip()))
        self.infix = re.compile("|".join(p for p in data["infixes"] if p.strip()))
        self.url = re.compile("(?u)" + data["url_pattern"]).match
        # Matcher patterns: exception keys that affix/infix rules would split, keyed by the
        # token sequence the rules alone give (spaCy's _apply_special_cases).
        self.patterns: set[tuple[str, ...]] = set()
        for key in self.exceptions:
            if self._length(self.prefix, key) or self._length(self.suffix, key):
                self.patterns.add(tuple(self._plain(key)))
            elif " " in key or self.infix.search(key):
                self.patterns.add(tuple(self._plain(key)))
        self.max_pattern = max(len(p) for p in self.patterns)

    @staticmethod
    def _length(pattern: re.Pattern, s: str) -> int:
        m = pattern.search(s)
        return m.end() - m.start() if m else 0

    def _split_affixes(self, s: str, special: bool) -> tuple[list[str], str, list[str]]:
        """Strip prefixes and suffixes; with ``special`` stop as soon as an exception remains."""
        exc = self.exceptions if special else {}
        prefixes: list[str] = []
        suffixes: list[str] = []
        previous = -1
        while s and len(s) != previous:
            if s in exc:
                break
            previous = len(s)
            pl = self._length(self.prefix, s)
            if pl and s[pl:] and s[pl:] in exc:
                prefixes.append(s[:pl])
                s = s[pl:]
                break
            sl = self._length(self.suffix, s[pl:])
            if sl and s[:-sl] and s[:-sl] in exc:
                suffixes.append(s[-sl:])
                s = s[:-sl]
                break
            if pl and sl and pl + sl <= len(s):
                prefixes.append(s[:pl])
                suffixes.append(s[-sl:])
                s = s[pl:-sl]
            elif pl:
                prefixes.append(s[:pl])
                s = s[pl:]
            elif sl:
                suffixes.append(s[-sl:])
                s = s[:-sl]
        return prefixes, s, suffixes[::-1]

    def _split_infixes(self, s: str, special: bool) -> list[str]:
        if not s:
            return []
        if special and s in self.exceptions:
            return list(self.exceptions[s])
        if self.url(s):
            return [s]
        out: list[str] = []
        start = 0
        for m in self.infix.finditer(s):
            if m.start() == 0:  # an infix at the very start is not split off
                continue
            if m.start() > start:
                out.append(s[start : m.start()])
            if m.end() > m.start():
                out.append(m.group())
            start = m.end()
        if start < len(s):
            out.append(s[start:])
        return out

    def chunk(self, s: str, special: bool = True) -> list[str]:
        """Tokens of one whitespace-free chunk."""
        if special and s in self.exceptions:
            return list(self.exceptions[s])
        prefixes, core, suffixes = self._split_affixes(s, special)
        return prefixes + self._split_infixes(core, special) + suffixes

    def _plain(self, key: str) -> list[str]:
        """Rules only, no exceptions: how a key with a blank or affix would come out."""
        return [t for piece in key.split(" ") if piece for t in self.chunk(piece, special=False)]


@lru_cache(maxsize=1)
def _rules() -> _Rules:
    return _Rules()


def _base_tokens(text: str, rules: _Rules) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []

    def emit(a: int, b: int) -> None:
        if text[a:b].isspace():
            spans.append((a, b))
            return
        for piece in rules.chunk(text[a:b]):
            spans.append((a, a + len(piece)))
            a += len(piece)

    start = 0
    in_space = text[0].isspace()
    for i, ch in enumerate(text):
        if ch.isspace() != in_space:
            if start < i:
                emit(start, i)
            # one plain space after a word is that word's trailing whitespace, not a token
            start = i + 1 if ch == " " else i
            in_space = not in_space
    if start < len(text):
        emit(start, len(text))
    return spans


def _special_cases(text: str, spans: list[tuple[int, int]], rules: _Rules) -> list[tuple[int, int]]:
    """spaCy's matcher pass: multi-token special cases that affix rules had split apart."""
    orths = [text[a:b] for a, b in spans]
    found = [
        (i, i + n)
        for i in range(len(orths))
        for n in range(1, min(rules.max_pattern, len(orths) - i) + 1)
        if tuple(orths[i : i + n]) in rules.patterns
    ]
    if not found:
        return spans
    found.sort(key=lambda m: (m[0] - m[1], m[0]))  # longest first, then leftmost
    seen: set[int] = set()
    chosen: dict[int, int] = {}
    for s, e in found:
        if s not in seen and e - 1 not in seen:
            chosen[s] = e
        seen.update(range(s, e))  # rejected candidates block their tokens too, as in spaCy
    out: list[tuple[int, int]] = []
    i = 0
    while i < len(spans):
        e = chosen.get(i)
        if e is None:
            out.append(spans[i])
            i += 1
            continue
        a, b = spans[i][0], spans[e - 1][1]
        pieces = rules.exceptions.get(text[a:b])
        if pieces is None:
            out.extend(spans[i:e])
        else:
            for piece in pieces:
                out.append((a, a + len(piece)))
                a += len(piece)
        i = e
    return out


def tokenize(text: str) -> list[tuple[int, int]]:
    """Character spans of ``spacy.blank("en")``'s tokens of ``text``."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if not text:
        return []
    rules = _rules()
    return _special_cases(text, _base_tokens(text, rules), rules)


def token_texts(text: str) -> list[str]:
    """The token strings (what ``[t.text for t in nlp(text)]`` gives)."""
    return [text[a:b] for a, b in tokenize(text)]


@lru_cache(maxsize=1)
def _spacy_nlp():
    try:
        import spacy
    except ImportError as err:
        raise ImportError(
            'tokenizer="spacy" needs spaCy: pip install spacy (the default tokenizer gives '
            "spaCy's English tokens without it)"
        ) from err
    return spacy.blank("en")


def spacy_tokenize(text: str) -> list[tuple[int, int]]:
    """Character spans of spaCy's own ``spacy.blank("en")`` tokens (needs spaCy)."""
    return [(t.idx, t.idx + len(t.text)) for t in _spacy_nlp()(text)]


def get_tokenizer(name: str):
    """``"argbench"`` (default, pure Python) or ``"spacy"`` -> a text -> spans function."""
    if name in ("argbench", "default"):
        return tokenize
    if name == "spacy":
        return spacy_tokenize
    raise ValueError(f'tokenizer must be "argbench" or "spacy", got {name!r}')


def tokenizer_name(name: str) -> str:
    """How a metric signature names the tokenizer: ``argbench-spacy<version>-rules-<sha8>``
    (argbench's re-implementation, the spaCy version its rule tables come from and a short
    hash of those tables) or ``spacy-<version>`` (spaCy itself)."""
    from argbench.signature import short_hash

    get_tokenizer(name)  # the same error for an unknown name
    if name == "spacy":
        import spacy

        return f"spacy-{spacy.__version__}"
    rules = resources.files("argbench").joinpath("data/spacy_en.json").read_text("utf-8")
    found = re.search(r"spaCy (\d+(?:\.\d+)+)", json.loads(rules)["_about"])
    return f"argbench-spacy{found.group(1) if found else '?'}-rules-{short_hash(rules)}"
