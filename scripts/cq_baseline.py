"""Simple CQs-Gen baselines as shared-task submissions, to compare real systems against.

For each intervention of the cqs_gen validation split, three questions taken from its own
reference questions (the first three, in the release's order):

- ``references``: verbatim (what a perfect copier of the references would get: the labels
  of those three references, so not an upper bound on the score);
- ``shuffled``: the same questions with their words in a random order (seeded), a system
  that has the right vocabulary and no syntax;
- ``generic``: three questions that fit any argument (``GENERIC`` in argbench.scoring.cq_submissions), the same everywhere.

    python scripts/cq_baseline.py shuffled --out shuffled.json [--like trial_output.json]

``--like SUBMISSION`` keeps only that submission's interventions (e.g. the release's 5-item
trial output), so the two score the same items.
"""

from __future__ import annotations

import argparse
import json
import random

# one definition of the baselines, shared with the leaderboard's CQs-Gen page
from argbench.scoring.cq_submissions import baseline_questions


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kind", choices=["references", "shuffled", "generic"])
    parser.add_argument("--out", required=True, help="submission file to write (.json)")
    parser.add_argument("--like", help="keep only the interventions of this submission")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sources", help="source mirror (default: $ARGBENCH_SOURCES)")
    args = parser.parse_args(argv)

    import argbench

    split = argbench.load_dataset("cqs_gen", "interventions", "validation", sources=args.sources)
    keep = None
    if args.like:
        with open(args.like, encoding="utf-8") as handle:
            keep = set(json.load(handle))
    rng = random.Random(args.seed)
    submission = {}
    for row in split:
        if keep is not None and row["intervention_id"] not in keep:
            continue
        texts = baseline_questions(args.kind, row["references"], rng)
        submission[row["intervention_id"]] = {
            "intervention_id": row["intervention_id"],
            "cqs": [{"id": i, "cq": q} for i, q in enumerate(texts)],
        }
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(submission, handle, ensure_ascii=False, indent=1)
    print(f"{len(submission)} interventions -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
