"""spaCy-compatible English tokenisation without spaCy.

The ClaimDiff paper scores rationales on spaCy's English tokens. This module re-implements
the algorithm of spaCy's ``Tokenizer`` (whitespace split, prefix/suffix/infix rules, special
cases, URL match, and the special-case matcher pass) in plain Python over the rule tables of
``spacy.blank("en")`` (spaCy 3.8.18, MIT; shipped in ``argbench/data/spacy_en.json``). How
often it agrees with spaCy on ClaimDiff's claims: ``scripts/check_tokenizer.py``.

``tokenize(text)`` returns ``(start, end)`` character spans, one per spaCy token, including
spaCy's whitespace tokens (extra spaces, newlines), so token indices equal spaCy's.

Speed (``scripts/bench_tokenizer.py`` times it against spaCy): like spaCy, the tokens of each
whitespace-separated chunk are cached, so a word's rules run once, not at every occurrence; and
a chunk seen for the first time skips the prefix/suffix/infix regexes that cannot match it
(``_Rules._prefilters``). The cache is bounded: at most 2 * ``CACHE_SIZE`` chunks of at most
``CACHE_CHUNK_CHARS`` characters: about 25 MB on ordinary text (130 bytes a chunk), and under
200 MB whatever the text.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib import resources

from argbench.signature import short_hash

__all__ = ["tokenize", "token_texts", "spacy_tokenize", "get_tokenizer", "tokenizer_name"]

CACHE_SIZE = 100_000  # chunks kept by the chunk cache
CACHE_CHUNK_CHARS = 64  # longer chunks (URLs, number runs) are tokenised but not kept

try:  # the regex parser, to derive the prefilters (none if it cannot read a pattern)
    from re import _constants as _C
    from re import _parser as _sre_parse
except ImportError:  # Python 3.10
    import sre_constants as _C
    import sre_parse as _sre_parse

_ONE = 1  # cache value of a chunk that is a single token
# chunks separated by single spaces (\S is "not str.isspace", spaCy's whitespace test)
_SEGMENT = re.compile(r"\S+(?: \S+)*")


class _Rules:
    """Compiled tables and the chunk cache; built once per process."""

    def __init__(self) -> None:
        data = json.loads(
            resources.files("argbench").joinpath("data/spacy_en.json").read_text("utf-8")
        )
        self.exceptions: dict[str, list[str]] = data["exceptions"]
        prefixes = [p for p in data["prefixes"] if p.strip()]
        suffixes = [p for p in data["suffixes"] if p.strip()]
        infixes = [p for p in data["infixes"] if p.strip()]
        # spaCy's compile_*_regex: alternation order matters (first match wins)
        self.prefix = re.compile("|".join("^" + p for p in prefixes)).search
        self.suffix = re.compile("|".join(p + "$" for p in suffixes)).search
        self.infix = re.compile("|".join(infixes)).finditer
        self.url = re.compile("(?u)" + data["url_pattern"]).match
        self._prefilters(prefixes, suffixes, infixes)
        # Matcher patterns: exception keys that affix/infix rules would split, keyed by the
        # token sequence the rules alone give (spaCy's _apply_special_cases).
        self.patterns: set[tuple[str, ...]] = set()
        pattern_keys = []
        for key in self.exceptions:
            if self.prefix_len(key) or self.suffix_len(key) or " " in key or any(self.infix(key)):
                self.patterns.add(tuple(self._plain(key)))
                pattern_keys.append(key)
        self.pattern_lengths: dict[str, list[int]] = {}
        for pattern in sorted(self.patterns, key=len):
            if pattern:
                self.pattern_lengths.setdefault(pattern[0], []).append(len(pattern))
        # The matcher pass changes tokens only where a match's text is an exception key. When
        # no such key holds whitespace, that match lies inside one chunk, so a text none of
        # whose chunks holds one (see _modifies) needs no pass.
        self.local = not any(
            any(c.isspace() for c in key) for key in pattern_keys if self._plain(key)
        )
        self.cache: dict[str, object] = {}
        self.old: dict[str, object] = {}
        self.pairs: dict[tuple[int, int], tuple[int, int]] = {}  # < CACHE_CHUNK_CHARS**2

    def _prefilters(self, prefixes: list[str], suffixes: list[str], infixes: list[str]) -> None:
        """What lets a chunk skip a regex (a miss spends most of its time in the suffix and
        infix searches, which try every alternative at every position; most words have
        neither): the characters a prefix can start with, an infix contain, and the suffix
        alternatives by their last character. None where the regex parser could not tell."""
        self.prefix_first = _union(_edge_chars(p) for p in prefixes)
        for p in prefixes:  # a top-level "|" would leave a branch without its ^
            anchored = _parse("^" + p)
            if anchored is None or anchored[0] != (_C.AT, _C.AT_BEGINNING):
                self.prefix_first = None
        infix_first = _union(_edge_chars(p) for p in infixes)
        if any(_edge_chars(p)[1] for p in infixes):  # an empty infix match splits too
            infix_first = None
        self.infix_first = None if infix_first is None else frozenset(infix_first)
        # suffixes: a match ends the string, so the longest match of any alternative is the
        # combined regex's (its leftmost start); each alternative is tried alone, indexed by
        # the characters it can end with: a plain string by endswith, any other by its own
        # regex from the last position it can start at, when its lookbehind's characters
        # occur in the string at all
        index: dict[str, list] = {}
        for p in suffixes:
            items, anchored = _parse(p), _parse(p + "$")
            last, _ = _edge_chars(p, last=True)
            if items is None or anchored is None or last is None:
                self.suffix_index = None  # cannot tell: the combined regex for every chunk
                return
            if anchored[-1] != (_C.AT, _C.AT_END):  # a top-level "|": $ is not on every branch
                self.suffix_index = None
                return
            if all(op is _C.LITERAL for op, _ in items):
                test = "".join(chr(av) for _, av in items)
            else:
                need = None
                if items and items[0][0] is _C.ASSERT and items[0][1][0] == -1:
                    behind, empty = _edge_chars(items[0][1][1])
                    need = None if behind is None or empty else frozenset(behind)
                width = items.getwidth()[1]
                test = (re.compile(p + "$").search, need, width if width < 1000 else None)
            for c in last:
                index.setdefault(c, []).append(test)
        self.suffix_index = index

    def prefix_len(self, s: str) -> int:
        """Length of ``s``'s prefix (spaCy's find_prefix)."""
        if self.prefix_first is not None and s[0] not in self.prefix_first:
            return 0
        return _length(self.prefix(s))

    def suffix_len(self, s: str) -> int:
        """Length of ``s``'s suffix (spaCy's find_suffix)."""
        if self.suffix_index is None or s[-1] == "\n":  # $ also matches before a last newline
            return _length(self.suffix(s))
        best = 0
        for test in self.suffix_index.get(s[-1], ()):
            if test.__class__ is str:
                if len(test) > best and s.endswith(test):
                    best = len(test)
                continue
            search, need, width = test
            if need is not None and need.isdisjoint(s):
                continue
            m = search(s) if width is None else search(s, max(0, len(s) - width))
            if m and m.end() - m.start() > best:
                best = m.end() - m.start()
        return best

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
            pl = self.prefix_len(s)
            if pl and s[pl:] and s[pl:] in exc:
                prefixes.append(s[:pl])
                s = s[pl:]
                break
            sl = self.suffix_len(s[pl:]) if len(s) > pl else 0
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
        if self.url(s) or (self.infix_first is not None and self.infix_first.isdisjoint(s)):
            return [s]
        out: list[str] = []
        start = 0
        for m in self.infix(s):
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

    def _modifies(self, tokens: list[str]) -> bool:
        """Whether a special-case pattern inside these tokens would re-split them."""
        for i, first in enumerate(tokens):
            for n in self.pattern_lengths.get(first, ()):
                found = tuple(tokens[i : i + n])
                if len(found) == n and found in self.patterns:
                    pieces = self.exceptions.get("".join(found))
                    if pieces is not None and tuple(pieces) != found:
                        return True
        return False

    def entry(self, chunk: str) -> object:
        """A chunk's tokens as ``_ONE`` or a tuple of relative spans, cached; a list of spans
        when the matcher pass may change them (``tokenize`` then runs it; never cached).

        Two generations approximate an LRU cache at no cost to a hit: when ``cache`` is full
        it becomes ``old`` (the previous ``old`` is dropped), and a chunk found in ``old`` moves
        back. At most 2 * CACHE_SIZE chunks are held, of at most CACHE_CHUNK_CHARS characters.
        """
        value = self.old.get(chunk)
        if value is None:
            tokens = self.chunk(chunk)
            spans = []
            a = 0
            for piece in tokens:
                spans.append((a, a + len(piece)))
                a += len(piece)
            if not self.local or self._modifies(tokens):
                return spans
            if len(spans) == 1:
                value = _ONE
            elif len(chunk) > CACHE_CHUNK_CHARS:
                return tuple(spans)
            else:  # the (start, end) pairs of all cached chunks are shared
                value = tuple([self.pairs.setdefault(span, span) for span in spans])
        if len(chunk) <= CACHE_CHUNK_CHARS:
            if len(self.cache) >= CACHE_SIZE:
                self.old = self.cache
                self.cache = {}
            self.cache[chunk] = value
        return value

    def clear(self) -> None:
        self.cache = {}
        self.old = {}

    def _plain(self, key: str) -> list[str]:
        """Rules only, no exceptions: how a key with a blank or affix would come out."""
        return [t for piece in key.split(" ") if piece for t in self.chunk(piece, special=False)]


def _length(match: re.Match | None) -> int:
    return match.end() - match.start() if match else 0


def _parse(pattern: str):
    try:
        parsed = _sre_parse.parse(pattern)
    except Exception:  # a private module: no fast path rather than a failure
        return None
    return None if parsed.state.flags & re.IGNORECASE else parsed


def _charset(items) -> set[str] | None:
    chars: set[str] = set()
    for op, av in items:
        if op is _C.LITERAL:
            chars.add(chr(av))
        elif op is _C.RANGE:
            chars.update(map(chr, range(av[0], av[1] + 1)))
        else:  # NEGATE, CATEGORY (\w, \d): not a small set
            return None
    return chars


def _edge_chars(pattern, last: bool = False) -> tuple[set[str] | None, bool]:
    """The characters a match of ``pattern`` (a string or parsed items) can consume first
    (``last``: last), or None if unknown; and whether it can consume nothing. A superset:
    used only to skip a regex that cannot match."""
    items = _parse(pattern) if isinstance(pattern, str) else pattern
    if items is None:
        return None, True
    chars: set[str] = set()
    for op, av in reversed(items) if last else items:
        if op in (_C.AT, _C.ASSERT, _C.ASSERT_NOT):
            continue  # zero width
        if op is _C.LITERAL:
            found, empty = {chr(av)}, False
        elif op is _C.IN:
            found, empty = _charset(av), False
        elif op is _C.SUBPATTERN and not (av[1] or av[2]):  # no inline flags
            found, empty = _edge_chars(av[3], last)
        elif op is _C.BRANCH:
            branches = [_edge_chars(b, last) for b in av[1]]
            found, empty = _union(branches), any(e for _, e in branches)
        elif op in (_C.MAX_REPEAT, _C.MIN_REPEAT):
            found, empty = _edge_chars(av[2], last)
            empty = empty or av[0] == 0
        else:
            return None, True
        if found is None:
            return None, True
        chars |= found
        if not empty:
            return chars, False
    return chars, True


def _union(results) -> set[str] | None:
    chars: set[str] = set()
    for found, _ in results:
        if found is None:
            return None
        chars |= found
    return chars


@lru_cache(maxsize=1)
def _rules() -> _Rules:
    return _Rules()


def _base_tokens(text: str, rules: _Rules) -> tuple[list[tuple[int, int]], bool]:
    """spaCy's whitespace split and each chunk's tokens; whether the matcher pass may apply."""
    spans: list[tuple[int, int]] = []
    special = False
    prev = 0  # end of the previous segment (0: none yet)
    for match in _SEGMENT.finditer(text):
        start, end = match.span()
        if start > prev:
            # one plain space after a chunk is its trailing whitespace; the rest is a token
            ws = prev + 1 if prev and text[prev] == " " else prev
            if start > ws:
                spans.append((ws, start))
        special |= _segment_tokens(match.group(), start, spans, rules)
        prev = end
    if prev < len(text):
        ws = prev + 1 if prev and text[prev] == " " else prev
        if len(text) > ws:
            spans.append((ws, len(text)))
    return spans, special


def _segment_tokens(segment: str, pos: int, spans: list[tuple[int, int]], rules: _Rules) -> bool:
    """Append the spans of chunks separated by single spaces (the hot loop: no calls on a
    cache hit); whether one of them may be changed by the matcher pass."""
    append = spans.append
    get = rules.cache.get
    one = _ONE
    special = False
    for chunk in segment.split(" "):
        value = get(chunk)
        if value is None:
            value = rules.entry(chunk)
            special = special or value.__class__ is list
        if value is one:
            end = pos + len(chunk)
            append((pos, end))
            pos = end + 1
        else:
            for a, b in value:
                append((pos + a, pos + b))
            pos += len(chunk) + 1
    return special


def _special_cases(text: str, spans: list[tuple[int, int]], rules: _Rules) -> list[tuple[int, int]]:
    """spaCy's matcher pass: multi-token special cases that affix rules had split apart."""
    orths = [text[a:b] for a, b in spans]
    found = [
        (i, i + n)
        for i, orth in enumerate(orths)
        for n in rules.pattern_lengths.get(orth, ())
        if i + n <= len(orths) and tuple(orths[i : i + n]) in rules.patterns
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
    spans, special = _base_tokens(text, rules)
    return _special_cases(text, spans, rules) if special else spans


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


def _clear_cache() -> None:
    """Empty the chunk cache (benchmarks start from a fresh state)."""
    _rules().clear()


def tokenizer_name(name: str) -> str:
    """How a metric signature names the tokenizer: ``argbench-spacy<version>-rules-<sha8>``
    (argbench's re-implementation, the spaCy version its rule tables come from and a short
    hash of those tables) or ``spacy-<version>`` (spaCy itself)."""
    get_tokenizer(name)  # the same error for an unknown name
    if name == "spacy":
        import spacy

        return f"spacy-{spacy.__version__}"
    rules = resources.files("argbench").joinpath("data/spacy_en.json").read_text("utf-8")
    found = re.search(r"spaCy (\d+(?:\.\d+)+)", json.loads(rules)["_about"])
    return f"argbench-spacy{found.group(1) if found else '?'}-rules-{short_hash(rules)}"
