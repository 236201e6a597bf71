"""``argbench sample NAME --out FILE``: a real system output to score, written where the user
wants it, so the tutorials start from a file the reader has (never from the mirror's layout).

- ``cqs_gen``: the shared task's trial submission (Llama 3 8B, 3 critical questions for each
  of 5 validation interventions), the release file itself, checked by its sha256;
- ``cam_answers``: the CAM experts' own answers (``gold`` config) as predictions, one JSON
  Lines record per answer, in the format ``argbench evaluate`` reads.
"""

from __future__ import annotations

import json

import argbench
from argbench.cli import UsageError, add_data_options
from argbench.io import atomic_write, claim_output

SAMPLES = {
    "cqs_gen": "the shared task's trial submission output_llama8.json (5 validation interventions)",
    "cam_answers": "the experts' answers of the gold config, as JSON Lines predictions",
}


def add_commands(subparsers) -> None:
    command = subparsers.add_parser(
        "sample",
        help="write a real system output to score (to try evaluate and compare)",
        description="Write a sample system output for NAME to --out: "
        + "; ".join(f"{name}: {what}" for name, what in SAMPLES.items())
        + ".",
    )
    command.add_argument("name", metavar="NAME", help=f"one of: {', '.join(SAMPLES)}")
    command.add_argument("--out", required=True, help="the file to write (.json or .jsonl)")
    add_data_options(command)
    command.set_defaults(run=_cmd_sample)


def _cmd_sample(args) -> int:
    if args.name not in SAMPLES:
        raise UsageError(f"no sample for '{args.name}'; samples: {', '.join(SAMPLES)}")
    out = claim_output(args.out, suffixes=(".json", ".jsonl"))
    if args.name == "cqs_gen":
        from argbench.loaders.registry import path_of

        data = path_of("cqs_gen", "trial_output", args.sources).read_bytes()
        count = len(json.loads(data))
        what = f"{count} interventions of cqs_gen/interventions/validation"
    else:
        gold = argbench.load_dataset(
            "cam_answers", "gold", split="train", sources=args.sources, cache_dir=args.cache_dir
        )
        fields = ("question_id", "answer_index", "answer")
        data = "".join(json.dumps({f: row[f] for f in fields}) + "\n" for row in gold)
        count = gold.num_rows
        what = f"{count} answers of cam_answers/gold/train"
    atomic_write(out, data)
    print(f"wrote {out}: {what} ({SAMPLES[args.name]})")
    return 0
