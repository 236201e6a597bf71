"""The Hub's benchmark format: ``eval.yaml`` in a dataset repo, ``.eval_results/*.yaml`` in a
model repo (https://huggingface.co/docs/hub/eval-results).

A published corpus that systems are scored on carries ``eval.yaml``: one task (one leaderboard)
per (metric, config, split) a system is scored with. The tasks are the Hub tasks of the task
declarations (:func:`argbench.tasks.hub_tasks`), each with its *protocol*: the signature
settings a value must have been computed with to be that task's value (the paper's threshold,
the first three questions, ...). The figure is the metric's headline (its declaration,
:mod:`argbench.scoring.declaration`).

A results file of ``argbench evaluate --dataset ORG/NAME@vX --out`` converts to the model
repo's entry for its task (dataset id, task id, the commit scored, the headline value, the
date, the signature in ``notes``) only when it is a leaderboard value: read back verified
(:func:`argbench.results.read_results`), the whole split scored, every judgment made, and the
protocol kept. ``off_protocol=True`` writes a value computed otherwise, and the entry says so.

An entry holds only what the Hub's format has (``dataset``, ``value``, ``date``, ``source``,
``notes``, ``verifyToken``): the Hub's own parser drops every other key. So the system's name
is ``source.name``, ``source.url`` points at the full record (``record_url``: where the
results file or its Every Eval Ever record is published; else ``urn:argbench:<digest>``, the
results file's digest, which names that file and no other), and ``notes`` holds the signature
and, for a value off the protocol, what differs (``OFF-PROTOCOL: ...`` on its own line).
:func:`read_entry` gives all of it back. Entries are built and parsed with
``huggingface_hub``'s own ``EvalResultEntry``, ``eval_result_entries_to_yaml`` and
``parse_eval_result_entries`` where the installed huggingface_hub has them (1.4 and later;
the harness extra holds the test environment at 0.36, where :func:`_hub_yaml` and
:func:`_hub_fields` write and read the same format).
"""

from __future__ import annotations

import io

import ruamel.yaml
import yaml
from ruamel.yaml.error import YAMLError as RuamelError

try:  # huggingface_hub >= 1.4
    from huggingface_hub import (
        EvalResultEntry,
        eval_result_entries_to_yaml,
        parse_eval_result_entries,
    )
except ImportError:  # older: the same format through _hub_yaml / _hub_fields
    EvalResultEntry = eval_result_entries_to_yaml = parse_eval_result_entries = None

from argbench.io import parse_yaml
from argbench.results import content_digest, headline_figure
from argbench.scoring import headline_of
from argbench.signature import Signature
from argbench.tasks import HubTask, hub_tasks

__all__ = [
    "NotALeaderboardValue",
    "eval_results_entry",
    "eval_yaml",
    "merge_entries",
    "protocol_differences",
    "read_entry",
]

FRAMEWORK = "argbench"  # to be registered in huggingface.js packages/tasks/src/eval.ts
OFF_PROTOCOL = "OFF-PROTOCOL: "  # the notes line that lists how a value departs from the protocol
SIGNATURE = "argbench "  # the notes line that holds the signature


class NotALeaderboardValue(ValueError):
    """The results are not a value of a benchmark task: partial, incomplete, off the task's
    protocol, or not on a Hub dataset (bad input: exit 2)."""


def eval_yaml(name: str, pretty_name: str, description: str) -> str | None:
    """The ``eval.yaml`` of corpus ``name``, or None when systems are not scored on it."""
    tasks = hub_tasks(name)
    if not tasks:
        return None
    doc = {
        "name": pretty_name,
        "description": description,
        "evaluation_framework": FRAMEWORK,
        "tasks": [{"id": t.id, "config": t.config, "split": t.split} for t in tasks],
    }
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)


def protocol_differences(task: HubTask, signature: str) -> list[str]:
    """How ``signature`` departs from ``task``'s protocol (empty: it keeps it; a value None in
    a protocol: the field may be absent)."""
    fields = Signature.parse(signature).fields
    out = []
    for name, allowed in task.protocol.items():
        value = fields.get(name)
        if value not in allowed:
            shown = " or ".join("absent" if a is None else f"{name}:{a}" for a in allowed)
            out.append(f"{name}:{value if value is not None else 'absent'} (protocol: {shown})")
    return out


def _task_of(doc: dict) -> HubTask:
    dataset = doc.get("dataset") or {}
    metric, config, split = doc["metric"], dataset.get("config"), dataset.get("split")
    for task in hub_tasks():
        if (task.metric, task.config, task.split) == (metric, config, split):
            return task
    known = ", ".join(f"{t.metric} on {t.config}/{t.split}" for t in hub_tasks())
    raise NotALeaderboardValue(
        f"{metric} on {config}/{split} is no benchmark task of eval.yaml (tasks: {known})"
    )


def eval_results_entry(
    doc: dict, *, off_protocol: bool = False, record_url: str | None = None
) -> tuple[str, dict]:
    """(file name, entry) of the ``.eval_results/`` entry for a verified results document
    (:func:`argbench.results.read_results`); :class:`NotALeaderboardValue` says why not.
    ``record_url``: where the full record is published (``source.url``)."""
    if doc.get("shards"):  # argbench merge with shards missing
        missing = ", ".join(f"{i}/{doc['shards']['count']}" for i in doc["shards"]["missing"])
        raise NotALeaderboardValue(
            f"partial results: a merge without shards {missing} (complete: false); merge "
            "every shard of the run"
        )
    dataset = doc.get("dataset") or {}
    source = str(dataset.get("source") or "")
    reasons = []  # every reason, not the first: a user fixes them all in one go
    if not source.startswith("hub:") or not dataset.get("commit"):
        reasons.append(
            "the results were not computed on a Hub dataset: score with argbench evaluate ... "
            "--dataset ORG/NAME@vVERSION --out FILE, so the entry can name the dataset and the "
            f"commit scored (this file's dataset source: {source or 'none'})"
        )
    try:
        task = _task_of(doc)
    except NotALeaderboardValue as error:
        task = None
        reasons.append(str(error))
    figure = headline_figure(doc)
    if figure["partial"]:
        reasons.append(
            f"partial results: {figure['n_missing']:,} of the split's "
            f"{figure['n_items'] + figure['n_missing']:,} items were not scored (--allow-missing "
            "or a harness --limit); a leaderboard value scores every item of the split"
        )
    if figure["incomplete"]:
        failed = (doc["result"] or {}).get("n_failed")
        reasons.append(
            f"incomplete results (complete: false, {failed} failed judgment(s), "
            "--allow-incomplete): a leaderboard value has every judgment; run it again "
            "(the replies received are cached)"
        )
    differences = protocol_differences(task, doc["signature"]) if task else []
    if differences and not off_protocol:
        reasons.append(
            f"not computed on the protocol of task {task.id}: " + "; ".join(differences) + ". "
            "Score with the task's settings, or --off-protocol to write an entry that says so"
        )
    if len(reasons) == 1:
        raise NotALeaderboardValue(reasons[0])
    if reasons:
        raise NotALeaderboardValue(
            f"{len(reasons)} reasons: " + " ".join(f"({k}) {r}" for k, r in enumerate(reasons, 1))
        )
    value = figure["value"]
    if value is None:
        key = headline_of(doc["metric"]).value
        raise NotALeaderboardValue(f"the results have no number for {doc['metric']}'s {key!r}")
    notes = [f"{OFF_PROTOCOL}{'; '.join(differences)}"] if differences else []
    fields = {
        "dataset_id": source[4:],
        "task_id": task.id,
        "value": float(value),
        "dataset_revision": dataset["commit"],
        "date": str(doc.get("created") or "")[:10] or None,
        "notes": "\n".join([*notes, f"{SIGNATURE}{doc['signature']}"]),
    }
    if doc.get("system"):
        fields["source_name"] = str(doc["system"])
        fields["source_url"] = (
            record_url or f"urn:argbench:{doc.get('digest') or content_digest(doc)}"
        )
    elif record_url:
        fields["source_url"] = record_url
    return f"{task.id}.yaml", _hub_yaml(fields)


def _hub_yaml(fields: dict) -> dict:
    """The entry as the Hub's format has it: through huggingface_hub's own
    ``EvalResultEntry`` / ``eval_result_entries_to_yaml`` where it has them, else the same
    keys written here (the format of https://huggingface.co/docs/hub/eval-results)."""
    if EvalResultEntry is not None:
        return eval_result_entries_to_yaml([EvalResultEntry(**fields)])[0]
    dataset = {"id": fields["dataset_id"], "task_id": fields["task_id"]}
    if fields.get("dataset_revision") is not None:
        dataset["revision"] = fields["dataset_revision"]
    entry = {"dataset": dataset, "value": fields["value"]}
    if fields.get("date") is not None:
        entry["date"] = fields["date"]
    if fields.get("source_url") is not None:
        entry["source"] = {"url": fields["source_url"]}
        if fields.get("source_name") is not None:
            entry["source"]["name"] = fields["source_name"]
    if fields.get("notes") is not None:
        entry["notes"] = fields["notes"]
    return entry


def _hub_fields(entry: dict) -> dict:
    """An entry's fields as huggingface_hub's ``parse_eval_result_entries`` reads them (the
    keys it does not know are dropped, as the Hub drops them)."""
    if parse_eval_result_entries is not None:
        (parsed,) = parse_eval_result_entries([entry])
        return {k: v for k, v in vars(parsed).items() if v is not None}
    dataset, source = entry.get("dataset") or {}, entry.get("source") or {}
    fields = {
        "dataset_id": dataset.get("id"),
        "task_id": dataset.get("task_id"),
        "value": entry.get("value"),
        "dataset_revision": dataset.get("revision"),
        "date": entry.get("date"),
        "source_url": source.get("url"),
        "source_name": source.get("name"),
        "notes": entry.get("notes"),
    }
    return {k: v for k, v in fields.items() if v is not None}


def read_entry(entry: dict) -> dict:
    """What an entry says, read as the Hub reads it: the Hub's fields, plus ``system`` (from
    ``source.name``), ``signature`` and ``off_protocol`` (the differences, empty when the
    protocol was kept) from ``notes``."""
    fields = _hub_fields(entry)
    off, signature = [], None
    for line in str(fields.get("notes") or "").splitlines():
        if line.startswith(OFF_PROTOCOL):
            off = line[len(OFF_PROTOCOL) :].split("; ")
        elif line.startswith(SIGNATURE):
            signature = line[len(SIGNATURE) :]
    return {
        **fields,
        "system": fields.get("source_name"),
        "signature": signature,
        "off_protocol": off,
    }


def _entry_key(entry: dict) -> tuple:
    """What makes two entries one slot: the model (``source.name``; the repo's own model when
    an entry names none), the dataset id, its revision and the task."""
    data = entry.get("dataset") if isinstance(entry.get("dataset"), dict) else {}
    source = entry.get("source") if isinstance(entry.get("source"), dict) else {}
    return (source.get("name"), data.get("id"), data.get("revision"), data.get("task_id"))


def merge_entries(existing_text: str | None, entry: dict, where: str) -> tuple[str, bool]:
    """(the YAML list with ``entry`` added, whether it replaced an entry): an existing list
    keeps every other entry; only the one for the same model, dataset, revision and task is
    replaced. A file that is not such a list is refused, not overwritten. An existing file is
    edited with a round-trip YAML library (ruamel.yaml): its comments, anchors, quoting and
    key order stay as the user wrote them."""
    if existing_text is None or not existing_text.strip():
        return yaml.safe_dump([entry], sort_keys=False, allow_unicode=True, width=1000), False
    editor = _round_trip()
    try:
        entries = parse_yaml(existing_text, where, editor.load)
    except RuamelError as error:
        raise ValueError(f"{where}: not YAML ({error}); not overwritten") from None
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ValueError(
            f"{where}: not a list of eval-results entries; not overwritten (move it aside)"
        )
    same = [k for k, e in enumerate(entries) if _entry_key(e) == _entry_key(entry)]
    for index in reversed(same):
        del entries[index]  # the other entries, and their comments, stay where they are
    entries.append(entry)
    out = io.StringIO()
    editor.dump(entries, out)
    return out.getvalue(), bool(same)


def _round_trip():
    editor = ruamel.yaml.YAML(typ="rt")
    editor.preserve_quotes = True
    editor.width = 1000
    editor.allow_unicode = True
    return editor
