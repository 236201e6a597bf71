"""``argbench merge FRAGMENTS... --out FILE``: a sharded run's fragments joined into its results
file, every corpus-level figure and interval recomputed (:mod:`argbench.results.merge`)."""

from __future__ import annotations

import argparse
import shlex
import sys

from argbench.io import check_text, claim_output
from argbench.results import merge_fragments, write_results

_DESCRIPTION = """\
Join the fragments of one sharded run (argbench evaluate FILE --dataset D --shard I/N --out
FRAGMENT) into the results file the same run makes in one process.

The fragments' per-item records are put back in the run's order and scored once: AUROC, F1
over items, bootstrap intervals and every other corpus-level figure come from all the items,
never from the shards' figures. Fragments of another metric, signature, split or run, two
fragments of one shard, and fragments that share an item are refused. With shards missing
the file is written as a partial merge: "complete": false and the shards merged and missing
(a leaderboard treats it as partial).
"""

_EPILOG = """\
examples:
  for i in 0 1 2 3; do argbench evaluate claim_relation preds.jsonl --dataset claimdiff \\
      --config s --threshold 0.5 --shard $i/4 --out part-$i.json; done
  argbench merge part-*.json --out results.json
"""


def add_commands(subparsers) -> None:
    command = subparsers.add_parser(
        "merge",
        help="join a sharded run's fragments into its results file (figures recomputed)",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    command.add_argument("fragments", nargs="+", metavar="FRAGMENT", help="fragments (.json)")
    command.add_argument("--out", required=True, metavar="RESULTS.json", help="results file")
    command.set_defaults(run=_cmd_merge)


def _cmd_merge(args) -> int:
    command = shlex.join(["argbench", *getattr(args, "argv", sys.argv[1:])])
    check_text(command, "the command line (a file name that is not UTF-8?)")
    claim_output(args.out, inputs=args.fragments, suffixes=(".json",), what="--out")
    doc = merge_fragments(
        args.fragments, command=command, note=lambda m: print(f"note: {m}", file=sys.stderr)
    )
    write_results(doc, args.out)
    shards = doc.get("shards")
    what = (
        f"partial merge: shards {', '.join(map(str, shards['merged']))} of {shards['count']}"
        if shards
        else f"{len(args.fragments)} fragment(s)"
    )
    print(f"{doc['metric']} of {doc['system']}: {doc['n_items']:,} items merged from {what}")
    print(f"signature: {doc['signature']}")
    print(f"results written to {args.out}", file=sys.stderr)
    if shards:
        print(
            "warning: shards "
            + ", ".join(f"{i}/{shards['count']}" for i in shards["missing"])
            + " missing: the file is marked complete: false",
            file=sys.stderr,
        )
    return 0
