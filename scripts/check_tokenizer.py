"""Agreement of argbench's pure-Python tokenizer with spacy.blank("en") on ClaimDiff's claims.

Needs spaCy (``pip install spacy``; not a dependency of argbench) and the source mirror:
ARGBENCH_SOURCES=/work/shared/sources python scripts/check_tokenizer.py
Counts every distinct claim_a / claim_b of every ClaimDiff file; a claim agrees when the token
texts and character offsets are identical.
"""

from __future__ import annotations

import os
import sys

import spacy

from argbench.loaders.claimdiff import release_claim_texts
from argbench.tokenize import tokenize


def main() -> None:
    root = os.environ.get("ARGBENCH_SOURCES")
    if not root:
        sys.exit("set ARGBENCH_SOURCES to the source mirror")
    nlp = spacy.blank("en")
    texts = release_claim_texts(root)
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
