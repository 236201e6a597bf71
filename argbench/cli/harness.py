"""``argbench harness-path`` (lm-eval's --include_path for argbench's tasks) and ``argbench
import-harness`` (lm-eval / inspect-ai logs -> argbench results files)."""

from __future__ import annotations

import argparse
import sys

from argbench.scoring import headline_of

_IMPORT = """\
Turn what a harness wrote into argbench results files, one per task and metric, the same
format argbench evaluate --out writes (item ids, per-item values, signature, the split's
identity), plus the model and generation settings the harness reports. Then
argbench compare A.results.json B.results.json compares two models.

PATH: an lm-eval --output_path folder (run with --log_samples), an inspect-ai log file, or a
folder of inspect logs. A run that did not finish is refused (exit 1), and so is a run whose
outputs carry no information (every log-likelihood 0, every score tied, every generation
empty). The signature records what shaped the outputs (chat template, decoding, the ClaimDiff
method). Files are named after the model and the harness run's own id; an existing file is
never overwritten (the same run imported again is left as it is).
"""


def add_commands(subparsers) -> None:
    where = subparsers.add_parser(
        "harness-path",
        help="print the folder of argbench's lm-eval tasks (for lm_eval --include_path)",
        description="Print the folder to pass to lm_eval --include_path: the task files "
        "written from argbench's task declarations (once, into argbench's cache; a damaged "
        "copy is written again). inspect-ai finds the tasks itself (inspect eval "
        "argbench/cqs_gen). See docs/harness.md.",
    )
    where.set_defaults(run=_cmd_path)
    convert = subparsers.add_parser(
        "import-harness",
        help="lm-eval / inspect-ai logs of argbench tasks -> argbench results files",
        description=_IMPORT,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    convert.add_argument("paths", nargs="+", metavar="PATH")
    convert.add_argument(
        "--out", required=True, help="folder for the results files (checked before any work)"
    )
    convert.set_defaults(run=_cmd_import)


def _cmd_path(args) -> int:
    from argbench.harness import lm_eval_path

    print(lm_eval_path())
    return 0


def _cmd_import(args) -> int:
    from argbench.harness.convert import check_out, import_harness, save

    check_out(args.out)  # before any log is read or scored
    command = "argbench " + " ".join(args.argv)
    items = []
    for path in args.paths:
        items += import_harness(path, command=command)
    if not items:
        print("argbench import-harness: no argbench task in the given logs", file=sys.stderr)
        return 2
    for target, doc, written in save(items, args.out):
        key = headline_of(doc["metric"]).value
        value = doc["result"].get(key)
        shown = f"{key} {value:.4f}" if isinstance(value, (int, float)) else f"{key} -"
        missing = f", {doc['n_missing']:,} not run" if doc["n_missing"] else ""
        again = "" if written else " (already imported: left as it was)"
        print(f"{target}: {doc['n_items']:,} items{missing}; {shown}{again}")
        print(f"  signature: {doc['signature']}")
    return 0
