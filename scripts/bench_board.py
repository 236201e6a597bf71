"""Benchmark: a leaderboard column of many small systems, peak memory and time, against the
statistics as they were before issue 35, measured in the same run.

A column of N systems holds N(N-1)/2 pairs. Before, the board's statistics
(``argbench compare``'s ``compare_systems``, then the rows) held every pair's resampled
differences at once: a resamples × pairs matrix and its percentile copies, 8 bytes each, so
10,000 resamples × 44,850 pairs (300 systems) is 3.6 GB before the copies; a board of 300 small
results files took 10.6 GB. Now (``argbench.leaderboard.table.columns``) the resamples come in
chunks, the pairs in blocks of at most 32 MB, and only the pairs with the leader get a
difference interval (all pairs get their p-value): what grows is resamples × systems.

Each side runs in its own process (a fresh interpreter, the same synthetic results documents:
CQ-like per-item scores 0, 1/3, 2/3, 1, some items unscored) under an address-space limit
(``--cap-gb``, 3 GB by default, the limit of the report in issue 35): a side that needs more
stops with MemoryError and is reported so, with the array it could not have. At 100 systems
both sides fit, so the ratios are measured there; at 300 and 1,000 the baseline does not. Peak memory is the process's peak resident set
(``resource.getrusage``), shown whole and above what the process held before the board
(interpreter, numpy, the documents). Where both sides finish, the script checks that every row
agrees bit for bit (score, interval, difference to the leader with its interval, p-value, who
cannot be told apart) and prints the ratios.

The baseline is a copy of the statistics as they were (``argbench/scoring/significance.py`` and
the row-making of ``argbench/leaderboard/table.py`` at commit 1957694), kept here and nowhere
else: it is the measure, not code argbench runs.

    python scripts/bench_board.py                 # 100, 300 and 1,000 systems, 10,000 resamples
    python scripts/bench_board.py --sizes 300 --cap-gb 12     # room for the baseline at 300
    python scripts/bench_board.py --small             # CI: 20 and 60 systems, seconds
"""

from __future__ import annotations

import argparse
import contextlib
import json
import resource
import subprocess
import sys
import time
from itertools import combinations

from summary_line import print_summary

SIGNATURE = "cq_reference_match|matcher:sts|model:m@abc|thr:>0.65|max_q:3|v:0.1.0"
DATASET = {
    "name": "cqs_gen",
    "config": "extended",
    "split": "test",
    "version": "2.0.0",
    "content_hash": "sha256:" + "ab" * 32,
    "source": "argbench",
}
ALPHA = 0.05


def documents(systems: int, items: int, seed: int = 0) -> list[tuple[str, dict]]:
    """(path, results document) per system, as ``argbench.results.read_results`` returns them."""
    import numpy as np

    from argbench.results import build_document, content_digest

    rng = np.random.default_rng(seed)
    base = rng.integers(0, 4, items) / 3
    ids = [f"item-{i}" for i in range(items)]
    out = []
    for k in range(systems):
        values = np.clip(base + rng.choice([-1 / 3, 0, 0, 1 / 3], items) * (k % 5), 0, 1)
        per_item = [None if rng.random() < 0.05 else float(v) for v in values]
        per_item[0] = per_item[0] if per_item[0] is not None else 0.0
        scored = [v for v in per_item if v is not None]
        result = {
            "score": sum(scored) / len(scored),
            "signature": SIGNATURE,
            "per_item": {"score": per_item},
        }
        doc = build_document("cq_reference_match", result, dict(DATASET), ids, system=f"sys-{k}")
        doc["digest"] = content_digest(doc)
        out.append((f"sys-{k}.json", doc))
    return out


# ---------------------------------------------------------------------------------------------
# The baseline: the statistics before issue 35 (argbench/scoring/significance.py at 1957694,
# verbatim but for names), then the rows as argbench/leaderboard/table.py made them.

BATCH = 64


def _one_blas_thread():
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(1, user_api="blas")


def _old_matrix(scores):
    import numpy as np

    matrix = np.array(scores, dtype=float)
    if matrix.ndim == 1:
        matrix = matrix[None, :]
    return matrix


def _old_bootstrap_means(scores, resamples, seed):
    import numpy as np

    matrix = _old_matrix(scores)
    n = matrix.shape[1]
    missing = np.isnan(matrix)
    values = np.where(missing, 0.0, matrix).T
    scored = None if not missing.any() else (~missing).T.astype(float)
    rng = np.random.default_rng(seed)
    out = np.empty((resamples, matrix.shape[0]))
    offsets = (np.arange(min(BATCH, resamples), dtype=np.int64) * n)[:, None]
    with _one_blas_thread():
        for start in range(0, resamples, BATCH):
            size = min(BATCH, resamples - start)
            index = rng.integers(0, n, (size, n))
            counts = np.bincount((index + offsets[:size]).ravel(), minlength=size * n)
            weights = counts.reshape(size, n).astype(float)
            sums = weights @ values
            totals = weights.sum(axis=1, keepdims=True) if scored is None else weights @ scored
            with np.errstate(invalid="ignore", divide="ignore"):
                out[start : start + size] = sums / totals
    return out


def _old_percentile_interval(distribution, confidence=0.95):
    import numpy as np

    alpha = (1 - confidence) / 2
    return np.nanpercentile(distribution, [100 * alpha, 100 * (1 - alpha)], axis=0)


def _old_permutation_pvalues(scores, pairs, resamples, seed):
    import numpy as np

    matrix = _old_matrix(scores)
    n = matrix.shape[1]
    missing = np.isnan(matrix)
    values = np.where(missing, 0.0, matrix).T
    scored = (~missing).T.astype(float)
    total, count = values.sum(axis=0), scored.sum(axis=0)
    a, b = (np.array([p[i] for p in pairs], dtype=int) for i in (0, 1))
    observed = np.abs(total[a] / count[a] - total[b] / count[b])
    bound = observed - 1e-9 * max(1.0, float(np.abs(values).max()))
    exact = n < 63 and 2**n <= resamples
    draws = 2**n if exact else resamples
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(1,)))
    extreme = np.zeros(len(a))
    with _one_blas_thread():
        for start in range(0, draws, BATCH):
            size = min(BATCH, draws - start)
            if exact:
                patterns = np.arange(start, start + size, dtype=np.uint64)[:, None]
                swaps = ((patterns >> np.arange(n, dtype=np.uint64)) & np.uint64(1)).astype(float)
            else:
                packed = rng.integers(0, 256, (size, (n + 7) // 8), dtype=np.uint8)
                swaps = np.unpackbits(packed, axis=1, count=n).astype(float)
            moved, moved_count = swaps @ values, swaps @ scored
            with np.errstate(invalid="ignore", divide="ignore"):
                mean_a = (total[a] - moved[:, a] + moved[:, b]) / (
                    count[a] - moved_count[:, a] + moved_count[:, b]
                )
                mean_b = (total[b] - moved[:, b] + moved[:, a]) / (
                    count[b] - moved_count[:, b] + moved_count[:, a]
                )
            extreme += (np.abs(mean_a - mean_b) >= bound).sum(axis=0)
    if exact:
        return extreme / draws
    return (extreme + 1) / (draws + 1)


def _old_compare_systems(scores, names, resamples, seed, confidence=0.95):
    import numpy as np

    matrix = _old_matrix(scores)
    k = matrix.shape[0]
    means = _old_bootstrap_means(matrix, resamples, seed)
    point = np.nanmean(matrix, axis=1)
    low, high = _old_percentile_interval(means, confidence)
    pairs = list(combinations(range(k), 2))
    result = {
        "systems": [
            {
                "name": names[i],
                "score": float(point[i]),
                "low": float(low[i]),
                "high": float(high[i]),
            }
            for i in range(k)
        ],  # fmt: skip
        "pairs": [],
    }
    if pairs:
        a, b = (np.array([p[i] for p in pairs]) for i in (0, 1))
        d_low, d_high = _old_percentile_interval(means[:, a] - means[:, b], confidence)
        p_values = _old_permutation_pvalues(matrix, pairs, resamples, seed)
        for j, (i, m) in enumerate(pairs):
            result["pairs"].append(
                {"a": names[i], "b": names[m], "difference": float(point[i] - point[m]),
                 "low": float(d_low[j]), "high": float(d_high[j]),
                 "p_value": float(p_values[j])}
            )  # fmt: skip
    return result


def _old_rows(docs, resamples, seed) -> list[dict]:
    """The rows of one column as the board made them before (names are unique here)."""
    from argbench.results.compare import aligned_scores

    names = [d["system"] for d in docs]
    stats = _old_compare_systems(
        aligned_scores(docs, "score", docs[0]["item_ids"]), names, resamples, seed
    )
    p_of = {}
    for pair in stats["pairs"]:
        p_of[(pair["a"], pair["b"])] = p_of[(pair["b"], pair["a"])] = pair
    order = sorted(range(len(docs)), key=lambda i: -stats["systems"][i]["score"])
    leader = stats["systems"][order[0]]["name"]
    rows = []
    for place, i in enumerate(order, 1):
        system = stats["systems"][i]
        pair = p_of.get((system["name"], leader))
        difference = None
        if pair is not None:
            sign = 1 if pair["a"] == system["name"] else -1
            difference = {
                "difference": sign * pair["difference"],
                "low": sign * (pair["low"] if sign > 0 else pair["high"]),
                "high": sign * (pair["high"] if sign > 0 else pair["low"]),
                "p_value": pair["p_value"],
            }
        apart = [
            other["name"]
            for other in stats["systems"]
            if other["name"] != system["name"]
            and p_of[(system["name"], other["name"])]["p_value"] >= ALPHA
        ]
        rows.append(
            {"rank": place, "system": system["name"], "score": system["score"],
             "low": system["low"], "high": system["high"], "vs_leader": difference,
             "not_distinguishable_from": apart}
        )  # fmt: skip
    return rows


# ---------------------------------------------------------------------------------------------


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kB


def worker(side: str, systems: int, items: int, resamples: int, cap_gb: float) -> dict:
    """One side in this process: build the documents, then the board, under the cap."""
    cap = int(cap_gb * 1024**3)
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    import numpy  # noqa: F401 - loaded before the "before" figure, as the documents are

    from argbench.leaderboard.table import columns

    docs = documents(systems, items)
    before = _peak_mb()
    start = time.perf_counter()
    try:
        if side == "argbench":
            [column], _ = columns(docs, resamples=resamples, seed=0)
            rows = column.rows
        else:
            rows = _old_rows([d for _, d in docs], resamples, 0)
    except MemoryError as error:  # numpy says what it could not allocate
        return {"side": side, "failed": f"MemoryError: {error}",
                "seconds": time.perf_counter() - start}  # fmt: skip
    seconds = time.perf_counter() - start
    keep = ("rank", "system", "score", "low", "high", "vs_leader", "not_distinguishable_from")
    shown = [{k: r[k] for k in keep} for r in rows]
    return {"side": side, "seconds": seconds, "before_mb": before, "peak_mb": _peak_mb(),
            "rows": shown}  # fmt: skip


def run(side, systems, items, resamples, cap_gb) -> dict:
    command = [sys.executable, __file__, "--worker", side, "--sizes", str(systems),
               "--items", str(items), "--resamples", str(resamples), "--cap-gb", str(cap_gb)]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
        return {"side": side, "failed": f"exit {done.returncode}: {tail[0][:120]}"}
    return json.loads(done.stdout)


def _memory(result, cap_gb) -> str:
    if str(result.get("failed", "")).startswith("MemoryError"):
        return f"over {cap_gb:g} GB"
    if "peak_mb" not in result:
        return "-"
    return f"{result['peak_mb']:,.0f} MB ({result['peak_mb'] - result['before_mb']:+,.0f})"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=[100, 300, 1000], help="systems per size"
    )
    parser.add_argument("--items", type=int, default=50, help="items per system (default 50)")
    parser.add_argument("--resamples", type=int, default=10_000, help="default 10,000")
    parser.add_argument("--cap-gb", type=float, default=3.0, help="address-space limit per side")
    parser.add_argument("--small", action="store_true", help="CI: 20 and 60 systems, seconds")
    parser.add_argument("--worker", choices=["argbench", "baseline"], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker, args.sizes[0], args.items, args.resamples,
                                args.cap_gb)))  # fmt: skip
        return 0
    if args.small:
        args.sizes, args.items, args.resamples = [20, 60], 30, 500
    print(
        f"a leaderboard column of N systems x {args.items} items, {args.resamples:,} resamples; "
        f"each side in its own process, address space capped at {args.cap_gb:g} GB; peak "
        "resident memory (in brackets: above the process before the board)"
    )
    print(f"{'systems':>7} {'pairs':>8}  {'side':<9} {'peak memory':>22} {'time':>9}  result")
    ok = True
    for systems in args.sizes:
        pairs = systems * (systems - 1) // 2
        results = [run(s, systems, args.items, args.resamples, args.cap_gb)
                   for s in ("baseline", "argbench")]  # fmt: skip
        for r in results:
            seconds = f"{r['seconds']:.1f} s" if "seconds" in r else "-"
            outcome = r.get("failed") or f"{len(r['rows'])} rows"
            memory = _memory(r, args.cap_gb)
            print(f"{systems:>7} {pairs:>8,}  {r['side']:<9} {memory:>22} {seconds:>9}  {outcome}")
        old, new = results
        if "rows" not in new:
            ok = False
            print("         argbench did not finish: FAILED")
            continue
        if "rows" in old:
            same = old["rows"] == new["rows"]
            ok &= same
            grown = [max(1.0, r["peak_mb"] - r["before_mb"]) for r in (old, new)]
            print(
                f"{'':>18}rows {'identical' if same else 'DIFFER'}; baseline / argbench: "
                f"memory above the start x{grown[0] / grown[1]:.1f}, "
                f"time x{old['seconds'] / new['seconds']:.2f}"
            )
            print_summary(
                f"leaderboard column: {systems} systems x {args.items} items, "
                f"{args.resamples:,} resamples",
                "one matrix of every pair's resamples",
                old["seconds"],
                new["seconds"],
                memory_ratio=round(grown[0] / grown[1], 2),
            )
        else:
            print(f"{'':>18}the baseline cannot build this board under the cap; argbench can")
    print("agreement: ok" if ok else "agreement: FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
