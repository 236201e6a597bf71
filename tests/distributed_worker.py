"""One process of a distributed evaluation: ``python -m tests.distributed_worker``.

Every case (a metric, its inputs and its compute() options) runs as evaluate's distributed
mode does it under ``torchrun`` / ``accelerate launch``: the metric is loaded with
``num_process``, ``process_id``, a shared ``experiment_id`` and ``cache_dir``; the process adds
its contiguous shard in two ``add_batch`` calls and calls ``compute``. Every process pickles
``{case: ("ok", what compute returned) or ("error", traceback)}`` to ``--out``: the result on
process 0, None on the others. The cases are here, not in the test, so that every process builds the same
inputs and options itself (a callable judge does not pickle into another process).
"""

from __future__ import annotations

import argparse
import pickle
import traceback

CLAIM = 'Campaign officials saw Stone as the "access point" to WikiLeaks, he said.'
ARGUMENTS = ["Cats are smarter than dogs.", "Dogs are more loyal than cats.", "Cats purr."]
ANSWERS = [
    "Intelligence: cats are clever [1]. Loyalty: dogs win [2].",
    "Cats are smarter [1, 2]. Also [8, generated].",
    "Nothing cited here.",
    "Dogs are loyal [2]. Cats purr softly [3].",
    "Cats rule [1]. Dogs rule [2]. Purring [3].",
    "Loyal dogs [2].",
    "Clever cats [1].",
]
REFS = [
    {"id": "r0", "cq": "Is the source of this claim reliable?", "label": "Useful"},
    {"id": "r1", "cq": "What evidence supports the claim about taxes?", "label": "Unhelpful"},
    {"id": "r2", "cq": "Is the speaker a good person?", "label": "Invalid"},
]
QUESTIONS = [
    ["Is the source of this claim reliable?", "Who pays the taxes?", "Is it raining?"],
    ["Missing CQs"],
    ["Is this source reliable?", "What supports the tax claim?", "Is he good?"],
    ["Why now?", "Is the speaker a good person?", "Is the speaker a good person?", "More?"],
    ["Is the claim about taxes backed by evidence?", "", "Is the source trustworthy?"],
]
TEXTS = [
    "Is the claim true?",
    "Is the claim true?",
    "Who says so?",
    "What evidence supports the claim about taxes?",
    "Is the speaker an expert on the economy?",
    "Would the plan work in practice?",
    "Who says so?",
]


def first_word_judge(argument, excerpt):
    """A deterministic judge: the argument's first word occurs in the excerpt."""
    return argument.split()[0].lower() in excerpt.lower()


def cases(models: dict) -> dict[str, tuple[str, dict, dict]]:
    """case name -> (metric, inputs (one list per input), compute() options)."""
    minilm, nli = models.get("minilm"), models.get("nli")
    out = {
        "annotator_agreement": (
            "annotator_agreement",
            {
                "ratings": [
                    [0, 0, 1],
                    [2, 2, 2],
                    [1, None, 1],
                    [3, 3, 2],
                    [0, 1, None],
                    [2, 2, 3],
                    [None, 1, 1],
                ]
            },
            {"categories": [0, 1, 2, 3]},
        ),
        "bradley_terry": (
            "bradley_terry",
            {
                "item_a": ["x", "x", "y", "z", "u", "v", "w"],
                "item_b": ["y", "z", "z", "x", "v", "w", "u"],
                "outcome": ["a", "a", "tie", "b", "b", "a", "tie"],
                "group": ["t", "t", "t", "t", "s", "s", "s"],
            },
            {"regularization": 0.25},
        ),
        "argument_answer_coherence": (
            "argument_answer_coherence",
            {"predictions": ANSWERS, "references": [ARGUMENTS] * len(ANSWERS)},
            {"judge": first_word_judge},
        ),
        "argument_overlap": (
            "argument_overlap",
            {"predictions": ANSWERS, "references": [ARGUMENTS[: 1 + i % 3] for i in range(7)]},
            {},
        ),
        "argument_relevance": (
            "argument_relevance",
            {
                "predictions": ANSWERS,
                "references": [[3, 0, 2], [0, 0, 3], [1, 1, 1], [3, 3, 0], [2, -1, 3], [0], []],
            },
            {},
        ),
        "claim_relation": (
            "claim_relation",
            {
                "predictions": [0.9, 0.2, 0.6, 0.4, 0.6, 0.75, 0.1, 0.55],
                "references": [1, 0, 1, 0, 0, 1, 0, 1],
            },
            {"dev_predictions": [0.8, 0.3, 0.5, 0.65], "dev_references": [1, 0, 1, 0]},
        ),
        "cr_diversity": ("cr_diversity", {"predictions": TEXTS}, {}),
        "rationale_f1": (
            "rationale_f1",
            {
                "predictions": [["Stone as the"], [], ["WikiLeaks"], ["he said"], ["Campaign"]],
                "references": [["Stone as the"], ["he said"], ["to WikiLeaks"], [], ["officials"]],
                "contexts": [CLAIM] * 5,
            },
            {},
        ),
        "rationale_f1:no_contexts": (
            "rationale_f1",
            {
                "predictions": [["Stone as the"], [], ["WikiLeaks"], ["he said"]],
                "references": [["Stone as"], ["he said"], ["WikiLeaks"], []],
            },
            {},
        ),
        "cq_reference_match:callable": (
            "cq_reference_match",
            {
                "predictions": QUESTIONS,
                "references": [REFS] * len(QUESTIONS),
                "intervention_ids": [f"int{i}" for i in range(len(QUESTIONS))],
            },
            {"matcher": _exact_text},
        ),
    }
    if minilm:
        out["cq_reference_match:sts"] = (
            "cq_reference_match",
            {
                "predictions": QUESTIONS,
                "references": [REFS] * len(QUESTIONS),
                "intervention_ids": [f"int{i}" for i in range(len(QUESTIONS))],
            },
            {"model": minilm, "threshold": 0.6, "cache_dir": False},
        )
        out["argument_overlap:sbert"] = (
            "argument_overlap",
            out["argument_overlap"][1],
            {"model": minilm, "embedding_options": {"cache_dir": False}},
        )
    if nli:
        out["argument_answer_coherence:nli"] = (
            "argument_answer_coherence",
            out["argument_answer_coherence"][1],
            {"judge": "nli", "model": nli},
        )
    return out


def _exact_text(question, reference_questions):
    return reference_questions.index(question) if question in reference_questions else None


def shard(inputs: dict, num_process: int, process_id: int) -> dict:
    """The contiguous shard of ``process_id`` (sizes differ by at most one, first ones larger)."""
    n = len(next(iter(inputs.values())))
    size, extra = divmod(n, num_process)
    start = process_id * size + min(process_id, extra)
    stop = start + size + (process_id < extra)
    return {name: values[start:stop] for name, values in inputs.items()}


def run_case(metric_name, inputs, options, *, num_process, process_id, experiment_id, cache_dir):
    import argbench

    metric = argbench.load_metric(
        metric_name,
        num_process=num_process,
        process_id=process_id,
        experiment_id=experiment_id,
        cache_dir=cache_dir,
        timeout=120,
    )
    mine = shard(inputs, num_process, process_id)
    half = len(next(iter(mine.values()))) // 2
    metric.add_batch(**{name: values[:half] for name, values in mine.items()})
    metric.add_batch(**{name: values[half:] for name, values in mine.items()})
    return metric.compute(**options)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--num-process", type=int, required=True)
    parser.add_argument("--process-id", type=int, required=True)
    parser.add_argument("--experiment-id", required=True)
    parser.add_argument("--cache-dir", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--model", action="append", default=[], metavar="NAME=PATH")
    args = parser.parse_args(argv)
    models = dict(spec.split("=", 1) for spec in args.model)
    results = {}
    for name, (metric, inputs, options) in cases(models).items():
        try:
            results[name] = (
                "ok",
                run_case(
                    metric,
                    inputs,
                    options,
                    num_process=args.num_process,
                    process_id=args.process_id,
                    experiment_id=f"{args.experiment_id}-{name.replace(':', '-')}",
                    cache_dir=args.cache_dir,
                ),
            )
        except Exception:  # noqa: BLE001 - reported per case by the test
            results[name] = "error", traceback.format_exc()
    with open(args.out, "wb") as handle:
        pickle.dump(results, handle)
    return 0


if __name__ == "__main__":
    # run from the module under its own name, so the judge's name in the signature
    # (tests.distributed_worker.first_word_judge) is the one the test process sees
    from tests.distributed_worker import main as module_main

    raise SystemExit(module_main())
