"""The Hub's benchmark format: ``eval.yaml`` in a dataset repo, ``.eval_results/*.yaml`` in a
model repo (https://huggingface.co/docs/hub/eval-results).

A published corpus that systems are scored on carries ``eval.yaml``: one task (one leaderboard)
per (metric, config, split) a system is scored with. A results file of ``argbench evaluate
--dataset ORG/NAME@vX --out`` converts to the model repo's entry for that task: dataset id,
task id, the commit scored, the value of the metric's primary figure, the date, and the
signature in ``notes`` so the number says how it was measured.
"""

from __future__ import annotations

import yaml

# dataset -> tasks: task id, metric, config, split (the figure is results.PRIMARY[metric])
TASKS = {
    "cqs_gen": [  # test: the paper's benchmark (references since cqs_gen 2.0.0)
        ("cq_reference_match", "cq_reference_match", "interventions", "test"),
        ("cq_reference_match_validation", "cq_reference_match", "interventions", "validation"),
    ],
    "cam_answers": [
        ("argument_relevance", "argument_relevance", "silver", "train"),
        ("argument_overlap", "argument_overlap", "silver", "train"),
    ],
    "claimdiff": [
        ("claim_relation_S", "claim_relation", "S", "test"),
        ("claim_relation_W", "claim_relation", "W", "test"),
        ("rationale_f1", "rationale_f1", "S", "test"),
    ],
}
FRAMEWORK = "argbench"  # to be registered in huggingface.js packages/tasks/src/eval.ts


def eval_yaml(name: str, pretty_name: str, description: str) -> str | None:
    """The ``eval.yaml`` of corpus ``name``, or None when systems are not scored on it."""
    tasks = TASKS.get(name)
    if not tasks:
        return None
    doc = {
        "name": pretty_name,
        "description": description,
        "evaluation_framework": FRAMEWORK,
        "tasks": [
            {"id": task, "config": config, "split": split} for task, _, config, split in tasks
        ],
    }
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)


def eval_results_entry(doc: dict) -> tuple[str, str]:
    """(file name, YAML) of the ``.eval_results/`` entry for an argbench results document."""
    from argbench.results import PRIMARY

    dataset = doc.get("dataset") or {}
    source = str(dataset.get("source") or "")
    if not source.startswith("hub:") or not dataset.get("commit"):
        raise ValueError(
            "the results were not computed on a Hub dataset: score with argbench evaluate ... "
            "--dataset ORG/NAME@vVERSION --out FILE, so the entry can name the dataset and the "
            f"commit scored (this file's dataset source: {source or 'none'})"
        )
    metric, config, split = doc["metric"], dataset.get("config"), dataset.get("split")
    found = [
        task
        for tasks in TASKS.values()
        for task, task_metric, task_config, task_split in tasks
        if (task_metric, task_config, task_split) == (metric, config, split)
    ]
    if not found:
        known = ", ".join(f"{m} on {c}/{s}" for ts in TASKS.values() for _, m, c, s in ts)
        raise ValueError(
            f"{metric} on {config}/{split} is no benchmark task of eval.yaml (tasks: {known})"
        )
    key = PRIMARY.get(metric)
    value = (doc.get("result") or {}).get(key)
    if not isinstance(value, (int, float)) or value != value:
        raise ValueError(f"the results have no number for {metric}'s primary figure {key!r}")
    entry = {
        "dataset": {"id": source[4:], "task_id": found[0], "revision": dataset["commit"]},
        "value": float(value),
        "date": str(doc.get("created") or "")[:10] or None,
        "notes": f"argbench {doc['signature']}",
    }
    if entry["date"] is None:
        del entry["date"]
    return f"{found[0]}.yaml", yaml.safe_dump([entry], sort_keys=False, width=1000)
