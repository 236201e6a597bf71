"""Harness logs -> argbench results files (``argbench import-harness``).

An lm-eval ``--output_path`` folder (run with ``--log_samples``) or an inspect-ai ``.eval`` /
``.json`` log holds, per document, the prediction record argbench's task made of the model's
output (:func:`argbench.harness.runs.prediction`). Those records are scored again through
:func:`argbench.results.evaluate_predictions` (the path of ``argbench evaluate --out``; the
embedding cache makes the STS encodings free), so the results file has the corpus item ids,
per-item values, the signature and the split's identity, plus what the harness reports about
the model and the generation settings (``harness``). A ``--limit`` run scores fewer items:
``n_missing`` says how many, and ``argbench compare`` refuses to pair it with a full run.

Before scoring, a run must carry information (:func:`argbench.harness.checks.refuse_degenerate`),
and its signature gains what shaped the outputs (decoding, chat template, the ClaimDiff method:
:mod:`argbench.harness.checks`). Each results file is named after its run (lm-eval's results
timestamp, inspect's eval id), so no import erases another run's file (:func:`file_name`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

from argbench.harness import checks, runs
from argbench.harness.checks import DegenerateRunError  # noqa: F401 - part of this API
from argbench.harness.lm_eval_glue import PREFIX
from argbench.io import read_json, read_jsonl
from argbench.results import same_result, write_results_once
from argbench.tasks import task, tasks

INSPECT_PREFIX = "argbench/"


class IncompleteRunError(RuntimeError):
    """The harness run did not finish: no results are made from it."""


class NoRunFound(IncompleteRunError, ValueError):
    """The path holds no harness output at all: bad input (exit 2), like a missing samples
    file; a run that stopped (inspect's status) is a failed run (exit 1)."""


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
        raise NoRunFound(
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


def _field(value, kind, where: str, what: str):
    if not isinstance(value, kind):
        names = {dict: "a JSON object", list: "a JSON list"}
        raise ValueError(
            f"{where}: {what} is {type(value).__name__ if value is not None else 'missing'}, "
            f"not {names.get(kind, kind.__name__)}: not an lm-eval results file (or edited)"
        )
    return value


def _lm_eval_run(results_file: Path, command) -> list:
    run = _field(read_json(results_file), dict, str(results_file), "the file's content")
    stamp = results_file.stem.removeprefix("results_")
    config = _field(run.get("config") or {}, dict, str(results_file), "'config'")
    configs = _field(run.get("configs") or {}, dict, str(results_file), "'configs'")
    out = []
    for name in configs:
        if not name.startswith(PREFIX):
            continue
        short = name.removeprefix(PREFIX)
        where = f"{results_file}, configs.{name}"
        if short not in tasks(harness=True):
            raise ValueError(
                f"{where}: unknown argbench harness task {short!r} (tasks: "
                f"{', '.join(tasks(harness=True))}); a run of another argbench version?"
            )
        task_config = _field(configs[name], dict, where, "the task's config")
        metrics = task_config.get("metric_list")
        if not isinstance(metrics, list) or not metrics or not isinstance(metrics[0], dict):
            raise ValueError(
                f"{where}, field 'metric_list': {metrics!r}: expected the task's metrics (a "
                "list of {metric: ...}); the file was edited or is not from argbench's task"
            )
        first = metrics[0].get("metric")
        samples = results_file.parent / f"samples_{name}_{stamp}.jsonl"
        if not samples.is_file():
            raise FileNotFoundError(
                f"{samples}: missing; run lm_eval with --log_samples so argbench can score items"
            )
        records, loglikelihoods, echoes, outputs = [], [], [], []
        for number, sample in enumerate(read_jsonl(samples), 1):
            at = f"{samples}, record {number}"
            if not isinstance(sample, dict) or not isinstance(sample.get(first), dict):
                raise ValueError(f"{at}: no {first!r} record (not argbench's?)")
            checks.check_prompt(short, sample.get("doc"), _logged_prompt(sample), at)
            records.append(sample[first])
            outputs.append(_lm_eval_output(sample))
            if task(short).behaviour.choice:
                loglikelihoods += checks.finite(_loglikelihoods(sample), f"{at}, field 'resps'")
            else:
                echoes.append(_echoes(short, sample))
        checks.refuse_degenerate(short, records, samples, loglikelihoods, echoes)
        harness = {
            "name": "lm-eval",
            "version": run.get("lm_eval_version"),
            "task": name,
            "task_version": (run.get("versions") or {}).get(name),
            "run": stamp,
            "model": config.get("model"),
            "model_args": config.get("model_args"),
            "model_name": run.get("model_name"),
            "chat_template": run.get("chat_template") is not None,
            "chat_template_sha": run.get("chat_template_sha"),
            "system_instruction_sha": run.get("system_instruction_sha"),
            "generation": task_config.get("generation_kwargs"),
            "gen_kwargs": config.get("gen_kwargs"),
            "batch_size": config.get("batch_size"),
            "limit": config.get("limit"),
            "n_samples": (run.get("n-samples") or {}).get(name),
            "log": str(results_file),
        }
        system = run.get("model_name") or config.get("model_args") or config.get("model")
        fields = checks.lm_eval_fields(short, run, task_config)
        out += _documents(short, records, harness, str(system), command, fields, outputs)
    return out


def _logged_prompt(sample: dict) -> str | None:
    """The prompt lm-eval logged for a document: ``arguments`` holds each request's
    arguments (``{"gen_args_0": {"arg_0": prompt, "arg_1": ...}}``; a choice task has one
    request per choice, all with the same context); a chat model's prompt is its messages as
    a JSON text, sometimes inside a list."""
    arguments = sample.get("arguments")
    if isinstance(arguments, dict):
        first = arguments.get("gen_args_0")
        value = first.get("arg_0") if isinstance(first, dict) else None
    elif isinstance(arguments, list) and arguments and isinstance(arguments[0], list):
        value = arguments[0][0] if arguments[0] else None  # an older lm-eval's [[arg_0, ...]]
    else:
        value = None
    if isinstance(value, list):
        value = value[0] if value else None
    return value if isinstance(value, str) else None


def _echoes(short: str, sample: dict) -> bool:
    """Whether the generation lm-eval logged holds the document's prompt (an echo)."""
    resps = sample.get("resps")
    text = (
        resps[0][0]
        if isinstance(resps, list) and resps and isinstance(resps[0], list) and resps[0]
        else None
    )
    if not isinstance(text, str) or not text.strip():
        return False
    prompt = runs.prompt(short, sample["doc"]).strip()
    return bool(prompt) and prompt[:200] in text


def _lm_eval_output(sample: dict) -> dict:
    """What the model wrote for one document (``resps``: the first generation) and lm-eval's
    hash of the prompt it was given (``prompt_hash``, sha256 of the prompt's text)."""
    response = (sample.get("resps") or [None])[0]
    text = response[0] if isinstance(response, list) and response else response
    return {
        "text": text if isinstance(text, str) else None,
        "prompt_sha256": sample.get("prompt_hash"),
    }


def _loglikelihoods(sample: dict) -> list:
    """The log-likelihoods lm-eval logged for a multiple-choice document: ``resps`` is one
    ``[[loglikelihood, is_greedy]]`` per choice."""
    values = []
    for response in sample.get("resps") or []:
        first = response[0] if isinstance(response, list) and response else response
        values.append(first[0] if isinstance(first, list) and first else first)
    return values


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
    if short not in tasks(harness=True):
        return []
    if log.status != "success":
        raise IncompleteRunError(
            f"{path}: inspect run status {log.status!r}, not 'success': finish it first "
            "(inspect eval-retry LOG) and import the finished log"
        )
    records, outputs = [], []
    for sample in log.samples or []:
        checks.check_prompt(
            short,
            (sample.metadata or {}).get("doc"),
            _input_text(sample.input),
            f"{path}, sample {sample.id!r}",
        )
        for score in (sample.scores or {}).values():
            record = (score.metadata or {}).get("record")
            if record is not None:
                records.append(record)
                outputs.append(_inspect_output(sample))
                break
        else:
            raise ValueError(f"{path}: sample {sample.id!r} has no argbench record in its score")
    checks.refuse_degenerate(short, records, path)
    config = log.plan.config.model_dump(exclude_none=True) if log.plan else {}
    harness = {
        "name": "inspect-ai",
        "version": getattr(log.eval, "packages", {}).get("inspect_ai"),
        "task": name,
        "run": log.eval.eval_id,
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
    top = task(short).generation.get("logprobs", 0)
    fields = checks.inspect_fields(short, log.eval.model, args, config, top)
    return _documents(short, records, harness, system, command, fields, outputs)


def _inspect_output(sample) -> dict:
    """What the model wrote for one sample and the sha256 of its input (the prompt's text, or
    its chat messages as JSON)."""
    prompt = sample.input
    if not isinstance(prompt, str):
        prompt = json.dumps([m.model_dump(exclude_none=True) for m in prompt], sort_keys=True)
    output = getattr(sample, "output", None)
    return {
        "text": getattr(output, "completion", None),
        "prompt_sha256": hashlib.sha256(prompt.encode("utf-8", "surrogatepass")).hexdigest(),
    }


def _input_text(value) -> str | None:
    """An inspect sample's input as text: the string, or its messages' texts joined."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        texts = [getattr(m, "text", None) for m in value]
        return "\n".join(t for t in texts if isinstance(t, str))
    return None


# ---------------------------------------------------------------- common


def _documents(short, records, harness, system, command, fields, outputs) -> list:
    """The run's results documents, each keeping per scored item what the model wrote
    (``generations``: its output, its prompt's hash and the prediction parsed from it, in the
    order of ``item_ids``), so the board shows the model's text beside the labels."""
    docs = runs.results(short, records, system=system, command=command)
    t = task(short)
    by_id = {
        str(record.get(t.id_field)): {**output, "prediction": record.get(t.prediction)}
        for record, output in zip(records, outputs, strict=True)
    }
    out = []
    for metric, doc in docs.items():
        doc["signature"] = checks.with_fields(doc["signature"], fields)
        doc["harness"] = harness
        doc["generations"] = [by_id.get(item) for item in doc["item_ids"]]
        out.append((short, metric, doc))
    return out


def file_name(task: str, metric: str, doc: dict) -> str:
    """``<task>.<metric>.<system>-<hash>.<run>.results.json``: the system made safe for a
    file name plus a hash of its exact text (``org/a`` and ``org_a`` are two systems), and the
    harness run's own id (lm-eval's results timestamp, inspect's eval id), so two runs of one
    model (a ``--limit`` run after a full one) get two files."""
    text = str(doc.get("system") or "system")
    system = re.sub(r"[^A-Za-z0-9._-]+", "_", text)[-60:]
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    run = re.sub(r"[^A-Za-z0-9._-]+", "_", str((doc.get("harness") or {}).get("run") or "run"))
    return f"{task}.{metric}.{system}-{digest}.{run[-40:]}.results.json"


# ---------------------------------------------------------------- writing


def check_out(out) -> Path:
    """``--out`` is a folder argbench can write: checked before any log is read or scored."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(f"--out {out} is a file; --out takes a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise NotADirectoryError(f"--out {out}: a part of that path is a file") from None
    except PermissionError as error:
        raise PermissionError(f"--out {out}: cannot create it ({error.strerror})") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise PermissionError(f"--out {out}: not writable (permission denied)")
    return out


def save(items, out) -> list[tuple[Path, dict, bool]]:
    """Write each (task, metric, document) to ``out`` under :func:`file_name`; returns
    (path, document, written). Never overwrites: two documents of this import with one name,
    or a file already there with other content, are refused before anything is written; a
    file already there with the same content (the same run imported again) is left as it is."""
    out = check_out(out)
    planned: dict[Path, dict] = {}
    for task_name, metric, doc in items:
        target = out / file_name(task_name, metric, doc)
        if target in planned and same_result(planned[target], doc, strip=_without_log_path):
            continue  # the same run given twice
        if target in planned:
            raise FileExistsError(
                f"{target}: two different results of this import have the same name (one "
                "run id for two runs?); nothing was written"
            )
        planned[target] = doc
    return write_results_once(
        planned.items(),
        strip=_without_log_path,
        advice="import into another --out folder or move that file away",
    )


def _without_log_path(doc: dict) -> dict:
    """The document without the harness log's path as typed (relative or absolute): two
    imports of one log name the same run."""
    if isinstance(doc.get("harness"), dict):
        doc = {**doc, "harness": {k: v for k, v in doc["harness"].items() if k != "log"}}
    return doc
