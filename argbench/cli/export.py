"""``argbench export eee RESULTS... --out DIR``: results files as Every Eval Ever records
(:mod:`argbench.eee`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from argbench.io import read_json
from argbench.results import RESULTS_FORMAT, read_results

_DESCRIPTION = """\
Results files (argbench evaluate --out, argbench import-harness, argbench submissions, a
leaderboard's or Space's folder of them) as Every Eval Ever records: for each run, an
aggregate DIR/data/argbench_<corpus>/<developer>/<system>/<uuid>.json (every figure the
metric declares, its direction and range, the signature's settings, the LLM judge, the
bootstrap interval, argbench and its version, the split's version, commit and content hash)
and the per-item <uuid>_samples.jsonl. The uuid comes from the signature and the results
file's digest: exporting a run again gives the same ids and files.

Every results file is read back verified first; an edited, truncated or foreign results file
is refused (exit 2) and nothing is written. A folder contributes every .json file under it
that says it is an argbench results file; other .json files (space.json, leaderboard.json)
are named on stderr and skipped. Check the output with
  python -m every_eval_ever validate 'DIR/data/*/*/*/*.json' 'DIR/data/*/*/*/*.jsonl'
"""


def add_commands(subparsers) -> None:
    export = subparsers.add_parser(
        "export",
        help="results files in another format (eee: Every Eval Ever records)",
        description="Results files in formats other tools read.",
    )
    formats = export.add_subparsers(dest="format", required=True)
    eee = formats.add_parser(
        "eee",
        help="Every Eval Ever records (aggregate .json and per-item _samples.jsonl)",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example:\n  argbench export eee results/*.json --out eee/",
    )
    eee.add_argument("results", nargs="+", metavar="RESULTS", help="results files or folders")
    eee.add_argument("--out", required=True, help="the datastore root (records go to OUT/data/)")
    eee.add_argument(
        "--developer",
        default="unknown",
        help="the developer of systems whose name has no org/ prefix (EEE files records "
        "under it; default: unknown, which its validator warns about)",
    )
    eee.set_defaults(run=_cmd_eee)


def _results_files(arguments) -> list[Path]:
    """The results files named: a file as given (read_results judges it), a folder's .json
    files that claim the results format (the others named on stderr)."""
    out = []
    for argument in map(Path, arguments):
        if not argument.is_dir():
            out.append(argument)
            continue
        for path in sorted(argument.rglob("*.json")):
            try:
                claims = read_json(path).get("format") == RESULTS_FORMAT
            except (ValueError, AttributeError):
                claims = False
            if claims:
                out.append(path)
            else:
                print(f"skipped {path}: not an argbench results file", file=sys.stderr)
    if not out:
        raise ValueError(f"no results file in {', '.join(map(str, arguments))}")
    return out


def _cmd_eee(args) -> int:
    from argbench.eee import records

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(f"--out {out}: a file, not a folder")
    # every file read back verified before anything is written: a refused file stops the export
    docs = [(str(path), read_results(path)) for path in _results_files(args.results)]
    made = [records(doc, source=source, developer=args.developer) for source, doc in docs]
    for record in made:
        for note in record.notes:
            print(f"note: {note}", file=sys.stderr)
        for path in record.write(out):
            print(path)
    return 0
