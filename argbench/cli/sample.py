"""``argbench sample NAME --out FILE``: a real system output to score, written where the user
wants it, so the tutorials start from a file the reader has (never from the mirror's layout).

The samples are declared with the corpora's tasks (``sample:`` in ``argbench/tasks/<corpus>.yaml``):
a release file as it is, checked by its sha256 (CQs-Gen: the shared task's trial submission,
Llama 3 8B, 3 critical questions for each of 5 validation interventions), or rows of a split
written as JSON Lines predictions (CAM: the experts' own answers of the ``gold`` config).
"""

from __future__ import annotations

import json

from argbench.cli import UsageError, add_data_options
from argbench.io import atomic_write, claim_output
from argbench.loaders.registry import path_of
from argbench.tasks import samples


def add_commands(subparsers) -> None:
    declared = samples()
    command = subparsers.add_parser(
        "sample",
        help="write a real system output to score (to try evaluate and compare)",
        description="Write a sample system output for NAME to --out: "
        + "; ".join(f"{name}: {sample.what}" for name, sample in declared.items())
        + ".",
    )
    command.add_argument("name", metavar="NAME", help=f"one of: {', '.join(declared)}")
    command.add_argument("--out", required=True, help="the file to write (.json or .jsonl)")
    add_data_options(command)
    command.set_defaults(run=_cmd_sample)


def _cmd_sample(args) -> int:
    declared = samples()
    if args.name not in declared:
        raise UsageError(f"no sample for '{args.name}'; samples: {', '.join(declared)}")
    sample = declared[args.name]
    out = claim_output(args.out, suffixes=(".json", ".jsonl"))
    if sample.source:  # a release file, as it is
        data = path_of(sample.corpus, sample.source, args.sources).read_bytes()
        count = len(json.loads(data))
        where = f"{sample.corpus}/{sample.scored_on}"
    else:  # rows of a split, as predictions
        from argbench.load import load  # datasets: only when a sample is made from a split

        rows = load(
            sample.corpus,
            sample.config,
            split=sample.split,
            sources=args.sources,
            cache_dir=args.cache_dir,
        )
        data = "".join(json.dumps({f: row[f] for f in sample.fields}) + "\n" for row in rows)
        count = rows.num_rows
        where = f"{sample.corpus}/{sample.config}/{sample.split}"
    atomic_write(out, data)
    print(f"wrote {out}: {count} {sample.unit} of {where} ({sample.what})")
    return 0
