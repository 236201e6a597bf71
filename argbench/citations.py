"""The one parser for citations in generated comparative answers (CAM-style ``[3, 5]`` tags).

Two readings live here, side by side, so that nothing else in argbench parses brackets:

* :func:`parse_citations` -- argbench's parser. Every bracket group becomes an :class:`Excerpt`
  (the answer text it belongs to, the argument numbers it cites, whether it is tagged
  generated). Every shape seen in the CAM silver and gold answers is read; a bracket part that
  is not a number, range, ``Argument N`` or generated tag is kept in ``unparsed``, never guessed.
* :func:`notebook_citations` -- exactly what the authors' notebook (``experiments.ipynb``)
  reads: excerpts found with ``([A-Z].+?)\\[(.+?)\\]`` and ids parsed by its
  ``parse_argument_ids``. Used to reproduce their numbers (``semantics="notebook"``).

Differences (measured on the real answers in ``scripts/check_citations.py``):

* the notebook regex only starts an excerpt at a capital letter on the same line, so a
  citation whose line has no capital letter before it (``... and faster [2]``) is missed, and
  an excerpt may begin mid-line; argbench starts an excerpt right after the previous citation
  group on the same line (or at the line start) and strips bullets and punctuation;
* the notebook drops a whole list when it mixes numbers and a spaced ``generated``
  (``[8, generated]`` -> ``[]``), and reads ``[Argument 3]`` as nothing; argbench keeps ``8``
  and ``3``;
* adjacent groups on one line (``[3][5]``, ``[11] [generated]``) are one excerpt here; the
  notebook makes the second one part of the next capital-letter match or skips it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "MAX_RANGE",
    "Excerpt",
    "parse_citations",
    "parse_bracket",
    "notebook_excerpts",
    "notebook_argument_ids",
    "notebook_citations",
    "NOTEBOOK_EXCERPT_PATTERN",
]


@dataclass(frozen=True)
class Excerpt:
    """One citation group of an answer and the answer text it belongs to."""

    text: str  # the answer text this citation belongs to (stripped)
    start: int  # character span of ``text`` in the answer
    end: int
    numbers: tuple[
        int, ...
    ]  # cited argument numbers (1-based), ranges expanded, order kept, unique
    generated: bool  # a generated tag ([generated], [Generated], [generated?], [[generated] ...)
    unparsed: tuple[str, ...]  # bracket parts that could not be read (free text)


# A bracket group: one or more [...] separated by spaces/tabs only (never a newline).
# ``\[?`` lets the stray double bracket ``[[generated]`` be one bracket.
_BRACKET = r"\[\[?[^\[\]\n]*\]"
_GROUP_RE = re.compile(rf"{_BRACKET}(?:[ \t]*{_BRACKET})*")
_ONE_RE = re.compile(r"\[\[?([^\[\]\n]*)\]")
_NUMBER_RE = re.compile(r"\d+")
_RANGE_RE = re.compile(r"(\d+)\s*[-\u2013]\s*(\d+)")
_ARGUMENT_RE = re.compile(r"argument\s+(\d+)", re.IGNORECASE)
# "generated" with stray characters: "generated?", "generated x3", "Generated Argument"
_GENERATED_RE = re.compile(r"generated(?:\s*\?|\s+x\d+|\s+argument)?\??", re.IGNORECASE)
_NUMBER_GENERATED_RE = re.compile(r"(\d+)\s+generated", re.IGNORECASE)
# The widest citation range expanded (``[1-200000]`` would hang, ``[1-100000000]`` exhaust
# memory); the CAM answers' widest is a few arguments, a question has at most ~30 arguments.
MAX_RANGE = 1000
# what is stripped around an excerpt: whitespace, markdown bullets/emphasis, sentence punctuation
_STRIP = " \t\r\n-*\u2022.,;:"


def _expand(lo: int, hi: int, where: str) -> range:
    if hi - lo + 1 > MAX_RANGE:
        raise ValueError(
            f"{where}: citation range [{lo}-{hi}] spans {hi - lo + 1:,} arguments; ranges are "
            f"limited to {MAX_RANGE:,} (argbench.citations.MAX_RANGE): is the range a typo?"
        )
    return range(lo, hi + 1)


def parse_bracket(content: str, where: str = "answer") -> tuple[list[int], bool, list[str]]:
    """Read the inside of one ``[...]``: (numbers, generated?, unparsed parts). A range wider
    than :data:`MAX_RANGE` is an error naming ``where``."""
    numbers: list[int] = []
    generated = False
    unparsed: list[str] = []
    if any(
        q in content for q in '"\u201c\u201d'
    ):  # quoted free text: one part, not split on commas
        return numbers, generated, [content.strip()]
    for raw in content.split(","):
        part = raw.strip()
        if not part:
            continue
        if _NUMBER_RE.fullmatch(part):
            numbers.append(int(part))
        elif m := _RANGE_RE.fullmatch(part):
            lo, hi = int(m.group(1)), int(m.group(2))
            if lo <= hi:
                numbers.extend(_expand(lo, hi, where))
            else:
                unparsed.append(part)
        elif m := _ARGUMENT_RE.fullmatch(part):
            numbers.append(int(m.group(1)))
        elif _GENERATED_RE.fullmatch(part):
            generated = True
        elif m := _NUMBER_GENERATED_RE.fullmatch(part):
            numbers.append(int(m.group(1)))
            generated = True
        else:
            unparsed.append(part)
    return numbers, generated, unparsed


def _line_start(answer: str, boundary: int, start: int, known: int) -> int:
    """Where the line holding ``start`` begins, searched back only to the previous group's
    end (``boundary``; ``known`` is the line start found before): linear over an answer. A
    search back to the answer's start made one long line quadratic (scripts/bench_citations.py
    measures both)."""
    newline = answer.rfind("\n", boundary, start)
    return newline + 1 if newline >= 0 else known


def parse_citations(answer: str, where: str = "answer") -> list[Excerpt]:
    """Split ``answer`` into excerpts, one per citation group, in order of appearance.

    An excerpt's text runs from the end of the previous citation group on the same line (or
    the line start) to the group, stripped of whitespace, bullets and punctuation; it may be
    empty (a line holding only citations). Brackets on one line separated by blanks only form
    one group.
    """
    if not isinstance(answer, str):
        raise TypeError(f"answer must be a str, got {type(answer).__name__}")
    out: list[Excerpt] = []
    boundary = line_start = 0
    for group in _GROUP_RE.finditer(answer):
        line_start = _line_start(answer, boundary, group.start(), line_start)
        lo, hi = max(boundary, line_start), group.start()
        while lo < hi and answer[lo] in _STRIP:
            lo += 1
        while hi > lo and answer[hi - 1] in _STRIP:
            hi -= 1
        numbers: list[int] = []
        generated = False
        unparsed: list[str] = []
        for inner in _ONE_RE.finditer(group.group()):
            n, g, u = parse_bracket(inner.group(1), where)
            numbers.extend(x for x in n if x not in numbers)
            generated = generated or g
            unparsed.extend(u)
        out.append(Excerpt(answer[lo:hi], lo, hi, tuple(numbers), generated, tuple(unparsed)))
        boundary = group.end()
    return out


# ---- the authors' notebook, reproduced (experiments.ipynb @ faf7f10) ----

NOTEBOOK_EXCERPT_PATTERN = re.compile(r"([A-Z].+?)\[(.+?)\]")


_CAPITAL_RE = re.compile(r"[A-Z]")


def notebook_excerpts(answer: str) -> list[tuple[str, str]]:
    """(excerpt, bracket content) pairs exactly as the notebook's ``split_text2args`` finds them.

    The excerpt is unstripped (it ends with the space before ``[``), as Jaccard/Levenshtein in
    the notebook see it. Same result as ``NOTEBOOK_EXCERPT_PATTERN.findall(answer)``, found in
    linear time: the regex retries every capital letter of a line with no citation to the
    line's end (quadratic on one long line). Here, per line: a match from capital ``p`` takes
    the first ``[`` at ``q >= p + 2`` whose line has a ``]`` at ``r >= q + 2`` (the first
    such); when the first ``[`` after ``p + 1`` has none, no later capital of the line matches.
    """
    out: list[tuple[str, str]] = []
    for line in answer.split("\n"):
        last_close = line.rfind("]")
        pos = 0
        while (capital := _CAPITAL_RE.search(line, pos)) is not None:
            p = capital.start()
            q = line.find("[", p + 2)
            if q < 0 or last_close < q + 2:
                break
            r = line.find("]", q + 2)
            out.append((line[p:q], line[q + 1 : r]))
            pos = r + 1
    return out


def notebook_argument_ids(ids: str, where: str = "answer") -> list[int]:
    """The notebook's ``parse_argument_ids``: ``[8, generated]`` -> [], ``[Argument 3]`` -> []."""
    try:
        return [int(i.replace(" generated", "")) for i in ids.split(", ")]
    except ValueError:
        pass
    out: list[int] = []
    try:
        if "-" in ids:
            for part in ids.split(", "):
                if "-" in part:
                    lo, hi = map(int, part.split("-"))
                    out.extend(_expand(lo, hi, where))
        elif " " not in ids and "generated" not in ids and ids != "Paris":
            out = [int(i) for i in ids.split(",")]
    except ValueError:  # the notebook's bare except: the answer then has no ids from this group
        return []
    return out


def notebook_citations(answer: str, where: str = "answer") -> list[tuple[str, list[int]]]:
    """(excerpt, ids) pairs as the notebook's scoring loop sees them."""
    return [(text, notebook_argument_ids(ids, where)) for text, ids in notebook_excerpts(answer)]
