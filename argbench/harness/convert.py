"""Harness logs -> argbench results files (``argbench import-harness``).

An lm-eval ``--output_path`` folder (run with ``--log_samples``) or an inspect-ai ``.eval`` /
``.json`` log holds, per document, the prediction record argbench's task made of the model's
output (:func:`argbench.harness.tasks.prediction`). Those records are scored again through
:func:`argbench.results.evaluate_predictions` (the path of ``argbench evaluate --out``; the
embedding cache makes the STS encodings free), so the results file has the corpus item ids,
per-item values, the signature and the split's identity, plus what the harness reports about
the model and the generation settings (``harness``). A ``--limit`` run scores fewer items:
``n_missing`` says how many, and ``argbench compare`` refuses to pair it with a full run.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from argbench.harness import tasks
from argbench.io import read_json

PREFIX = "argbench_"  # lm-eval task names
INSPECT_PREFIX = "argbench/"


class IncompleteRunError(RuntimeError):
    """The harness run did not finish: no results are made from it."""


def import_harness(path, *, command=None) -> list[tuple[str, str, dict]]:
    """(task, metric, results document) for every argbench task in an lm-eval output folder
    or an inspect log (file or folder of logs)."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file or folder")
    if path.is_file():
        return _inspect_log(path, command)
    found = sorted(path.rglob("results_*.json"))
    logs = sorted([*path.rglob("*.eval"), *(p for p in path.rglob("*.json") if _is_inspect(p))])
    if not found and not logs:
        raise IncompleteRunError(
            f"{path}: no lm-eval results_*.json and no inspect log: the run did not finish "
            "(lm-eval writes results and samples only at the end; run it again, with "
            "--use_cache so finished requests are not recomputed)"
        )
    out = []
    for results_file in found:
        out += _lm_eval_run(results_file, command)
    for log in logs:
        out += _inspect_log(log, command)
    return out


def _is_inspect(path: Path) -> bool:
    return not path.name.startswith(("results_", "samples_")) and path.suffix == ".json"


# ---------------------------------------------------------------- lm-eval


def _lm_eval_run(results_file: Path, command) -> list:
    run = read_json(results_file)
    stamp = results_file.stem.removeprefix("results_")
    config = run.get("config") or {}
    out = []
    for name in run.get("configs") or {}:
        if not name.startswith(PREFIX):
            continue
        short = name.removeprefix(PREFIX)
        samples = results_file.parent / f"samples_{name}_{stamp}.jsonl"
        if not samples.is_file():
            raise FileNotFoundError(
                f"{samples}: missing; run lm_eval with --log_samples so argbench can score items"
            )
        task_config = run["configs"][name]
        first = task_config["metric_list"][0]["metric"]
        records = []
        with samples.open(encoding="utf-8") as lines:
            for number, line in enumerate(lines, 1):
                if not line.strip():
                    continue
                sample = json.loads(line)
                if first not in sample:
                    raise ValueError(f"{samples}, line {number}: no {first!r} (not argbench's?)")
                records.append(sample[first])
        harness = {
            "name": "lm-eval",
            "version": run.get("lm_eval_version"),
            "task": name,
            "task_version": (run.get("versions") or {}).get(name),
            "model": config.get("model"),
            "model_args": config.get("model_args"),
            "model_name": run.get("model_name"),
            "chat_template": bool(run.get("chat_template")),
            "generation": task_config.get("generation_kwargs"),
            "gen_kwargs": config.get("gen_kwargs"),
            "batch_size": config.get("batch_size"),
            "limit": config.get("limit"),
            "n_samples": (run.get("n-samples") or {}).get(name),
            "log": str(results_file),
        }
        system = run.get("model_name") or config.get("model_args") or config.get("model")
        out += _documents(short, records, harness, str(system), command)
    return out


# ---------------------------------------------------------------- inspect-ai


def _inspect_log(path: Path, command) -> list:
    from inspect_ai.log import read_eval_log

    try:
        log = read_eval_log(str(path))
    except Exception as error:  # noqa: BLE001 - inspect raises pydantic/zip/JSON errors alike
        first = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise ValueError(
            f"{path}: not an inspect log ({type(error).__name__}: {first}); give an inspect "
            "log (.eval or .json, from inspect eval) or an lm-eval --output_path folder"
        ) from None
    name = log.eval.task
    short = name.split("/")[-1]
    if short not in tasks.TASKS:
        return []
    if log.status != "success":
        raise IncompleteRunError(
            f"{path}: inspect run status {log.status!r}, not 'success': finish it first "
            "(inspect eval-retry LOG) and import the finished log"
        )
    records = []
    for sample in log.samples or []:
        for score in (sample.scores or {}).values():
            record = (score.metadata or {}).get("record")
            if record is not None:
                records.append(record)
                break
        else:
            raise ValueError(f"{path}: sample {sample.id!r} has no argbench record in its score")
    config = log.plan.config.model_dump(exclude_none=True) if log.plan else {}
    harness = {
        "name": "inspect-ai",
        "version": getattr(log.eval, "packages", {}).get("inspect_ai"),
        "task": name,
        "model": log.eval.model,
        "model_args": log.eval.model_args,
        "model_base_url": log.eval.model_base_url,
        "generation": config,
        "limit": log.eval.config.limit,
        "n_samples": len(records),
        "log": str(path),
    }
    args = log.eval.model_args or {}
    local = args.get("model_path") or args.get("pretrained")
    system = f"{log.eval.model} {local}" if local else log.eval.model
    return _documents(short, records, harness, system, command)


# ---------------------------------------------------------------- common


def _documents(short, records, harness, system, command) -> list:
    docs = tasks.results(short, records, system=system, command=command)
    out = []
    for metric, doc in docs.items():
        doc["harness"] = harness
        out.append((short, metric, doc))
    return out


def file_name(task: str, metric: str, doc: dict) -> str:
    """``<task>.<metric>.<system>.results.json`` (the system made safe for a file name)."""
    system = re.sub(r"[^A-Za-z0-9._-]+", "_", str(doc.get("system") or "system"))[-80:]
    return f"{task}.{metric}.{system}.results.json"
