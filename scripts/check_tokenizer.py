"""Agreement of argbench's pure-Python tokenizer with spacy.blank("en") on ClaimDiff's claims.

Needs spaCy (``pip install spacy``; not a dependency of argbench) and the source mirror:
ARGBENCH_SOURCES=/work/shared/sources python scripts/check_tokenizer.py
Counts every distinct claim_a / claim_b of every ClaimDiff file; a claim agrees when the token
texts and character offsets are identical.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import spacy

from argbench.tokenize import tokenize

CLAIMDIFF = "raw.githubusercontent.com/kaistAI/ClaimDiff/19d033c17dec6457fc807f01dfa31f535172f28a"


def claims(root: Path) -> list[str]:
    texts: set[str] = set()
    for path in sorted((root / CLAIMDIFF).glob("ClaimDiff-*/*.json")):
        for row in json.loads(path.read_text())["data"]:
            texts.update((row["claim_a"], row["claim_b"]))
    return sorted(texts)


def main() -> None:
    root = os.environ.get("ARGBENCH_SOURCES")
    if not root:
        sys.exit("set ARGBENCH_SOURCES to the source mirror")
    nlp = spacy.blank("en")
    texts = claims(Path(root))
    agree = tokens = token_agree = 0
    for text in texts:
        ours = tokenize(text)
        theirs = [(t.idx, t.idx + len(t.text)) for t in nlp(text)]
        agree += ours == theirs
        tokens += len(theirs)
        token_agree += len(set(ours) & set(theirs))
        if ours != theirs:
            print("DIFFERS:", repr(text))
    print(
        f"spaCy {spacy.__version__}: {agree}/{len(texts)} ClaimDiff claims tokenised identically "
        f"({100 * agree / len(texts):.2f}%); {token_agree}/{tokens} spaCy tokens reproduced"
    )


if __name__ == "__main__":
    main()
