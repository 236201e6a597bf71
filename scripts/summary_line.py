"""The one machine-readable line a bench prints per comparison, and the one parser of it.

Every ``scripts/bench_*.py`` prints, besides its output for people, one line per comparison::

    argbench-bench-summary: {"work": "...", "baseline": "...", "baseline_s": 1.0, "argbench_s": 0.5, "ratio": 2.0}

(one JSON object after the prefix; extra keys allowed). ``scripts/run_benches.py`` collects
them into ``benches.json`` and the docs' Performance page builds its summary table from them,
so the numbers in the table are the ones the bench measured, never typed by hand. This file is
not named ``bench_*`` so that run_benches does not take it for a bench.
"""

from __future__ import annotations

import json
import math

PREFIX = "argbench-bench-summary: "
KEYS = ("work", "baseline", "baseline_s", "argbench_s", "ratio")


class BadSummary(ValueError):
    """A summary line (or a ``summary`` entry of benches.json) that is not of the form above."""


def summary_line(work: str, baseline: str, baseline_s: float, argbench_s: float, **extra) -> str:
    """The line for one comparison; ``ratio`` is baseline_s / argbench_s (faster when > 1)."""
    record = {
        "work": work,
        "baseline": baseline,
        "baseline_s": baseline_s,
        "argbench_s": argbench_s,
        "ratio": float(f"{baseline_s / argbench_s:.6g}"),
        **extra,
    }
    check(record, "this bench")
    return PREFIX + json.dumps(record, ensure_ascii=False)


def print_summary(*args, **kwargs) -> None:
    print(summary_line(*args, **kwargs), flush=True)


def check(record, bench: str) -> dict:
    """``record`` if it has the keys with the right types and a ratio that matches the times,
    else :class:`BadSummary` naming the bench and what is wrong."""
    if not isinstance(record, dict):
        raise BadSummary(f"{bench}: summary is not a JSON object: {record!r}")
    missing = [k for k in KEYS if k not in record]
    if missing:
        raise BadSummary(f"{bench}: summary without {', '.join(missing)}: {record!r}")
    for key in ("work", "baseline"):
        if not isinstance(record[key], str) or not record[key].strip():
            raise BadSummary(f"{bench}: summary {key} must be a non-empty string: {record!r}")
    for key in ("baseline_s", "argbench_s", "ratio"):
        value = record[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise BadSummary(f"{bench}: summary {key} must be a number: {record!r}")
        if not math.isfinite(value) or value <= 0:
            raise BadSummary(f"{bench}: summary {key} must be a positive number: {record!r}")
    expected = record["baseline_s"] / record["argbench_s"]
    if not math.isclose(record["ratio"], expected, rel_tol=1e-3, abs_tol=1e-4):
        raise BadSummary(
            f"{bench}: summary ratio {record['ratio']} is not baseline_s / argbench_s "
            f"({expected:.4g}): {record!r}"
        )
    return record


def parse_summaries(text: str, bench: str) -> list[dict]:
    """Every summary line of a bench's output, checked; :class:`BadSummary` names the bench
    and the line number of the first malformed one."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.startswith(PREFIX.rstrip()):
            continue
        try:
            record = json.loads(line[len(PREFIX.rstrip()) :])
        except json.JSONDecodeError as error:
            raise BadSummary(
                f"{bench}: line {number}: summary is not JSON ({error}): {line!r}"
            ) from None
        found.append(check(record, f"{bench}: line {number}"))
    return found


def without_summaries(text: str) -> str:
    """A bench's output for people: the summary lines are in the table above it."""
    return "\n".join(line for line in text.splitlines() if not line.startswith(PREFIX.rstrip()))
