"""Citation parsing on one very long answer: argbench's linear parsers vs the quadratic ones
they replaced, measured in the same run on the same text.

.venv/bin/python scripts/bench_citations.py [--scale 1] [--small]

The answer is one line (a model that never breaks lines): sentences with capitals, a citation
group every few sentences, then a long tail of capitalised words with no citation (what made
the notebook's regex retry every capital to the line's end). For each parser two sizes, n and
2n characters (best of five CPU times each): a linear parser's time doubles (growth ~2), a
quadratic one's quadruples (~4). Printed per parser: the times, the growth, and the old/new
ratio at the old parser's 2n. The run fails (exit 1)
when a new parser grows faster than :data:`LIMIT` or gives other results than the old one.
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
from unittest import mock

from summary_line import print_summary

from argbench import citations
from argbench.citations import NOTEBOOK_EXCERPT_PATTERN, notebook_excerpts, parse_citations

LIMIT = 3.0  # growth from n to 2n characters above which a parser is not linear


def answer(chars: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    words = "Cars bikes Trains are faster cheaper Safer than the other option in town".split()
    parts, size = [], 0
    while size < chars // 2:
        sentence = " ".join(rng.choice(words) for _ in range(8)) + "."
        if rng.random() < 0.3:
            sentence += f" [{rng.randint(1, 30)}, {rng.randint(1, 30)}]"
        parts.append(sentence)
        size += len(sentence) + 1
    tail = " ".join(rng.choice(words) for _ in range((chars - size) // 6))
    return " ".join(parts) + " " + tail


def _old_line_start(answer: str, boundary: int, start: int, known: int) -> int:
    """The replaced search: back to the answer's start for every citation group."""
    return answer.rfind("\n", 0, start) + 1


def old_parse_citations(answer: str) -> list:
    """parse_citations as it was: the same code with the replaced line-start search."""
    with mock.patch.object(citations, "_line_start", _old_line_start):
        return parse_citations(answer)


def timed(function, text, repeat: int = 5) -> tuple[float, object]:
    """Best of ``repeat`` CPU times (the machine may be shared; the garbage collector off, so
    that a collection of earlier results does not land in one size's time), and the result."""
    best = float("inf")
    gc.collect()
    gc.disable()
    try:
        for _ in range(repeat):
            start = time.process_time()
            result = function(text)
            best = min(best, time.process_time() - start)
            del result
        return best, function(text)
    finally:
        gc.enable()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every size")
    parser.add_argument("--small", action="store_true", help="a quarter of the sizes (CI)")
    args = parser.parse_args(argv)
    scale = args.scale / (4 if args.small else 1)
    # (old parser's n, new parser's n): the old notebook regex is quadratic with a large
    # constant, so it runs at a smaller n; the new ones run where their times are not noise
    sizes = {
        "notebook_excerpts": (int(160_000 * scale), int(8_000_000 * scale)),
        "parse_citations": (int(8_000_000 * scale), int(8_000_000 * scale)),
    }
    pairs = {
        "notebook_excerpts": (NOTEBOOK_EXCERPT_PATTERN.findall, notebook_excerpts),
        "parse_citations": (old_parse_citations, parse_citations),
    }
    texts: dict[int, str] = {}
    failed = False
    print(
        "one answer on one line; times are the best of five CPU times, growth is time(2n)/time(n)"
    )
    for name, (old, new) in pairs.items():
        n_old, n_new = sizes[name]
        measured = {}
        for label, function, n in (("old", old, n_old), ("new", new, n_old), ("new", new, n_new)):
            for size in (n, 2 * n):
                text = texts.setdefault(size, answer(size))
                measured[label, size] = timed(function, text)
        growth_old = measured["old", 2 * n_old][0] / measured["old", n_old][0]
        growth_new = measured["new", 2 * n_new][0] / measured["new", n_new][0]
        ratio = measured["old", 2 * n_old][0] / measured["new", 2 * n_old][0]
        print(
            f"{name:18} old at {n_old:,}/{2 * n_old:,} chars: {measured['old', n_old][0]:.3f}s"
            f" / {measured['old', 2 * n_old][0]:.3f}s (growth {growth_old:.1f}); new at "
            f"{n_new:,}/{2 * n_new:,}: {measured['new', n_new][0]:.3f}s / "
            f"{measured['new', 2 * n_new][0]:.3f}s (growth {growth_new:.1f}); "
            f"old/new at {2 * n_old:,} chars: {ratio:.1f}x"
        )
        print_summary(
            f"{name}: one answer of {2 * n_old:,} chars (CPU time)",
            "the replaced quadratic parser",
            measured["old", 2 * n_old][0],
            measured["new", 2 * n_old][0],
        )
        if growth_new > LIMIT:
            print(f"  FAIL: {name} grows {growth_new:.1f}x from n to 2n (limit {LIMIT})")
            failed = True
        if any(measured["old", s][1] != measured["new", s][1] for s in (n_old, 2 * n_old)):
            print(f"  FAIL: {name} gives other results than the replaced parser")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
