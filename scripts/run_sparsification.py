"""The Webis-ArgQuality-20 sparsification study (Table 1) on UKPConvArg1, beside the paper's.

For every (x, k): the design's pairs and judgments, the paper's judgment count, ρ̄ with its
bootstrap 95 % CI, and the published ρ̄ and CI; "agrees" as ``paper_agreement`` defines it
(the difference within both CIs' combined half-widths, plus the paper's rounding). Ends with
the timings.

    ARGBENCH_SOURCES=../shared/sources python scripts/run_sparsification.py [--seed 0]
        [--repeats 1] [--workers 1] [--regularization 0.3 --threshold 0.01]
"""

from __future__ import annotations

import argparse
import time

from argbench.scoring.bradley_terry import WEBIS_EXAMPLE_PARAMETERS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=1, help="design draws per side and cell")
    parser.add_argument("--bootstrap", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--regularization", type=float, default=WEBIS_EXAMPLE_PARAMETERS[0])
    parser.add_argument("--threshold", type=float, default=WEBIS_EXAMPLE_PARAMETERS[1])
    parser.add_argument("--sources", help="mirror folder (default: $ARGBENCH_SOURCES)")
    parser.add_argument("--cache-dir", help="datasets cache folder")
    args = parser.parse_args()

    import argbench
    from argbench.reproduce.webis import paper_agreement, paper_table1
    from argbench.scoring.sparsification import sparsification_study, ukpconvarg1_topics

    start = time.perf_counter()
    full = argbench.load_dataset(
        "ukpconvarg1", "full", "train", sources=args.sources, cache_dir=args.cache_dir
    )
    topics = ukpconvarg1_topics(full)
    loaded = time.perf_counter()
    rows = sparsification_study(
        topics,
        seed=args.seed,
        repeats=args.repeats,
        bootstrap=args.bootstrap,
        workers=args.workers,
        regularization=args.regularization,
        threshold=args.threshold,
    )
    done = time.perf_counter()

    print(
        f"UKPConvArg1, {rows[0]['topics']} sides x 32 arguments, seed {args.seed}, "
        f"repeats {args.repeats}, λ={args.regularization}, τ={args.threshold}, "
        f"{args.bootstrap:,} bootstrap resamples"
    )
    header = (
        f"{'x':>2} {'k':>3} {'pairs':>5} {'judg.':>6} {'paper':>6} {'%':>6} {'paper%':>6} "
        f"{'present':>8} | {'ρ̄':>5} {'95% CI':>13} | {'paper':>5} {'95% CI':>13} | "
        f"{'diff':>6} agrees"
    )
    print(header)
    print("-" * len(header))
    diffs, agreed = [], 0
    for row in rows:
        paper = paper_table1().get((row["x"], row["k"]))
        ours = (
            f"{row['x']:>2} {row['k']:>3} {row['pairs']:>5} {row['judgments']:>6} "
            f"{row['judgments_paper']:>6} {row['judgments_percent']:>6.1f}"
        )
        tail = (
            f"{row['judgments_present']:>8.1f} | {row['rho']:>5.3f} "
            f"[{row['ci_low']:.3f}, {row['ci_high']:.3f}]"
        )
        if paper is None:
            print(f"{ours} {'—':>6} {tail} | (not in the paper's text)")
            continue
        diff, agree = paper_agreement(row)
        diffs.append(abs(diff))
        agreed += agree
        print(
            f"{ours} {paper[1]:>6} {tail} | {paper[2]:>5.2f} [{paper[3]:.2f}, {paper[4]:.2f}]"
            f"{'':>3} | {diff:>+6.3f} {'yes' if agree else 'NO'}"
        )
    print(
        f"\nrows compared: {len(diffs)}; agree: {agreed}; mean |ρ̄ − paper| "
        f"{sum(diffs) / len(diffs):.3f}, max {max(diffs):.3f}"
    )
    print(
        f"time: load + topics {loaded - start:.2f} s, study {done - loaded:.2f} s "
        f"({len(rows)} cells x {rows[0]['topics']} sides x {args.repeats} repeat(s) fits + "
        f"{rows[0]['topics']} baselines, {args.workers} worker(s)), total {done - start:.2f} s"
    )


if __name__ == "__main__":
    main()
