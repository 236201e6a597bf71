"""Measure argbench's citation parser on the real CAM silver + gold answers.

Prints, per bracket shape (digits -> N), how many groups there are and how many argbench reads
fully, then every bracket part that ends in ``unparsed``, and how the notebook's reading
differs. Needs the mirror: ARGBENCH_SOURCES=/work/shared/sources python scripts/check_citations.py
"""

from __future__ import annotations

import os
import re
import sys
from collections import Counter

from argbench.citations import notebook_citations, parse_bracket, parse_citations
from argbench.loaders.cam_answers import release_answer_texts


def main() -> None:
    root = os.environ.get("ARGBENCH_SOURCES")
    if not root:
        sys.exit("set ARGBENCH_SOURCES to the source mirror")
    texts = release_answer_texts(root)
    shapes: Counter[str] = Counter()
    read: Counter[str] = Counter()
    unparsed: Counter[str] = Counter()
    for text in texts:
        for inner in re.findall(r"\[(\[?[^\[\]\n]*)\]", text):
            shape = re.sub(r"\d+", "N", inner)
            shapes[shape] += 1
            numbers, generated, rest = parse_bracket(inner.lstrip("["))
            if not rest:
                read[shape] += 1
            unparsed.update(rest)
    print(f"{len(texts)} answers, {sum(shapes.values())} brackets")
    print(f"{'shape':<28} {'count':>6} {'read':>6}")
    for shape, n in shapes.most_common():
        print(f"{shape[:28]:<28} {n:>6} {read[shape]:>6}")
    print("unparsed parts:", dict(unparsed))
    ours = [e for t in texts for e in parse_citations(t)]
    theirs = [c for t in texts for c in notebook_citations(t)]
    print(
        f"excerpts: argbench {len(ours)} (with numbers {sum(bool(e.numbers) for e in ours)}),"
        f" notebook {len(theirs)} (with ids {sum(bool(i) for _, i in theirs)})"
    )
    no_cite = sum(not any(e.numbers for e in parse_citations(t)) for t in texts)
    nb_no_cite = sum(not any(i for _, i in notebook_citations(t)) for t in texts)
    print(f"answers citing no number: argbench {no_cite}, notebook {nb_no_cite}")


if __name__ == "__main__":
    main()
