"""``argbench compare RESULTS...``: systems scored on the same split, with paired bootstrap
confidence intervals and approximate-randomisation p-values (argbench.results.compare_results)."""

from __future__ import annotations

import argparse
import json
import sys

from argbench.cli import finite_float, positive_int, seed_int
from argbench.io import claim_output, save_figure
from argbench.results import compare_results, plain

_DESCRIPTION = """\
Compare two or more systems scored on the same corpus split (results files written by
argbench evaluate FILE --dataset D --out RESULTS.json).

For each system: its score (the mean of its per-item scores, i.e. the metric's figure) with a
percentile bootstrap interval; for each pair A, B: the difference A - B with its interval and
a two-sided paired approximate-randomisation p-value. Resampling is paired: the same item
resamples for every system (numpy default_rng(seed), as scipy.stats.bootstrap draws them);
the randomisation swaps each item's two scores with probability 1/2 (every swap pattern
when 2^items <= resamples: then p is exact).

Results must share the metric signature and the split (name, config, split, version, content
hash) and score the same items; otherwise compare refuses and names what differs. --force
compares anyway (on the common items) and says so in the output.

A system is its results file (its digest), not its name: two files that carry one name are
shown apart by a digest prefix ("Same [3f2a1b9c]"), and the same results given twice (the
file twice, or a copy) are compared once, the repeat named in the output.
"""

_EPILOG = """\
examples:
  argbench compare baseline.results.json mine.results.json
  argbench compare a.json b.json c.json --resamples 20000 --seed 1 --json
  argbench compare a.json b.json --plot scores.png
"""


def add_commands(subparsers) -> None:
    command = subparsers.add_parser(
        "compare",
        help="compare systems' results on one split: bootstrap intervals, significance",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    command.add_argument("results", nargs="+", metavar="RESULTS", help="results files (.json)")
    command.add_argument(
        "--key", help="per-item score to compare (default: the metric's headline figure)"
    )
    command.add_argument("--resamples", type=positive_int, default=10_000, help="default 10,000")
    command.add_argument("--seed", type=seed_int, default=0, help="random seed (default 0)")
    command.add_argument("--confidence", type=finite_float, default=0.95, help="default 0.95")
    command.add_argument(
        "--force", action="store_true", help="compare results whose signature or split differ"
    )
    command.add_argument("--json", action="store_true", help="print the comparison as JSON")
    command.add_argument("--plot", metavar="PNG", help="draw the scores with their intervals")
    command.set_defaults(run=_cmd_compare)


def _cmd_compare(args) -> int:
    # errors go through argbench.cli.main: exit 2 for bad input, as documented
    if args.resamples < 1:
        raise ValueError(f"--resamples must be >= 1, got {args.resamples}")
    if args.plot:
        claim_output(args.plot, inputs=args.results, suffixes=(".png",), what="--plot")
    comparison = compare_results(
        args.results,
        args.key,
        resamples=args.resamples,
        seed=args.seed,
        confidence=args.confidence,
        force=args.force,
    )
    if args.plot:
        plot(comparison, args.plot)
    if args.json:
        print(json.dumps(plain(comparison), ensure_ascii=False, allow_nan=False, indent=1))
    else:
        print(format_comparison(comparison))
    if args.plot:
        print(f"plot written to {args.plot}", file=sys.stderr)
    return 0


def _number(value) -> str:
    return "undefined" if value is None else f"{value:.4f}"


def format_comparison(c: dict) -> str:
    data = c.get("dataset") or {}
    where = "/".join(str(data[k]) for k in ("name", "config", "split") if data.get(k))
    content = str(data.get("content_hash", ""))[:19]
    level = f"{100 * c['confidence']:g}%"
    lines = [
        f"{c['metric']} {c['key']} on {where} (version {data.get('version')}, {content}), "
        f"{c['n_items']:,} items",
        f"signature: {c['signature']}",
        f"{level} intervals: paired percentile bootstrap, {c['resamples']:,} resamples, "
        f"seed {c['seed']}; p: paired approximate randomisation"
        + (
            " (exact: every swap pattern)" if c.get("p_exact") else f", {c['resamples']:,} shuffles"
        ),
    ]
    for what in c["forced"]:
        lines.append(f"FORCED (--force): {what}")
    for r in c.get("repeated", []):
        lines.append(f"compared once: {r['label']} holds the same results as {r['same_as']}")
    commits = {s.get("dataset_commit") for s in c["systems"]}
    if len(commits) > 1:  # the same content loaded at several Hub commits
        lines += [f"dataset commit of {s['name']}: {s.get('dataset_commit')}" for s in c["systems"]]
    width = max(len("system"), *(len(s["name"]) for s in c["systems"]))
    lines += ["", f"{'system':<{width}}  {c['key']:>8}  {level + ' CI':<18}  rank ({level})  group"]
    for s in c["systems"]:
        interval = f"[{_number(s['low'])}, {_number(s['high'])}]"
        lines.append(
            f"{s['name']:<{width}}  {_number(s['score']):>8}  {interval:<18}  "
            f"{_rank(s):<11}  {s['group']}"
        )
    if c["pairs"]:
        names = [f"{p['a']} - {p['b']}" for p in c["pairs"]]
        width = max(len("A - B"), *(len(n) for n in names))
        lines += ["", f"{'A - B':<{width}}  {'diff':>8}  {level} CI{'':<17}  p"]
        for name, p in zip(names, c["pairs"], strict=True):
            interval = f"[{p['low']:+.4f}, {p['high']:+.4f}]"
            lines.append(
                f"{name:<{width}}  {p['difference']:>+8.4f}  {interval:<22}  {p['p_value']:.4f}"
            )
    lines += [
        "",
        f"rank: {level} interval over the bootstrap resamples; group: systems sharing a letter "
        f"cannot be told apart ({c['ties']['method']})",
    ]
    return "\n".join(lines)


def _rank(system: dict) -> str:
    low, high = system["rank_low"], system["rank_high"]
    return f"{low}" if low == high else f"{low}-{high}"


def plot(c: dict, path) -> None:
    """Scores with their intervals, one row per system (matplotlib, the ``plots`` extra)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    systems = c["systems"]
    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.5 * len(systems)))
    y = list(range(len(systems)))[::-1]
    scores = [s["score"] for s in systems]
    errors = [[s["score"] - s["low"] for s in systems], [s["high"] - s["score"] for s in systems]]
    ax.errorbar(scores, y, xerr=errors, fmt="o", color="#4477aa", capsize=4)
    ax.set_yticks(y, [s["name"] for s in systems])
    ax.set_xlabel(f"{c['metric']} {c['key']} ({100 * c['confidence']:g}% bootstrap interval)")
    ax.set_title(f"{(c.get('dataset') or {}).get('name', '')}: {c['n_items']:,} items", fontsize=10)
    ax.margins(y=0.3)
    fig.tight_layout()
    save_figure(fig, path, dpi=120)
    plt.close(fig)
