"""The benchmark tasks, each declared once: ``argbench/tasks/<corpus>.yaml``.

A task is a corpus split that systems are scored on: its corpus, config and split, the id
field that names an item, what a prediction is (the record field the metrics read), the
metrics and the options that make its protocol, and, for a task a harness runs, how a
document becomes a prompt and a model output a prediction (its ``kind``,
:mod:`argbench.tasks.kinds`, with the prompt text in the declaration). Everything else reads
the declarations: the Hub's ``eval.yaml`` and the eval-results protocol checks
(:mod:`argbench.hub_eval`), the lm-evaluation-harness and inspect-ai tasks
(:mod:`argbench.harness`), ``argbench import-harness``. Nothing outside them branches on a
corpus name: adding a task is one entry in one of these files (a new corpus: a new file).

A file holds one corpus's tasks (``tasks:``, a list); what several tasks share is written
once with a YAML anchor and merged (``<<: *name``), as lm-evaluation-harness tasks share a
template with ``include``.
"""

from __future__ import annotations

import functools
import inspect
import os
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import yaml

from argbench.io import decode_utf8, parse_yaml
from argbench.scoring import declaration, metric_function
from argbench.tasks.kinds import KINDS, Kind

__all__ = [
    "HubTask",
    "Sample",
    "Task",
    "TaskDeclarationError",
    "hub_tasks",
    "id_columns",
    "samples",
    "task",
    "tasks",
]

# importlib.resources, not __file__: the Spaces run argbench from a zip (argbench.space_bundle)
HERE = resources.files(__name__)


class TaskDeclarationError(ValueError):
    """A task declaration is malformed (names the file, the task and the field)."""


@dataclass(frozen=True)
class HubTask:
    """One task of a corpus's ``eval.yaml`` (one leaderboard): a metric on a config/split and
    its protocol (signature field -> the values it may have; None: it may be absent)."""

    id: str
    metric: str
    config: str
    split: str
    protocol: dict
    task: str  # the declaration it comes from


@dataclass(frozen=True)
class Task:
    """One benchmark task as declared (see the module docstring)."""

    name: str
    corpus: str
    config: str
    split: str
    id_fields: tuple[str, ...]  # the corpus's id columns for an item of the split
    prediction: str
    metrics: tuple[str, ...]
    description: str
    judged_metrics: tuple[str, ...] = ()  # added when an LLM judge is configured
    options: dict = field(default_factory=dict)  # metric -> compute() options
    protocol: dict = field(default_factory=dict)  # metric -> signature field -> values
    hub: dict = field(default_factory=dict)  # metric -> task id in eval.yaml
    harness: bool = False
    kind: str | None = None  # how a harness turns documents into prompts and outputs back
    prompt: str | None = None
    prompt_fields: dict = field(default_factory=dict)  # fixed fields of the prompt
    choices: tuple[str, ...] = ()  # a choice task's continuations
    generation: dict = field(default_factory=dict)
    documents: dict = field(default_factory=dict)  # field -> value a harness document has
    dev: dict = field(default_factory=dict)  # where a dev part comes from (kind relation)
    source: str = ""  # the declaring file

    @property
    def id_field(self) -> str:
        """The leading id column: what a harness document and its prediction record are keyed
        by (predictions may give a leading part of the ids, argbench.results.join)."""
        return self.id_fields[0]

    @property
    def behaviour(self) -> Kind:
        """The task's kind (:mod:`argbench.tasks.kinds`)."""
        return KINDS[self.kind]

    def options_for(self, metric: str) -> dict:
        """compute() options of ``metric`` in this task. An option declared ``{env: NAME}``
        takes ``$NAME``, or the metric's own default when it is unset (so the options name
        every setting the run used)."""
        out = {}
        defaults = inspect.signature(metric_function(metric)[0]).parameters
        for key, value in (self.options.get(metric) or {}).items():
            if isinstance(value, dict) and set(value) == {"env"}:
                value = os.environ.get(value["env"]) or defaults[key].default
            out[key] = value
        return out

    def option_env(self, metric: str, option: str) -> str | None:
        """The environment variable an option is read from, if it is declared so."""
        value = (self.options.get(metric) or {}).get(option)
        return value["env"] if isinstance(value, dict) else None

    def hub_tasks(self) -> list[HubTask]:
        return [
            HubTask(
                hub_id, metric, self.config, self.split, self.protocol.get(metric, {}), self.name
            )
            for metric, hub_id in self.hub.items()
        ]


@dataclass(frozen=True)
class Sample:
    """A real system output of a corpus (``argbench sample NAME``): a release file as it is
    (``source``: its key among the corpus's source files) or rows of a split (``config``,
    ``split``, ``fields``) written as JSON Lines predictions."""

    corpus: str
    what: str
    unit: str  # what one record is, for the message ("interventions", "answers")
    source: str | None = None
    scored_on: str | None = None  # config/split a source file's records are items of
    config: str | None = None
    split: str | None = None
    fields: tuple[str, ...] = ()


_FIELDS = {f.name for f in Task.__dataclass_fields__.values()} - {"source"}
_REQUIRED = ("name", "corpus", "config", "split", "id_fields", "prediction", "metrics")


def _task_of(entry, where: str) -> Task:
    if not isinstance(entry, dict):
        raise TaskDeclarationError(f"{where}: a task is a mapping, got {entry!r:.60}")
    name = entry.get("name", "?")
    at = f"{where}, task {name!r}"
    unknown = sorted(set(entry) - _FIELDS)
    if unknown:
        raise TaskDeclarationError(
            f"{at}: unknown field(s) {', '.join(unknown)} (fields: {', '.join(sorted(_FIELDS))})"
        )
    missing = [key for key in _REQUIRED if not entry.get(key)]
    if missing:
        raise TaskDeclarationError(f"{at}: missing field(s) {', '.join(missing)}")
    if not entry.get("description"):
        raise TaskDeclarationError(f"{at}: missing field description (a line for docs, --help)")
    values = dict(entry)
    for key in ("metrics", "judged_metrics", "choices", "id_fields"):
        values[key] = tuple(entry.get(key) or ())
    for metric in (*values["metrics"], *values["judged_metrics"]):
        try:
            declaration(metric)  # imports that metric's module only
        except ValueError as error:
            raise TaskDeclarationError(f"{at}, field metrics: {error}") from None
    for key in ("options", "protocol", "hub"):
        for metric in entry.get(key) or {}:
            if metric not in values["metrics"] + values["judged_metrics"]:
                raise TaskDeclarationError(
                    f"{at}, field {key}: {metric!r} is not one of the task's metrics"
                )
    if entry.get("harness"):
        if entry.get("kind") not in KINDS:
            raise TaskDeclarationError(
                f"{at}, field kind: {entry.get('kind')!r}; a harness task has one of "
                f"{', '.join(KINDS)}"
            )
        if not entry.get("prompt"):
            raise TaskDeclarationError(f"{at}: a harness task needs a prompt")
        if KINDS[entry["kind"]].needs_choices and not values["choices"]:
            raise TaskDeclarationError(f"{at}: kind {entry['kind']} needs choices")
        dev = entry.get("dev")
        if KINDS[entry["kind"]].needs_dev and not (
            isinstance(dev, dict) and {"split", "fraction", "seed"} <= set(dev)
        ):
            raise TaskDeclarationError(
                f"{at}, field dev: kind {entry['kind']} needs {{split, fraction, seed}} (where "
                f"its dev documents come from), got {dev!r}"
            )
    return Task(**values, source=where)


def _files() -> dict[str, dict]:
    return read_files(HERE)


@functools.cache
def read_files(folder) -> dict[str, dict]:
    """file (as named in errors) -> its parsed declarations, for each ``*.yaml`` in ``folder``
    (a path, or a folder of a package inside a zip)."""
    folder = folder if hasattr(folder, "iterdir") else Path(folder)
    out = {}
    for path in sorted((p for p in folder.iterdir() if p.name.endswith(".yaml")), key=str):
        where = f"argbench/tasks/{path.name}" if folder == HERE else str(path)
        try:
            document = parse_yaml(decode_utf8(path.read_bytes(), where), where, yaml.safe_load)
        except yaml.YAMLError as error:
            raise TaskDeclarationError(f"{where}: not YAML ({error})") from None
        except ValueError as error:  # not UTF-8, a number out of range, nesting too deep
            raise TaskDeclarationError(str(error)) from None
        if not isinstance(document, dict) or not isinstance(document.get("tasks"), list):
            raise TaskDeclarationError(f"{where}: expected a mapping with a list 'tasks'")
        if not isinstance(document.get("corpus"), str):
            raise TaskDeclarationError(f"{where}: expected the corpus's name in 'corpus'")
        out[where] = document
    return out


def _declared() -> dict[str, Task]:
    return read_tasks(HERE)


@functools.cache
def read_tasks(folder) -> dict[str, Task]:
    """name -> task declared in the ``*.yaml`` files of ``folder``, checked (a malformed
    declaration is a :class:`TaskDeclarationError` naming the file, task and field)."""
    found: dict[str, Task] = {}
    for where, document in read_files(folder).items():
        for entry in document["tasks"]:
            declared = _task_of(entry, where)
            if declared.name in found:
                raise TaskDeclarationError(
                    f"{where}: task {declared.name!r} is declared twice (also in "
                    f"{found[declared.name].source})"
                )
            found[declared.name] = declared
    hub_ids: dict[tuple[str, str], str] = {}
    for declared in found.values():
        for hub in declared.hub_tasks():
            key = (declared.corpus, hub.id)
            if key in hub_ids:
                raise TaskDeclarationError(
                    f"{declared.source}: Hub task {hub.id!r} of {declared.corpus} is declared by "
                    f"{hub_ids[key]} and {declared.name}"
                )
            hub_ids[key] = declared.name
    return found


def tasks(*, harness: bool | None = None) -> dict[str, Task]:
    """name -> task, in declaration order; ``harness=True``: only the tasks a harness runs."""
    return {name: t for name, t in _declared().items() if harness is None or t.harness == harness}


def task(name: str) -> Task:
    """The task ``name``; an unknown name is an error listing the tasks."""
    declared = _declared()
    if name not in declared:
        raise ValueError(f"unknown argbench task {name!r}; tasks: {', '.join(declared)}")
    return declared[name]


def samples() -> dict[str, Sample]:
    """corpus -> its sample system output (``sample:`` in the corpus's file), where it has one."""
    out = {}
    for where, document in _files().items():
        spec = document.get("sample")
        if spec is None:
            continue
        known = set(Sample.__dataclass_fields__) - {"corpus"}
        if not isinstance(spec, dict) or set(spec) - known or not spec.get("what"):
            raise TaskDeclarationError(
                f"{where}, field sample: expected a mapping with 'what' and some of "
                f"{', '.join(sorted(known))}, got {spec!r:.80}"
            )
        out[document["corpus"]] = Sample(
            corpus=document["corpus"], **{**spec, "fields": tuple(spec.get("fields") or ())}
        )
    return out


def id_columns() -> list[tuple[str, ...]]:
    """The corpora's id columns the declared tasks name, each once: what joins a system's
    predictions to a split's rows when the caller names none."""
    return list(dict.fromkeys(t.id_fields for t in _declared().values()))


def hub_tasks(corpus: str | None = None) -> list[HubTask]:
    """The Hub tasks (``eval.yaml``) of ``corpus`` (all corpora: None), in declaration order."""
    return [
        hub
        for t in _declared().values()
        if corpus is None or t.corpus == corpus
        for hub in t.hub_tasks()
    ]
