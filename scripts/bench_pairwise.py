"""Benchmark: argbench's Bradley–Terry fit against a straightforward implementation.

All 60 topic × dimension fits of Webis-ArgQuality-20 (release parameters per dimension), twice:
- baseline: the log-likelihood as a Python loop over judgments (log10, as the authors' reference
  model), minimised by scipy BFGS with numeric gradients, start 1, maxiter 100 — what
  ``bradleyterry.py`` does;
- argbench: ``fit_bradley_terry`` (vectorised, analytic gradient and Hessian, damped Newton).
Prints per-fit Pearson r between the two, the time of each and the speed ratio.

    ARGBENCH_SOURCES=../shared/sources python scripts/bench_pairwise.py [--limit N]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np


def baseline_fit(item_a, item_b, outcome, regularization, threshold):
    """Python-loop log10 likelihood + BFGS on finite differences (the reference model's way)."""
    from scipy.optimize import minimize

    items = sorted(set(item_a) | set(item_b))
    index = {item: i for i, item in enumerate(items)}
    comparisons = []
    for a, b, o in zip(item_a, item_b, outcome, strict=True):
        if o == 1:  # B won: winner first
            comparisons.append((index[b], index[a], False))
        else:
            comparisons.append((index[a], index[b], o == 2))
    theta = math.exp(threshold)
    dummy = math.exp(1.0)

    def negative_log_likelihood(merits):
        total = 0.0
        for i, j, tie in comparisons:
            pi, pj = math.exp(merits[i]), math.exp(merits[j])
            if tie:
                p = pi * pj * (theta * theta - 1) / ((pi + theta * pj) * (theta * pi + pj))
            else:
                p = pi / (pi + theta * pj)
            total += math.log10(p)
        for m in merits:
            p = math.exp(m)
            total += regularization * (
                math.log10(p / (p + dummy)) + math.log10(dummy / (dummy + p))
            )
        return -total

    result = minimize(
        negative_log_likelihood, np.ones(len(items)), method="BFGS", options={"maxiter": 100}
    )
    return items, result.x


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, help="only the first N fits (quick look)")
    parser.add_argument("--sources", help="source mirror (default: $ARGBENCH_SOURCES)")
    args = parser.parse_args()

    import argbench
    from argbench.scoring.bradley_terry import WEBIS_PARAMETERS, fit_bradley_terry, fit_webis

    pairwise = argbench.load_dataset(
        "webis_argquality20", "pairwise", "train", sources=args.sources
    )
    names = pairwise.features["dimension"].names
    columns = pairwise.with_format("numpy")[:]
    key_a = (columns["discussion_id_a"].astype(np.int64) << 32) | columns["argument_id_a"]
    key_b = (columns["discussion_id_b"].astype(np.int64) << 32) | columns["argument_id_b"]
    groups = {}
    for i, (t, d) in enumerate(zip(columns["topic_id"], columns["dimension"], strict=True)):
        groups.setdefault((int(t), names[d]), []).append(i)
    keys = sorted(groups)[: args.limit]
    inputs = {
        k: (
            key_a[groups[k]],
            key_b[groups[k]],
            columns["winner"][groups[k]],
            *WEBIS_PARAMETERS[k[1]],
        )
        for k in keys
    }

    # argbench, fit by fit on the same arrays (best of 3 runs of all fits)
    ours_seconds = []
    for _ in range(3):
        start = time.perf_counter()
        ours = {
            k: fit_bradley_terry(a, b, o, regularization=lam, threshold=tau)
            for k, (a, b, o, lam, tau) in inputs.items()
        }
        ours_seconds.append(time.perf_counter() - start)
    ours_time = min(ours_seconds)
    end_to_end = None
    if args.limit is None:
        start = time.perf_counter()
        fit_webis(pairwise, "release")
        end_to_end = time.perf_counter() - start

    print(f"{'topic':>5} {'dimension':<12} {'items':>5} {'judg.':>6} {'baseline s':>10} "
          f"{'argbench ms':>11} {'ratio':>7} {'pearson':>10}")  # fmt: skip
    print("(argbench ms = mean per fit over the timed run of all fits)")
    baseline_time, rs = 0.0, []
    for k, (a, b, o, lam, tau) in inputs.items():
        start = time.perf_counter()
        items, merits = baseline_fit(a.tolist(), b.tolist(), o.tolist(), lam, tau)
        seconds = time.perf_counter() - start
        baseline_time += seconds
        fit = ours[k]
        assert fit.items == items
        r = float(np.corrcoef(fit.merits, merits)[0, 1])
        rs.append(r)
        single = ours_time / len(inputs)
        print(f"{k[0]:>5} {k[1]:<12} {len(items):>5} {len(a):>6} {seconds:>10.2f} "
              f"{1000 * single:>11.2f} {seconds / single:>7.0f} {r:>10.7f}", flush=True)  # fmt: skip

    print()
    print(f"fits: {len(inputs)}, judgments: {sum(len(v[0]) for v in inputs.values()):,}")
    print(f"baseline (Python loop + BFGS numeric gradients): {baseline_time:.1f} s")
    print(f"argbench fit_bradley_terry, all fits: {ours_time:.3f} s (best of 3: "
          + ", ".join(f"{s:.3f}" for s in ours_seconds) + ")")  # fmt: skip
    if end_to_end is not None:
        print(f"argbench fit_webis end to end (grouping + 60 fits): {end_to_end:.3f} s")
    print(
        f"speed ratio: {baseline_time / ours_time:.0f}x (best run); "
        f"{baseline_time / max(ours_seconds):.0f}x (slowest run, incl. first-call warm-up)"
    )
    print(f"Pearson r argbench vs baseline: min {min(rs):.9f} (1 - r <= {1 - min(rs):.1e})")
    print(f"max argbench iterations: {max(f.iterations for f in ours.values())}, "
          f"max |gradient|: {max(f.gradient_norm for f in ours.values()):.1e}")  # fmt: skip


if __name__ == "__main__":
    main()
