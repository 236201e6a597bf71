"""Benchmark: argbench compare's statistics against scipy, measured in the same run.

Five systems × 4,136 items (the size of CQs-Gen's labelled validation questions) with
CQ-like per-item scores (0, 1/3, 2/3, 1), 10,000 resamples: every system's bootstrap
interval, every pair's difference interval and paired randomisation p-value.

argbench: ``argbench.scoring.significance.compare_systems`` (one resample matrix per batch,
shared by all systems and pairs, one matrix product each).
Baseline: scipy as a user would call it -- ``scipy.stats.bootstrap`` (percentile,
vectorised) per system and per pair (paired), ``scipy.stats.permutation_test``
(``permutation_type="samples"``: paired; statistic |mean difference|, alternative
"greater": the same two-sided p as argbench's) per pair, each with ``batch`` resamples at
a time.

The script checks that the intervals are scipy's (same seed, same draws) and that the
p-values agree within resampling noise (independent shuffles: 4 standard errors), then
prints the times and the ratio.

    python scripts/bench_compare.py [--systems 5] [--items 4136] [--resamples 10000]
"""

from __future__ import annotations

import argparse
import time
from itertools import combinations

import numpy as np
from summary_line import print_summary


def data(systems: int, items: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 4, items) / 3
    rows = [
        np.clip(base + rng.choice([-1 / 3, 0, 0, 0, 1 / 3], items) * k, 0, 1)
        for k in range(systems)
    ]
    return np.vstack(rows)


def with_scipy(scores, resamples, seed, batch):
    from scipy import stats

    def mean(x, axis=-1):
        return x.mean(axis=axis)

    def difference(x, y, axis=-1):
        return x.mean(axis=axis) - y.mean(axis=axis)

    systems = []
    for row in scores:
        ci = stats.bootstrap(
            (row,),
            mean,
            method="percentile",
            n_resamples=resamples,
            batch=batch,
            rng=np.random.default_rng(seed),
        ).confidence_interval
        systems.append((ci.low, ci.high))
    pairs = []
    for a, b in combinations(range(len(scores)), 2):
        ci = stats.bootstrap(
            (scores[a], scores[b]),
            difference,
            paired=True,
            method="percentile",
            n_resamples=resamples,
            batch=batch,
            rng=np.random.default_rng(seed),
        ).confidence_interval
        test = stats.permutation_test(  # p of |difference|: argbench's two-sided p
            (scores[a], scores[b]),
            lambda x, y, axis=-1: np.abs(difference(x, y, axis)),
            permutation_type="samples",
            alternative="greater",
            n_resamples=resamples,
            batch=batch,
            rng=np.random.default_rng(seed + 1),
        )
        pairs.append((ci.low, ci.high, test.pvalue))
    return systems, pairs


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--systems", type=int, default=5)
    parser.add_argument("--items", type=int, default=4136)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--batch", type=int, default=500, help="scipy's batch (memory)")
    parser.add_argument("--repeat", type=int, default=3, help="argbench runs (best is shown)")
    parser.add_argument("--small", action="store_true", help="CI size: 3 x 500 x 1,000, 1 run")
    args = parser.parse_args(argv)
    if args.small:
        args.systems, args.items, args.resamples, args.repeat = 3, 500, 1_000, 1

    from argbench.scoring.significance import compare_systems

    scores = data(args.systems, args.items)
    pairs = len(list(combinations(range(args.systems), 2)))
    print(
        f"{args.systems} systems x {args.items:,} items x {args.resamples:,} resamples: "
        f"{args.systems} intervals, {pairs} difference intervals, {pairs} p-values"
    )
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        ours = compare_systems(scores, resamples=args.resamples, seed=0)
        times.append(time.perf_counter() - start)
    t_ours = min(times)
    start = time.perf_counter()
    systems, pair_stats = with_scipy(scores, args.resamples, 0, args.batch)
    t_scipy = time.perf_counter() - start

    worst_ci = max(
        max(abs(s["low"] - lo), abs(s["high"] - hi))
        for s, (lo, hi) in zip(ours["systems"], systems, strict=True)
    )
    worst_pair_ci = max(
        max(abs(p["low"] - lo), abs(p["high"] - hi))
        for p, (lo, hi, _) in zip(ours["pairs"], pair_stats, strict=True)
    )
    noise = [  # 4 standard errors of the difference of two independent estimates
        4 * np.sqrt(2 * pv * (1 - pv) / args.resamples) + 2 / args.resamples
        for _, _, pv in pair_stats
    ]
    gaps = [abs(p["p_value"] - pv) for p, (_, _, pv) in zip(ours["pairs"], pair_stats, strict=True)]
    worst_p = max(gaps)
    p_ok = all(g <= tol for g, tol in zip(gaps, noise, strict=True))
    print(f"intervals vs scipy: max |diff| systems {worst_ci:.1e}, pairs {worst_pair_ci:.1e}")
    print(
        f"p-values vs scipy (independent shuffles): max |diff| {worst_p:.4f}, "
        f"{'all' if p_ok else 'NOT all'} within 4 standard errors"
    )
    print(
        f"time: scipy {t_scipy:.2f}s, argbench {t_ours:.2f}s (best of {args.repeat}: "
        f"{', '.join(f'{t:.2f}' for t in times)})  -> x{t_scipy / t_ours:.1f}"
    )
    print_summary(
        f"compare: {args.systems} systems x {args.items:,} items x {args.resamples:,} resamples "
        "(intervals, difference intervals, p-values)",
        "scipy.stats bootstrap + permutation_test",
        t_scipy,
        t_ours,
    )
    ok = worst_ci < 1e-9 and worst_pair_ci < 1e-9 and p_ok
    print("agreement: ok" if ok else "agreement: FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
