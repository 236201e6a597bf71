"""Which refusal of which subcommand exits with which status: the table behind docs/errors.md.

:data:`argbench.cli.EXIT_CODES` says what each status means; :data:`REFUSALS` lists, per
subcommand, the refusals a user meets and the status each exits with, by the one rule: bad
input or usage 2 (fix what you gave and run again), a run that failed 1 (the same command may
work later: an endpoint back up, a disk with room). ``tests/test_hostile_results.py`` makes
each refusal happen and checks its status against this table; docs/errors.md's tables are
rendered from it (:func:`markdown`; ``python -m argbench.cli.exits docs/errors.md`` rewrites
them, and the docs build renders them again).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NamedTuple

from argbench.cli import EXIT_CODES

__all__ = ["BEGIN", "END", "REFUSALS", "Refusal", "exit_for", "markdown", "rewrite"]


class Refusal(NamedTuple):
    command: str  # the subcommand ("*": every one)
    case: str  # a short name (the test's key)
    status: int
    what: str


REFUSALS: list[Refusal] = [
    Refusal("*", "usage", 2, "an unknown command or flag (the subcommand's usage, the closest flag)"),
    Refusal("*", "disk-full", 1, "an output that cannot be written (full disk): the old file is left as it was"),
    Refusal("*", "interrupted", 130, "Ctrl-C: outputs are left as they were"),
    Refusal("evaluate", "option", 2, "an unknown option, column, metric, dataset, config or split"),
    Refusal("evaluate", "record", 2, "a record with a missing field or a value of the wrong type or range (named: file, record, field)"),
    Refusal("evaluate", "ids", 2, "predictions missing items of the split (without --allow-missing), unknown or repeated ids (named: file, line)"),
    Refusal("evaluate", "out", 2, "an --out or --plot that is an input, of another suffix, not writable or being written by another run (before the work)"),
    Refusal("evaluate", "judgments", 1, "LLM judgments that failed (without --allow-incomplete) or an endpoint that stopped answering"),
    Refusal("compare", "edited", 2, "a results file that is edited, truncated or not a results file (named: file, field)"),
    Refusal("merge", "fragments", 2, "fragments of different metrics, signatures, splits or runs, one shard twice, overlapping items, or a file that is not a fragment (named: files); missing shards make a partial merge marked complete: false (exit 0)"),
    Refusal("evaluate", "shard", 2, "--shard that is not I/N with 0 <= I < N, or without --dataset --out (FILE: predictions; none: the split's own records), or with --references"),
    Refusal("compare", "not-comparable", 2, "results of different metrics, signatures, splits or items (without --force)"),
    Refusal("compare", "same-results", 2, "fewer than two different results: one file given twice, or a copy of it (named, with the digest); a repeat beside other results is compared once and named"),
    Refusal("eval-results", "edited", 2, "a results file that is edited or not a results file"),
    Refusal("eval-results", "partial", 2, "partial results: items of the split not scored (--allow-missing, a harness --limit)"),
    Refusal("eval-results", "incomplete", 2, "incomplete results: complete: false (--allow-incomplete)"),
    Refusal("eval-results", "off-protocol", 2, "settings other than the task's protocol (without --off-protocol)"),
    Refusal("eval-results", "not-a-task", 2, "a metric and split that are no benchmark task, or a dataset not from the Hub"),
    Refusal("eval-results", "out", 2, "an --out that cannot be written, or whose `<task>.yaml` is not a list of entries or holds what Python cannot hold (named: file, field; nothing written)"),
    Refusal("export eee", "edited", 2, "a results file that is edited, truncated or not a results file: nothing is written"),
    Refusal("pairwise fit", "judgments", 2, "a judgments file with a bad line (named: file, line)"),
    Refusal("pairwise fit", "not-converged", 1, "a fit that did not converge (without --allow-nonconverged)"),
    Refusal("build", "dataset", 2, "an unknown dataset"),
    Refusal("build", "offline", 1, "a source file that cannot be fetched (offline, no mirror)"),
    Refusal("publish", "credentials", 2, "no Hugging Face token, or a token the Hub refuses (HTTP 401/403)"),
    Refusal("publish", "offline", 1, "the Hub cannot be reached or fails a step (HTTP 5xx)"),
    Refusal("reproduce", "out", 2, "an output that cannot be written where it goes (a folder in its place)"),
    Refusal("import-harness", "path", 2, "a log path that does not exist or is not a harness log"),
    Refusal("import-harness", "broken", 2, "a results or samples file that is truncated, not UTF-8, a JSON list or names no metric (named: file, line, field)"),
    Refusal("import-harness", "out", 2, "an --out that is a file or cannot be made (before any log is read)"),
    Refusal("import-harness", "collision", 2, "an output name that already holds another run's results (never overwritten)"),
    Refusal("import-harness", "prompt", 2, "a run whose logged prompt is not the task's current prompt (a run of an older task version; named: file, record)"),
    Refusal("import-harness", "degenerate", 1, "a run whose outputs carry no information (every log-likelihood 0 or equal, every score tied, every generation empty): nothing written"),
    Refusal("publish", "repo-id", 2, "a repo id the Hub would refuse (checked before any build)"),
    Refusal("publish", "other-corpus", 2, "a repo that holds another corpus (without --replace-other-corpus)"),
    Refusal("publish", "tag", 1, "a tag the Hub did not make, or not at the commit just uploaded: not said to be published"),
    Refusal("submissions", "collision", 2, "an --out that holds results of a run with other settings (model, threshold, resamples, version): nothing is written over them"),
    Refusal("leaderboard", "results", 2, "a results file that is edited, truncated, partial beyond repair or not a results file (named: file, field)"),
]  # fmt: skip


def exit_for(command: str, case: str) -> int:
    """The status the table gives refusal ``case`` of ``command``: tests assert against this,
    so the table, the docs and the code cannot drift apart."""
    for refusal in REFUSALS:
        if (refusal.command, refusal.case) == (command, case):
            return refusal.status
    raise KeyError(f"no refusal {case!r} of {command!r} in argbench.cli.exits.REFUSALS")


BEGIN = "<!-- generated by argbench.cli.exits: do not edit by hand -->"
END = "<!-- end of generated tables -->"


def markdown() -> str:
    """The exit status table (EXIT_CODES) and, per subcommand, its refusals with their status."""
    lines = ["| status | meaning |", "|---|---|"]
    lines += [f"| `{code}` | {meaning} |" for code, meaning in EXIT_CODES.items()]
    lines += ["", "Which refusal exits with which status, per subcommand:", ""]
    lines += ["| subcommand | refused | status |", "|---|---|---|"]
    for refusal in REFUSALS:
        command = "every subcommand" if refusal.command == "*" else f"`{refusal.command}`"
        lines.append(f"| {command} | {refusal.what} | `{refusal.status}` |")
    return "\n".join([BEGIN, "", *lines, "", END])


def rewrite(text: str) -> str:
    """``text`` (a markdown page) with its generated block replaced by :func:`markdown`."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise ValueError(f"no generated block ({BEGIN} ... {END}) in the page")
    return text[:start] + markdown() + text[end + len(END) :]


if __name__ == "__main__":  # python -m argbench.cli.exits docs/errors.md
    from argbench.io import atomic_write

    page = Path(sys.argv[1])
    atomic_write(page, rewrite(page.read_text(encoding="utf-8")))
