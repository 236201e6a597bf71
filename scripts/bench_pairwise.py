"""Benchmark: argbench's Bradley–Terry fit against same-run baselines, in three parts.

webis: all 60 topic × dimension fits of Webis-ArgQuality-20 (release parameters per dimension):
- baseline: the log-likelihood as a Python loop over judgments (log10, as the authors' reference
  model), minimised by scipy BFGS with numeric gradients, start 1, maxiter 100 — what
  ``bradleyterry.py`` does;
- argbench: ``fit_bradley_terry`` (vectorised, analytic gradient and Hessian, damped Newton).
Prints per-fit Pearson r between the two, the time of each and the speed ratio.

crossover: dense Newton against Newton–CG (``method=``) on small synthetic fits, 10 judgments
per item: where ``method="auto"`` switches, and why there.

scaling: seeded synthetic comparison graphs (a ring through all items plus random pairs, 10
judgments per item, Rao–Kupper outcomes with ties from normal merits), 1,000 / 5,000 / 20,000
items; every fit runs in a fresh process (time of the fit call, peak RSS of the process):
- argbench ``fit_bradley_terry`` (``method="auto"``);
- the floor: plain scipy L-BFGS-B with the analytic gradient of the same objective, written
  out in this script, asked for the same tolerance (max |gradient| 1e-9, ftol 0: it runs until
  the objective stops decreasing in float arithmetic), and with scipy's default tolerances;
- the peer, ``choix.opt_pairwise`` (if installed): it has no ties, threshold or dummy item,
  so it gets each tie as one win each way and an L2 prior α = λ/2 (the dummy term's curvature
  at the dummy merit); a different objective, compared by Pearson r only.
Agreement is against a reference optimum: full Newton steps from the L-BFGS solution, each
solved by scipy's CG with this script's own Hessian-vector product (``reference_optimum``).

    ARGBENCH_SOURCES=../shared/sources python scripts/bench_pairwise.py [--part webis] [--limit N]
    python scripts/bench_pairwise.py --part scaling [--sizes 1000 5000 20000] [--no-choix]
    python scripts/bench_pairwise.py --part crossover
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from summary_line import print_summary

REGULARIZATION, THRESHOLD = 0.3, 0.3  # λ (the release example's), τ (≈12% ties)
JUDGMENTS_PER_ITEM = 10
GTOL = 1e-9  # argbench's default


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


def synthetic_judgments(n_items, seed=0, per_item=JUDGMENTS_PER_ITEM, tau=THRESHOLD):
    """Item ids 0..n−1: a ring through a random order of all items (connected) plus random
    pairs, ``per_item`` × n judgments; outcome codes 0 / 1 / 2 (a wins, b wins, tie) drawn
    from the Rao–Kupper model with merits ~ N(0, 1)."""
    rng = np.random.default_rng(seed)
    merits = rng.normal(0, 1, n_items)
    order = rng.permutation(n_items)
    a = np.concatenate([order, rng.integers(0, n_items, (per_item - 1) * n_items)])
    b = (a + rng.integers(1, n_items, len(a))) % n_items
    b[:n_items] = np.roll(order, -1)
    d = merits[a] - merits[b]
    a_wins, b_wins = 1 / (1 + np.exp(tau - d)), 1 / (1 + np.exp(tau + d))
    u = rng.random(len(a))
    return a, b, np.where(u < a_wins, 0, np.where(u < a_wins + b_wins, 1, 2))


class Objective:
    """The negative log-likelihood (Rao–Kupper ties, dummy item of merit 1 weighted by λ),
    gradient and Hessian-vector product, written out plainly for the baselines."""

    def __init__(self, a, b, outcome, n_items, lam=REGULARIZATION, tau=THRESHOLD, dummy=1.0):
        self.w = np.where(outcome != 1, a, b)
        self.l = np.where(outcome != 1, b, a)
        self.tie = outcome == 2
        self.n, self.lam, self.tau, self.dummy = n_items, lam, tau, dummy
        self.constant = self.tie.sum() * math.log(math.expm1(2 * tau))

    def __call__(self, m):
        from scipy.special import expit

        d = m[self.w] - m[self.l]
        up, down, r = d - self.tau, -d - self.tau, m - self.dummy
        ll = (
            -np.logaddexp(0, -up).sum()
            - np.logaddexp(0, -down[self.tie]).sum()
            + self.constant
            - self.lam * (np.logaddexp(0, -r) + np.logaddexp(0, r)).sum()
        )
        slope = expit(-up) - np.where(self.tie, expit(-down), 0.0)
        grad = (
            np.bincount(self.w, slope, self.n)
            - np.bincount(self.l, slope, self.n)
            + self.lam * (expit(-r) - expit(r))
        )
        return -ll, -grad

    def hessp(self, m, v):
        from scipy.special import expit

        d = m[self.w] - m[self.l]
        up, down, r = d - self.tau, -d - self.tau, m - self.dummy
        h = expit(up) * expit(-up) + np.where(self.tie, expit(down) * expit(-down), 0.0)
        t = h * (v[self.w] - v[self.l])
        out = np.bincount(self.w, t, self.n) - np.bincount(self.l, t, self.n)
        return out + 2 * self.lam * expit(r) * expit(-r) * v


def lbfgs_fit(objective, tight=True):
    """Plain scipy L-BFGS-B from merits 1 with the analytic gradient."""
    from scipy.optimize import minimize

    options = {"gtol": GTOL, "ftol": 0.0, "maxiter": 100_000, "maxfun": 200_000} if tight else {}
    start = np.full(objective.n, objective.dummy)
    result = minimize(objective, start, jac=True, method="L-BFGS-B", options=options)
    return result.x, {"iterations": int(result.nit), "message": str(result.message)}


def choix_fit(a, b, outcome, n_items):
    import choix

    wins = outcome != 2
    winner = np.where(outcome == 0, a, b)[wins]
    loser = np.where(outcome == 0, b, a)[wins]
    tie_a, tie_b = a[~wins], b[~wins]
    data = list(zip(winner.tolist(), loser.tolist(), strict=True))
    data += list(zip(tie_a.tolist(), tie_b.tolist(), strict=True))
    data += list(zip(tie_b.tolist(), tie_a.tolist(), strict=True))
    merits = choix.opt_pairwise(n_items, data, alpha=REGULARIZATION / 2)
    return merits, {"judgments given": len(data)}


def _status_mb(field):
    """VmRSS (now) or VmHWM (peak) of this process in MB. Not ru_maxrss: across fork + exec
    Linux carries the parent's peak into the child's."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} in /proc/self/status")


def worker(name, n_items, out_dir):
    """One timed fit in this (fresh) process; prints a JSON line, saves the merits."""
    a, b, outcome = synthetic_judgments(n_items)
    if name == "argbench":
        from argbench.scoring.bradley_terry import fit_bradley_terry
    elif name == "choix":
        import choix  # noqa: F401
    else:
        import scipy.optimize  # noqa: F401
        import scipy.special  # noqa: F401
    before = _status_mb("VmRSS")
    start = time.perf_counter()
    if name == "argbench":
        fit = fit_bradley_terry(a, b, outcome, regularization=REGULARIZATION, threshold=THRESHOLD)
        merits = fit.merits
        info = {"iterations": fit.iterations, **fit.extra, "converged": fit.converged}
    elif name == "choix":
        merits, info = choix_fit(a, b, outcome, n_items)
    else:
        merits, info = lbfgs_fit(Objective(a, b, outcome, n_items), tight=name == "lbfgs")
    seconds = time.perf_counter() - start
    peak = _status_mb("VmHWM")
    np.save(Path(out_dir) / f"{name}-{n_items}.npy", merits)
    print(json.dumps({"seconds": seconds, "peak_mb": peak, "before_mb": before, **info}))


def _run_worker(name, n_items, out_dir, blas_threads):
    command = [sys.executable, __file__, "--worker", name, "--items", str(n_items)]
    env = dict(os.environ)
    if blas_threads:
        for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            env[variable] = str(blas_threads)
    done = subprocess.run(command + ["--out", out_dir], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"{name} at {n_items} items failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _available_mb():
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 1024
    return float("inf")


def reference_optimum(objective, start, steps=6):
    """Full Newton steps from the L-BFGS solution, each solved by scipy's CG to a relative
    residual of 1e-13 with this script's Hessian-vector product. Near the optimum the value is
    flat at float precision, which stops scipy's trust-region and line-search methods early
    (trust-ncg: "failure to predict improvement" at |gradient| ~1e-9); undamped Newton steps
    need only the gradient. Returns the merits and their max |gradient|."""
    from scipy.sparse.linalg import LinearOperator, cg

    merits = start.copy()
    gradient = objective(merits)[1]
    for _ in range(steps):
        hessian = LinearOperator(
            (objective.n, objective.n), matvec=lambda v, m=merits: objective.hessp(m, v)
        )
        step, info = cg(hessian, gradient, rtol=1e-13, maxiter=10 * objective.n)
        candidate = merits - step
        new_gradient = objective(candidate)[1]
        if np.abs(new_gradient).max() >= np.abs(gradient).max():
            break
        merits, gradient = candidate, new_gradient
    return merits, float(np.abs(gradient).max())


def scaling(sizes, repeat, with_choix, blas_threads):
    try:
        import choix  # noqa: F401
    except ImportError:
        with_choix = False
        print("choix not installed (pip install choix): no peer column")
    print(f"synthetic judgments: {JUDGMENTS_PER_ITEM} per item, λ = {REGULARIZATION}, "
          f"τ = {THRESHOLD}; each fit in a fresh process; time = best of {repeat} runs of the "
          "fit call, peak = the process's max RSS (Python + imports + data + fit), "
          f"fit = peak − RSS before the fit; BLAS threads {blas_threads or 'unset'}")  # fmt: skip
    print("agreement against a reference optimum (Newton steps with scipy CG on this script's "
          "objective, from the L-BFGS solution): log-likelihood relative difference, max |Δ "
          "merit|; max|grad| is this script's gradient at each method's merits")  # fmt: skip
    if with_choix:
        print("choix.opt_pairwise: no ties/threshold/dummy item in its model, so ties go in as "
              f"one win each way and α = λ/2 = {REGULARIZATION / 2} replaces the dummy item: a "
              "different objective, compared by Pearson r with the reference merits only")  # fmt: skip
    header = (f"{'items':>6} {'judgm.':>7} {'method':<24} {'seconds':>8} {'peak MB':>8} "
              f"{'fit MB':>7} {'max|grad|':>9} {'Δ log L rel':>11} {'max|Δ m|':>9}  notes")  # fmt: skip
    print(header)
    summary, checks = [], []
    with tempfile.TemporaryDirectory() as out_dir:
        for n_items in sizes:
            a, b, outcome = synthetic_judgments(n_items)
            objective = Objective(a, b, outcome, n_items)
            runs = {}
            names = ["argbench", "lbfgs", "lbfgs-default"]
            for name in names:
                results = [_run_worker(name, n_items, out_dir, blas_threads) for _ in range(repeat)]
                best = min(results, key=lambda r: r["seconds"])
                best["peak_mb"] = max(r["peak_mb"] for r in results)
                best["all_seconds"] = [r["seconds"] for r in results]
                best["merits"] = np.load(Path(out_dir) / f"{name}-{n_items}.npy")
                runs[name] = best
            if with_choix:
                need = 3 * 8 * n_items * n_items / 2**20  # its dense Hessian, a few copies
                if _available_mb() < 1.5 * need:
                    print(f"choix at {n_items} items skipped: needs ~{need:,.0f} MB "
                          f"(dense n × n Hessian), {_available_mb():,.0f} MB available")  # fmt: skip
                else:
                    runs["choix"] = _run_worker("choix", n_items, out_dir, blas_threads)
                    runs["choix"]["merits"] = np.load(Path(out_dir) / f"choix-{n_items}.npy")
            reference, ref_gradient = reference_optimum(objective, runs["lbfgs"]["merits"])
            ref_value = objective(reference)[0]
            print(f"{n_items:>6} {len(a):>7} {'reference optimum':<24} {'':>8} {'':>8} {'':>7} "
                  f"{ref_gradient:>9.1e}")  # fmt: skip
            labels = {
                "argbench": "argbench (auto)",
                "lbfgs": "L-BFGS-B gtol 1e-9",
                "lbfgs-default": "L-BFGS-B scipy defaults",
                "choix": "choix opt_pairwise",
            }
            for name, run in runs.items():
                merits = run.pop("merits")
                if name == "choix":
                    r = np.corrcoef(merits, reference)[0, 1]
                    agree = f"{'—':>9} {'—':>11} {'—':>9}  Pearson r {r:.6f}; one run"
                else:
                    value, grad = objective(merits)
                    run["ll_rel"] = abs(value - ref_value) / abs(ref_value)
                    run["dm"] = np.abs(merits - reference).max()
                    agree = (f"{np.abs(grad).max():>9.1e} {run['ll_rel']:>11.1e} "
                             f"{run['dm']:>9.1e}")  # fmt: skip
                notes = {
                    k: v
                    for k, v in run.items()
                    if k not in ("seconds", "peak_mb", "before_mb", "all_seconds", "ll_rel", "dm")
                }
                times = ", ".join(f"{t:.2f}" for t in run.get("all_seconds", []))
                notes_text = "; ".join(f"{k} {v}" for k, v in notes.items())
                print(f"{n_items:>6} {len(a):>7} {labels[name]:<24} {run['seconds']:>8.3f} "
                      f"{run['peak_mb']:>8.0f} {run['peak_mb'] - run['before_mb']:>7.0f} "
                      f"{agree}  {notes_text}" + (f"; runs {times} s" if times else ""),
                      flush=True)  # fmt: skip
            ours = runs["argbench"]
            tight = ours["seconds"] / runs["lbfgs"]["seconds"]
            loose = ours["seconds"] / runs["lbfgs-default"]["seconds"]
            line = (f"{n_items:>6} items: argbench / L-BFGS-B (gtol 1e-9) time {tight:.2f}x, "
                    f"/ L-BFGS-B (defaults) {loose:.2f}x")  # fmt: skip
            if "choix" in runs:
                line += f", choix / argbench {runs['choix']['seconds'] / ours['seconds']:.0f}x"
            summary.append(line)
            for peer, label in (("lbfgs", "gtol 1e-9"), ("lbfgs-default", "scipy defaults")):
                print_summary(
                    f"Bradley-Terry fit, {n_items:,} synthetic items, {len(a):,} judgments",
                    f"scipy L-BFGS-B ({label})",
                    runs[peer]["seconds"],
                    ours["seconds"],
                )
            checks.append((n_items, max(tight, loose), ours))
            print()
    for line in summary:
        print(line)
    worst = max(ratio for _, ratio, _ in checks)
    exact = all(run["ll_rel"] <= 1e-9 and run["dm"] <= 1e-6 for _, _, run in checks)
    print(f"targets: time <= 1.5x L-BFGS-B at every size: {'met' if worst <= 1.5 else 'MISSED'} "
          f"(worst {worst:.2f}x); same optimum (log L to 1e-9 relative, merits to 1e-6): "
          f"{'met' if exact else 'MISSED'}")  # fmt: skip
    for n_items, _, run in checks:
        if n_items >= 20_000:
            print(f"targets: peak <= 300 MB at {n_items:,} items: "
                  f"{'met' if run['peak_mb'] <= 300 else 'MISSED'} ({run['peak_mb']:.0f} MB)")  # fmt: skip


def crossover(sizes=(50, 75, 100, 125, 150, 200, 300, 500), repeat=7):
    """Best-of-``repeat`` in-process times of both Newton variants on the same judgments."""
    from argbench.scoring.bradley_terry import fit_bradley_terry
    from argbench.scoring.bt_newton import DENSE_MAX_ITEMS

    print(f"dense Newton vs Newton-CG, {JUDGMENTS_PER_ITEM} judgments per item, best of "
          f"{repeat}; method='auto' takes dense Newton up to {DENSE_MAX_ITEMS} items")  # fmt: skip
    print(f"{'items':>6} {'newton ms':>10} {'newton-cg ms':>13} {'dense/cg':>9} "
          f"{'max|Δ m|':>9}")  # fmt: skip
    for n_items in sizes:
        a, b, outcome = synthetic_judgments(n_items, seed=n_items)
        best, fits = {}, {}
        for method in ("newton", "newton-cg"):
            seconds = []
            for _ in range(repeat):
                start = time.perf_counter()
                fits[method] = fit_bradley_terry(
                    a, b, outcome, regularization=REGULARIZATION, threshold=THRESHOLD, method=method
                )
                seconds.append(time.perf_counter() - start)
            best[method] = min(seconds)
        gap = np.abs(fits["newton"].merits - fits["newton-cg"].merits).max()
        print(f"{n_items:>6} {1000 * best['newton']:>10.2f} {1000 * best['newton-cg']:>13.2f} "
              f"{best['newton'] / best['newton-cg']:>9.2f} {gap:>9.1e}", flush=True)  # fmt: skip


def webis(limit, sources):
    import argbench
    from argbench.scoring.bradley_terry import WEBIS_PARAMETERS, fit_bradley_terry, fit_webis

    pairwise = argbench.load_dataset("webis_argquality20", "pairwise", "train", sources=sources)
    names = pairwise.features["dimension"].names
    columns = pairwise.with_format("numpy")[:]
    key_a = (columns["discussion_id_a"].astype(np.int64) << 32) | columns["argument_id_a"]
    key_b = (columns["discussion_id_b"].astype(np.int64) << 32) | columns["argument_id_b"]
    groups = {}
    for i, (t, d) in enumerate(zip(columns["topic_id"], columns["dimension"], strict=True)):
        groups.setdefault((int(t), names[d]), []).append(i)
    keys = sorted(groups)[:limit]
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
    if limit is None:
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
    print_summary(
        f"Bradley-Terry fits of Webis pairwise judgments ({len(inputs)} fits, best of 3)",
        "Python loop + BFGS numeric gradients",
        baseline_time,
        ours_time,
    )
    print(f"Pearson r argbench vs baseline: min {min(rs):.9f} (1 - r <= {1 - min(rs):.1e})")
    print(f"max argbench iterations: {max(f.iterations for f in ours.values())}, "
          f"max |gradient|: {max(f.gradient_norm for f in ours.values()):.1e}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["webis", "crossover", "scaling"], action="append",
                        help="run only this part (repeatable; default: all three)")  # fmt: skip
    parser.add_argument("--limit", type=int, help="webis: only the first N fits (quick look)")
    parser.add_argument("--sources", help="source mirror (default: $ARGBENCH_SOURCES)")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000, 20000])
    parser.add_argument("--repeat", type=int, default=3, help="scaling: processes per fit")
    parser.add_argument("--no-choix", action="store_true", help="scaling: skip the peer")
    parser.add_argument(
        "--blas-threads",
        type=int,
        default=1,
        help="scaling: OPENBLAS/OMP/MKL threads of every fit process (0: leave unset). Default "
        "1: on 2 shared cores threaded BLAS made the L-BFGS floor 4x slower",
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--items", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument(
        "--small",
        action="store_true",
        help="CI size: 4 webis fits, the crossover, scaling at 500 items once, no choix",
    )
    args = parser.parse_args()
    if args.small:
        args.limit, args.sizes, args.repeat, args.no_choix = 4, [500], 1, True
    if args.worker:
        worker(args.worker, args.items, args.out)
        return
    parts = args.part or ["webis", "crossover", "scaling"]
    if "webis" in parts:
        print("== webis: 60 topic × dimension fits ==")
        webis(args.limit, args.sources or os.environ.get("ARGBENCH_SOURCES"))
        print()
    if "crossover" in parts:
        print("== crossover: dense Newton vs Newton-CG ==")
        crossover(**({"sizes": (50, 100, 200), "repeat": 1} if args.small else {}))
        print()
    if "scaling" in parts:
        print("== scaling: synthetic comparison graphs ==")
        scaling(args.sizes, args.repeat, not args.no_choix, args.blas_threads)


if __name__ == "__main__":
    main()
