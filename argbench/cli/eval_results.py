"""``argbench eval-results RESULTS``: a results file as the model repo's Hub eval-results entry
(:mod:`argbench.hub_eval`), written only for a leaderboard value: the file read back verified,
every item of the split scored, every judgment made, the benchmark task's protocol kept."""

from __future__ import annotations

import argparse
import sys

from argbench.io import check_output, claim_output, read_text, write_claimed
from argbench.results import read_results

_DESCRIPTION = """\
A results file of argbench evaluate --dataset ORG/NAME@vX --out FILE as the Hub's
eval-results entry: dataset id, task id (from the dataset's eval.yaml), the commit scored,
the metric's headline value, the date, the system (source.name) with a link to the full
record (source.url: --record-url, else urn:argbench:<the results file's digest>), and the
signature in notes. Only keys of the Hub's format are written: the Hub's parser
(huggingface_hub's parse_eval_result_entries) keeps every one of them.

Refused (exit 2, saying why): a results file that was edited (its values do not add up, or
it does not match its digest); partial results (--allow-missing, a harness --limit);
incomplete ones (complete: false); results computed with settings other than the task's
protocol (e.g. max_q:all or thr:>0.1 for cq_reference_match). --off-protocol writes such a
value, its notes starting with a line OFF-PROTOCOL: listing what differs.

--out DIR adds the entry to DIR/<task>.yaml: the other entries of that list are kept, only
the one for the same system, dataset, revision and task is replaced.
"""


def add_commands(subparsers) -> None:
    entry = subparsers.add_parser(
        "eval-results",
        help="turn a results file into the model repo's .eval_results/<task>.yaml entry",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    entry.add_argument("results", help="results file (argbench evaluate --out)")
    entry.add_argument(
        "--out", help="add the entry to <task>.yaml in this folder (e.g. .eval_results)"
    )
    entry.add_argument(
        "--off-protocol",
        action="store_true",
        help="write a value computed off the task's protocol; the entry says so (off_protocol)",
    )
    entry.add_argument(
        "--record-url",
        help="where the full record is published (the results file or its Every Eval Ever "
        "record): the entry's source.url",
    )
    entry.set_defaults(run=_cmd_eval_results)


def _cmd_eval_results(args) -> int:
    from pathlib import Path

    import yaml

    from argbench.hub_eval import eval_results_entry, merge_entries, read_entry

    if args.out is not None:  # before the results are read: a folder that can be written
        check_output(Path(args.out) / "entry.yaml", suffixes=(".yaml",), what="--out", create=False)
    name, entry = eval_results_entry(
        read_results(args.results), off_protocol=args.off_protocol, record_url=args.record_url
    )
    if args.out is None:
        print(yaml.safe_dump([entry], sort_keys=False, allow_unicode=True, width=1000), end="")
        return 0
    target = claim_output(Path(args.out) / name, suffixes=(".yaml",), what="--out")
    existing = read_text(target) if target.is_file() else None
    text, replaced = merge_entries(existing, entry, str(target))
    write_claimed(target, text, suffixes=(".yaml",), what="--out")
    how = (
        "replaced the entry of this system, dataset, revision and task in"
        if replaced
        else "added to"
    )
    print(f"{how} {target}: add it to the model repo's .eval_results/ (e.g. in a pull request)")
    off = read_entry(entry)["off_protocol"]
    if off:
        print("warning: off the task's protocol: " + "; ".join(off), file=sys.stderr)
    return 0
