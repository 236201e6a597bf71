"""argbench's tasks for lm-evaluation-harness, made from the declarations.

lm-eval finds a task as one YAML file in an ``--include_path`` folder. argbench writes those
files from the task declarations (:mod:`argbench.tasks`) into a folder of its cache
(:func:`lm_eval_path`, printed by ``argbench harness-path``), beside a ``utils.py`` whose
functions are made here by name (``utils.prompt__cqs_gen``, ``utils.figure__cqs_gen__cq_score``
...): a task declared once is an lm-eval task with no file to keep in step. The folder's name
carries a digest of what it holds, so a changed declaration is a new folder and two processes
writing it at once write the same bytes.

Each document's metric value is its prediction record; the aggregations score all records of
the run at once (corpus level: the STS encoding happens once over the unique texts).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from argbench.harness import checks, runs
from argbench.io import cache_folder
from argbench.tasks import task, tasks

__all__ = ["PREFIX", "function", "lm_eval_path", "task_yaml"]

PREFIX = "argbench_"  # lm-eval task names: argbench_<task>
CACHE_ENV = "ARGBENCH_LM_EVAL_TASKS"
TASK_VERSION = 1.0
_SEP = "__"

_UTILS = '''"""lm-evaluation-harness glue for argbench's tasks, written by argbench (do not edit): each
function named in the YAML files is made by argbench.harness.lm_eval_glue.function."""

from argbench.harness.lm_eval_glue import function


def __getattr__(name):
    return function(name)
'''


def _q(value) -> str:
    """A YAML scalar (JSON strings and numbers are YAML)."""
    return json.dumps(value, ensure_ascii=False)


def task_yaml(name: str) -> str:
    """The lm-eval YAML of harness task ``name``, from its declaration."""
    t = task(name)
    fn = f"!function utils.{{}}{_SEP}{name}"
    lines = [
        f"# {t.description}",
        f"# made by argbench from the declaration in {t.source} (argbench harness-path)",
        f"task: {PREFIX}{name}",
        "tag: argbench",
        f"custom_dataset: {fn.format('dataset')}",
        "test_split: test",
        f"doc_to_text: {fn.format('prompt')}",
    ]
    if t.behaviour.choice:
        lines += [
            "output_type: multiple_choice",
            f"doc_to_choice: {fn.format('choices')}",
            f"doc_to_target: {fn.format('target')}",
            'target_delimiter: ""',
        ]
    else:
        generation = t.generation
        lines += [
            "output_type: generate_until",
            'doc_to_target: ""',
            "generation_kwargs:",
            f"  until: {_q(list(generation.get('stop') or []))}",
            f"  max_gen_toks: {int(generation['max_tokens'])}",
            "  do_sample: false",
        ]
    lines += [f"process_results: {fn.format('results')}", "metric_list:"]
    for label, (_, figure) in runs.figures(name).items():
        lines += [
            f"  - metric: {label}",
            f"    aggregation: !function utils.figure{_SEP}{name}{_SEP}{label}",
            f"    higher_is_better: {'true' if figure.higher_is_better else 'false'}",
        ]
    lines += ["metadata:", f"  version: {TASK_VERSION}"]
    return "\n".join(lines) + "\n"


def _files() -> dict[str, str]:
    files = {f"{PREFIX}{name}.yaml": task_yaml(name) for name in tasks(harness=True)}
    return {**files, "utils.py": _UTILS}


def lm_eval_path() -> Path:
    """The folder to pass to ``lm_eval --include_path``: written from the declarations
    (``$ARGBENCH_LM_EVAL_TASKS``, else ``$HF_HOME/argbench/lm_eval_tasks``), in a subfolder
    named by the digest of its files. A folder whose files differ from what the declarations
    make (edited, cut short) is replaced, never used: the cache answers only for what it
    stored."""
    files = _files()
    digest = hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()[:12]
    folder = cache_folder(CACHE_ENV, "lm_eval_tasks") / digest
    for _ in range(5):  # other processes may be writing (or replacing a damaged copy) at once
        if _holds(folder, files):
            return folder
        _write(folder, files, digest)
    if not _holds(folder, files):
        raise OSError(f"{folder}: could not write argbench's lm-eval task files there")
    return folder


def _write(folder: Path, files: dict[str, str], digest: str) -> None:
    """Write ``files`` into a staging folder and swap it in; a damaged ``folder`` is moved
    aside first, unless another process has made it right meanwhile."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{digest}-", dir=folder.parent))
    for file_name, text in files.items():
        (staging / file_name).write_text(text, encoding="utf-8")
    if folder.exists() and not _holds(folder, files):
        stale = Path(tempfile.mkdtemp(prefix=f".{digest}-stale-", dir=folder.parent))
        try:
            os.replace(folder, stale / "old")
        except OSError:
            pass
        shutil.rmtree(stale, ignore_errors=True)
    try:
        os.replace(staging, folder)  # atomic; another process may have written it first
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)


def _holds(folder: Path, files: dict[str, str]) -> bool:
    try:
        return all((folder / f).read_text(encoding="utf-8") == text for f, text in files.items())
    except (OSError, UnicodeDecodeError):
        return False


# ---------------------------------------------------------------- the functions YAML names


def _output(name: str, results):
    if task(name).behaviour.choice:
        return [loglikelihood for loglikelihood, _ in results]  # one per choice, in order
    return results[0]


def _make(kind: str, name: str, label: str | None):
    t = task(name)
    if kind == "dataset":

        def dataset(**_):
            import datasets  # heavy: only when lm-eval builds the task

            # lm-eval builds the datasets before the first request: what scoring needs is
            # checked here
            return {"test": datasets.Dataset.from_list(checks.harness_documents(name))}

        return dataset
    if kind == "prompt":
        return lambda doc: runs.prompt(name, doc)
    if kind == "choices":
        return lambda doc: list(t.choices)
    if kind == "target":
        return lambda doc: t.behaviour.target(doc)
    if kind == "results":
        labels = list(runs.figures(name))
        return lambda doc, results: dict.fromkeys(
            labels, runs.prediction(name, doc, _output(name, results))
        )
    if kind == "figure" and label in runs.figures(name):
        metric, figure = runs.figures(name)[label]
        return lambda records: runs.figure(name, records, metric, figure.key)
    return None


def function(attribute: str):
    """The function ``utils.<attribute>`` names: ``<what>__<task>`` or
    ``figure__<task>__<label>``; anything else is an AttributeError (as for a missing name)."""
    kind, _, rest = attribute.partition(_SEP)
    name, _, label = rest.partition(_SEP)
    made = None
    if name in tasks(harness=True):
        made = _make(kind, name, label or None)
    if made is None:
        raise AttributeError(f"argbench's lm-eval utils has no function {attribute!r}")
    return made
