"""Citation parsing on one very long answer: argbench's linear parsers vs the quadratic ones
they replaced, measured in the same run on the same text.

.venv/bin/python scripts/bench_citations.py [--scale 1] [--small]

The answer is one line (a model that never breaks lines): sentences with capitals, a citation
group every few sentences, then a long tail of capitalised words with no citation (what made
the notebook's regex retry every capital to the line's end). For each parser two sizes, n and
2n characters (best of three times each): a linear parser's time doubles (growth ~2), a
quadratic one's quadruples (~4). Printed per parser: the times, the growth, and the old/new
ratio at the old parser's 2n. The run fails (exit 1)
when a new parser grows faster than :data:`LIMIT` or gives other results than the old one.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from argbench.citations import (
    _GROUP_RE,
    _ONE_RE,
    _STRIP,
    NOTEBOOK_EXCERPT_PATTERN,
    Excerpt,
    notebook_excerpts,
    parse_bracket,
    parse_citations,
)

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


def old_parse_citations(answer: str, where: str = "answer") -> list[Excerpt]:
    """The replaced parse_citations, whole: its line-start search went back to the answer's
    start for every citation group (quadratic on one long line)."""
    out: list[Excerpt] = []
    boundary = 0
    for group in _GROUP_RE.finditer(answer):
        line_start = answer.rfind("\n", 0, group.start()) + 1
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


def timed(function, text, repeat: int = 3) -> tuple[float, object]:
    """Best of ``repeat`` wall times (the machine may be shared), and the result."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        result = function(text)
        best = min(best, time.perf_counter() - start)
    return best, result


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
    print("one answer on one line; times are the best of three, growth is time(2n)/time(n)")
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
        if growth_new > LIMIT:
            print(f"  FAIL: {name} grows {growth_new:.1f}x from n to 2n (limit {LIMIT})")
            failed = True
        if any(measured["old", s][1] != measured["new", s][1] for s in (n_old, 2 * n_old)):
            print(f"  FAIL: {name} gives other results than the replaced parser")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
