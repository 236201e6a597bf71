"""Measure argbench's citation parser on the real CAM silver + gold answers.

Prints, per bracket shape (digits -> N), how many groups there are and how many argbench reads
fully, then every bracket part that ends in ``unparsed``, and how the notebook's reading
differs. Needs the mirror: ARGBENCH_SOURCES=/work/shared/sources python scripts/check_citations.py
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections import Counter
from pathlib import Path

from argbench.citations import notebook_citations, parse_bracket, parse_citations

CAM = "raw.githubusercontent.com/uhh-lt/cam-arg-relevance/7597cbd08047bf37d2569fba872727a30bf2eca4/data"


def answers(root: Path) -> list[str]:
    """silver_112x3 (which contains silver_50x3) and gold answers, as DESIGN.md counts them."""
    silver = json.loads((root / CAM / "silver_112x3.json").read_text())
    gold = json.loads((root / CAM / "gold_40_plus_10x4.json").read_text())
    return [a for x in silver for a in x["gpt_answers"]] + [
        a for x in gold for a in x["comparison"]
    ]


def main() -> None:
    root = os.environ.get("ARGBENCH_SOURCES")
    if not root:
        sys.exit("set ARGBENCH_SOURCES to the source mirror")
    texts = answers(Path(root))
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
