"""Records (JSON objects, dataset rows) → a metric's compute() inputs, checked.

Each metric's declaration (``METRIC.columns``, :mod:`argbench.scoring.declaration`) says which
record field feeds which compute() input; every value is checked against the metric's features (its plain ``INPUTS``, see
:mod:`argbench.scoring`) here, so bad input is an error naming the
record and field, never an Arrow traceback. Used by ``argbench evaluate`` and by
:func:`argbench.evaluate_predictions`.
"""

from __future__ import annotations

from argbench.loaders._readers import parse_numbered
from argbench.scoring import declaration
from argbench.scoring._checks import check_value


def resolve_columns(metric: str, overrides: dict[str, str], features) -> dict[str, str]:
    """The default columns of ``metric`` with ``overrides`` applied; an empty field turns an
    optional input off."""
    columns = dict(declaration(metric).columns)
    for name, field in overrides.items():
        if name not in columns:
            raise ValueError(
                f"column {name!r}: not an input of {metric} (inputs: {', '.join(columns)})"
            )
        columns[name] = field
    return {name: field for name, field in columns.items() if field or name in features}


def where(index: int, keys) -> str:
    return f"record {index}" + (f" ({keys[index]!r})" if keys else "")


def top_fields(field: str) -> list[str]:
    """The record fields a column reads: ``"a.b"`` reads a, ``"a+b"`` reads a and b."""
    return [part.split(".")[0] for part in field.split("+")]


def field_value(record, field: str, at: str):
    """``record[field]``; ``"a.b"`` is field b of every element of list a; ``"a+b"`` names
    a thing by several fields (an argument by discussion and argument id): their values
    joined by ``/`` as one string."""
    if isinstance(record, dict) and field in record:
        return record[field]
    if "+" in field:
        parts = [field_value(record, part, at) for part in field.split("+")]
        return "/".join(str(part) for part in parts)
    head, _, rest = field.partition(".")
    if not isinstance(record, dict) or head not in record:
        have = list(record) if isinstance(record, dict) else type(record).__name__
        raise ValueError(f"{at}: no field {head!r} (has {have})")
    value = record[head]
    if not rest:
        return value
    if not isinstance(value, list):
        raise ValueError(f"{at}, field {head!r}: expected a list for {field!r}, got {value!r:.60}")
    return [field_value(item, rest, f"{at}, {head}[{j}]") for j, item in enumerate(value)]


def inputs_from_records(
    metric: str,
    records: list,
    keys,
    features,
    columns: dict[str, str],
    note=lambda message: None,
    *,
    strip_numbers: bool = False,
    expand: bool = True,
    describe=None,
) -> dict:
    """compute() inputs from ``records`` (``keys``: their ids when the JSON was keyed by id).

    With ``expand``, a record holding a list where the metric wants one string is one example
    per element (its other fields repeated); without, that is an error (one example per
    record: predictions joined to a split). ``strip_numbers``: drop the CAM files' "N. "
    prefixes from argument lists (see :func:`strip_argument_numbers`). ``describe(index)``
    names a record in errors (default: its index and key).
    """
    describe = describe or (lambda index: where(index, keys))
    single = next(iter(features)) if len(features) == 1 else None
    used = {}
    for name, field in columns.items():
        first = records[0]
        present = isinstance(first, dict) and all(f in first for f in top_fields(field))
        if name not in features and not present:
            note(f"{name}: the records have no field {field!r}; not used")
            continue
        used[name] = field
    inputs: dict = {name: [] for name in used}
    expanded = []
    for index, record in enumerate(records):
        at = describe(index)
        if single and not isinstance(record, dict):
            values = {single: record}
        else:
            values = {name: field_value(record, field, at) for name, field in used.items()}
        listed = [
            name
            for name, value in values.items()
            if name in features and is_string(features[name]) and isinstance(value, list)
        ]
        if listed and not expand:
            raise ValueError(
                f"{at}, field {used.get(listed[0], listed[0])!r}: expected a string, got a list "
                "(one prediction per item)"
            )
        if listed:  # a list where a string is wanted: one example per element
            expanded.append(index)
            size = len(values[listed[0]])
            values = {k: v if k == listed[0] else [v] * size for k, v in values.items()}
        else:
            values = {k: [v] for k, v in values.items()}
        for name, value in values.items():
            if name in features:
                for item in value:
                    check_value(item, features[name], f"{at}, field {used.get(name, name)!r}")
            inputs[name].extend(value)
    if expanded:
        note(
            f"{len(expanded)} record(s) hold a list where a string is expected: "
            f"{len(records)} records -> {len(next(iter(inputs.values())))} examples"
        )
    if strip_numbers and declaration(metric).argument_lists:
        inputs["references"] = strip_argument_numbers(inputs["references"], note)
    return inputs


def is_string(feature) -> bool:
    return feature == "string"


def strip_argument_numbers(references: list, note) -> list:
    """Drop the authors' ``"N. "`` prefixes when every argument of every record has its own."""
    total = 0
    for index, arguments in enumerate(references):
        for position, argument in enumerate(arguments, 1):
            parsed = parse_numbered(argument)
            if not parsed or parsed[0] != position:
                if total or parsed:
                    note(
                        f"arguments kept as they are: example {index} argument {position - 1} "
                        f"is not numbered '{position}. ' ({argument!r:.60})"
                    )
                return references
            total += 1
    if not total:
        return references
    note(
        "stripped the authors' 'N. ' prefixes from the arguments: numbered 1, 2, ... in all "
        f"{len(references)} examples"
    )
    return [[parse_numbered(a)[1] for a in arguments] for arguments in references]
