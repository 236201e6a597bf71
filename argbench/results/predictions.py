"""A system's predictions: read (JSON, JSON Lines, CQs-Gen shared-task files) and joined to a
split's rows by the corpus's own ids."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from argbench.io import check_text, json_keys, read_json, read_records, record_lines
from argbench.records import where
from argbench.tasks import id_columns

__all__ = [
    "join",
    "read_predictions",
    "read_submission_file",
    "record_places",
    "split_item_ids",
]

# The corpora's own ids are the declared tasks' id columns (argbench.tasks.id_columns), looked
# for in that order among a split's columns. Predictions give all the fields of one, or a
# leading part: cam_answers predictions with only question_id are one answer per question,
# scored against that question's arguments.
SHOWN = 10  # ids listed in an error message


def read_predictions(source, submissions: bool = True) -> tuple[list, list | None]:
    """(records, their keys when keyed by id) from a path (``.json``, ``.jsonl``) or the
    parsed data. With ``submissions``, CQs-Gen shared-task records (``{id: {"cqs": [{"id",
    "cq"}] or "Missing CQs"}}``) get ``cqs`` as question strings (``["Missing CQs"]`` for
    none), in JSON or JSON Lines alike."""
    if isinstance(source, (str, Path)):
        data = read_records(source, formats=("json", "jsonl"))
    else:
        data = source
    if isinstance(data, dict):
        if isinstance(source, (str, Path)):
            _refuse_repeated_keys(source, len(data))
        keys, records = [str(k) for k in data], list(data.values())
    elif isinstance(data, list):
        keys, records = None, list(data)
    else:
        raise ValueError("predictions: expected a list of records or an object keyed by id")
    return [_submission_record(r) for r in records] if submissions else records, keys


def _refuse_repeated_keys(path, held: int) -> None:
    """A keyed predictions file that writes one id twice: JSON keeps the last value
    silently, so the first prediction would be dropped unseen. Named by its lines."""
    written = json_keys(path)
    if len(written) == held:
        return
    lines: dict[str, list[int]] = {}
    for key, line in written:
        lines.setdefault(key, []).append(line)
    repeated = {k: v for k, v in lines.items() if len(v) > 1}
    places = "; ".join(
        f"{k!r} at lines {', '.join(map(str, v))}" for k, v in list(repeated.items())[:5]
    )
    raise ValueError(
        f"{path}: {len(repeated):,} ids occur more than once in the predictions: "
        f"{_listing(repeated)} ({places}); JSON would keep only the last of each"
    )


def _submission_record(record):
    """A shared-task record's ``cqs`` as plain question strings."""
    if not isinstance(record, dict) or "cqs" not in record:
        return record
    cqs = record["cqs"]
    if isinstance(cqs, str):
        return {**record, "cqs": [cqs]}  # "Missing CQs"
    if isinstance(cqs, list) and cqs and all(isinstance(c, dict) and "cq" in c for c in cqs):
        return {**record, "cqs": [c["cq"] for c in cqs]}
    return record


def _id_text(value, at: str, field: str) -> str:
    """An id as text; whitespace around it or a character UTF-8 cannot store is an error
    (``" 3"`` and ``"3"`` would be two ids that look the same; a lone surrogate cannot be
    written to the results file)."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise ValueError(f"{at}: id field {field!r} must be a string or an integer, got {value!r}")
    text = str(value)
    check_text(text, f"{at}: id field {field!r}")
    if text != text.strip() or not text:
        raise ValueError(
            f"{at}: id field {field!r} is {text!r}: "
            + ("empty" if not text.strip() else "whitespace around an id")
            + " (ids are compared exactly; strip them)"
        )
    return text


def _listing(ids, total=None) -> str:
    ids = list(ids)
    shown = ", ".join(repr(i) for i in ids[:SHOWN])
    more = (total or len(ids)) - min(len(ids), SHOWN)
    return shown + (f" and {more:,} more" if more > 0 else "")


def _id_fields(columns, given) -> tuple[str, ...]:
    if given:
        fields = (given,) if isinstance(given, str) else tuple(given)
        absent = [f for f in fields if f not in columns]
        if absent:
            raise ValueError(f"the split has no id column {absent[0]!r} (columns: {columns})")
        return fields
    known = id_columns()
    for fields in known:
        if fields[0] in columns:
            return tuple(f for f in fields if f in columns)
    raise ValueError(
        f"the split has none of the id columns argbench knows ({', '.join(f[0] for f in known)}); "
        "name one with id_fields="
    )


def record_places(source, keys):
    """index -> where a person finds that prediction: in a file, its line (a JSON list also
    its element's index, a keyed JSON object the key); records in memory, their index (and
    key). The file's lines are read only when an error names a record."""
    if not isinstance(source, (str, Path)):
        return lambda index: where(index, keys)
    lines: list[int] = []

    def place(index: int) -> str:
        if not lines:
            lines.extend(record_lines(source))
        line = f"line {lines[index]}" if index < len(lines) else f"record {index}"
        if keys:
            return f"{line} (key {keys[index]!r})"
        return line if Path(source).suffix == ".jsonl" else f"{line} (element {index})"

    return place


def join(
    rows: list[dict],
    records,
    keys,
    *,
    id_fields,
    take,
    reference_fields,
    allow_missing,
    place=None,
):
    """Predictions joined to split rows by id, in the split's order.

    ``take``: the prediction fields copied onto each row. Returns (merged rows, their ids,
    ids of the split without a prediction, every item id of the split in its order: where a
    sharded run's items sit in the whole run). Duplicate and unknown ids are always errors;
    missing ones unless ``allow_missing``. ``place``: index -> where a person finds that
    record (:func:`record_places`; by default its index and key)."""
    place = place or (lambda index: where(index, keys))
    if not records:
        raise ValueError("predictions: no records")
    first = records[0] if isinstance(records[0], dict) else {}
    level = sum(1 for _ in _prefix(id_fields, first)) or (1 if keys else 0)
    if not level:
        raise ValueError(
            f"{place(0)}: no id field {id_fields[0]!r}: each prediction names its item "
            f"({' + '.join(id_fields)})"
        )
    fields = id_fields[:level]
    ids = []
    for index, record in enumerate(records):
        at = place(index)
        if not isinstance(record, dict):
            raise ValueError(f"{at}: expected an object with {fields[0]!r}, got {record!r:.60}")
        parts = []
        for position, field in enumerate(fields):
            if field in record:
                parts.append(_id_text(record[field], at, field))
                if position == 0 and keys and parts[0] != keys[index]:
                    raise ValueError(
                        f"{at}: the key {keys[index]!r} and the record's {field} {parts[0]!r} "
                        "disagree: which item is it? Make them equal"
                    )
            elif position == 0 and keys:
                parts.append(_id_text(keys[index], at, field))
            else:
                raise ValueError(f"{at}: no id field {field!r} (has {list(record)})")
        ids.append("-".join(parts))
    duplicates = [i for i, c in Counter(ids).items() if c > 1]
    if duplicates:
        places = "; ".join(
            f"{i!r} at {', '.join(place(k) for k, x in enumerate(ids) if x == i)}"
            for i in duplicates[:5]
        )
        raise ValueError(
            f"{len(duplicates):,} ids occur more than once in the predictions: "
            f"{_listing(duplicates)} ({places})"
        )

    by_id: dict[str, dict] = {}
    for index, row in enumerate(rows):
        key = "-".join(str(row[f]) for f in fields)
        if key in by_id:
            kept = by_id[key]
            for field in reference_fields:
                if row.get(field) != kept.get(field):
                    raise ValueError(
                        f"split rows {kept['__row']} and {index} share the id {key!r} but differ "
                        f"in {field!r}: name the item fully ({' + '.join(id_fields)})"
                    )
            continue
        by_id[key] = {**row, "__row": index}
    unknown = [i for i in ids if i not in by_id]
    if unknown:
        raise ValueError(
            f"{len(unknown):,} prediction ids are not in the split: {_listing(unknown)} "
            f"(ids are {' + '.join(fields)}, e.g. {next(iter(by_id))!r})"
        )
    position = {i: p for p, i in enumerate(ids)}
    missing = [key for key in by_id if key not in position]
    if missing and not allow_missing:
        raise ValueError(
            f"{len(missing):,} of the split's {len(by_id):,} items have no prediction: "
            f"{_listing(missing)}; allow_missing=True scores the others"
        )
    merged, order = [], []
    for key, row in by_id.items():
        if key not in position:
            continue
        index = position[key]
        record = records[index]
        row = {k: v for k, v in row.items() if k != "__row"}
        for field in take:
            if field not in record:
                raise ValueError(f"{place(index)}: no field {field!r} (has {list(record)})")
            row[field] = record[field]
        merged.append(row)
        order.append(key)
    return merged, order, missing, list(by_id)


def _prefix(fields, record):
    for field in fields:
        if field not in record:
            return
        yield field


def split_item_ids(split) -> list[str]:
    """Ids of a split's rows (its id columns, else the row index)."""
    try:
        fields = _id_fields(split.data.column_names, None)
    except ValueError:
        return [str(i) for i in range(len(split.data))]
    columns = [split.data[f] for f in fields]
    return ["-".join(str(v) for v in values) for values in zip(*columns, strict=True)]


def read_submission_file(path) -> dict:
    """A CQs-Gen shared-task submission as ``{intervention_id: {"cqs": ...}}``, from JSON or
    JSON Lines (one ``{"intervention_id", "cqs"}`` record per line)."""
    from argbench.scoring.cq_reference_match import MISSING

    if Path(path).suffix != ".jsonl":
        return read_json(path)
    records, _ = read_predictions(path)  # cqs as question strings
    submission = {}
    for index, record in enumerate(records):
        if not isinstance(record, dict) or "intervention_id" not in record:
            raise ValueError(f"{path}, record {index}: no field 'intervention_id'")
        cqs = record.get("cqs")
        if isinstance(cqs, list):
            is_missing = cqs == [MISSING]
            cqs = MISSING if is_missing else [{"id": j, "cq": q} for j, q in enumerate(cqs)]
        submission[str(record["intervention_id"])] = {**record, "cqs": cqs}
    return submission
