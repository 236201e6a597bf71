"""Input checks shared by the metric functions: errors name the field and the example index."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

from argbench.io import check_text
from argbench.scoring import Labels


def check_same_length(**fields: Sequence) -> int:
    lengths = {}
    for name, values in fields.items():
        if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
            raise TypeError(f"{name} must be a list, got {type(values).__name__}")
        lengths[name] = len(values)
    if len(set(lengths.values())) > 1:
        shown = ", ".join(f"{k}={v}" for k, v in lengths.items())
        raise ValueError(f"inputs must have one entry per example; got lengths {shown}")
    n = next(iter(lengths.values()))
    if n == 0:
        raise ValueError(f"{', '.join(lengths)} are empty: nothing to score")
    return n


def check_str(field: str, index: int, value) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{field}[{index}] must be a str, got {type(value).__name__}")
    return value


def check_str_list(field: str, index: int, value) -> list[str]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(f"{field}[{index}] must be a list of str, got {type(value).__name__}")
    for j, item in enumerate(value):
        if not isinstance(item, str):
            raise TypeError(f"{field}[{index}][{j}] must be a str, got {type(item).__name__}")
    return list(value)


def harmonic_f1(p: float, r: float) -> float:
    return 0.0 if p == 0 or r == 0 else 2 * p * r / (p + r)


def mean_or_nan(values: list[float]) -> float:
    return math.fsum(values) / len(values) if values else float("nan")


def as_plain(column):
    """What the ecosystem passes for a column, as Python values: numpy arrays, torch tensors
    and pandas Series (``tolist()``), a ``datasets`` Column or any other sequence of them
    (0-d tensors, numpy scalars: ``item()``). Lists of plain values are returned as they are
    (checked cheaply on the first item), so a million strings are not copied."""
    if column is None or isinstance(column, (str, bytes, dict)):
        return column
    if hasattr(column, "tolist") and not isinstance(column, (list, tuple)):
        return column.tolist()  # numpy, torch, pandas: nested values converted too
    if not isinstance(column, (list, tuple)):
        if not hasattr(column, "__iter__"):
            return column
        column = list(column)  # datasets Column, generators of rows, ranges
    first = next((v for v in column if v is not None), None)
    if first is not None and (
        hasattr(first, "tolist")
        or (
            not isinstance(first, (str, bytes, dict))
            and hasattr(first, "__iter__")
            and not isinstance(first, (list, tuple))
        )
    ):
        return [None if v is None else as_plain(v) for v in column]
    if isinstance(first, (list, tuple)) and first and hasattr(first[0], "tolist"):
        return [None if v is None else as_plain(v) for v in column]
    return column


def check_value(value, spec, where: str) -> None:
    """``value`` fits ``spec``, an entry of a metric's plain ``INPUTS`` (see argbench.scoring),
    exactly as it is: an int is an int (not 1.9, not True), a string is a string UTF-8 can
    store. None is allowed inside lists (metrics treat unknowns). The command line checks its
    records with this, and the evaluate modules their raw inputs, before evaluate's Features
    encode them (which would turn 1.9 into 1, "2" into 2.0 and 5 into "5")."""

    def fail(expected):
        raise TypeError(f"{where}: expected {expected}, got {value!r:.80}")

    if isinstance(spec, dict):
        if not isinstance(value, dict):
            fail(f"an object with {', '.join(spec)}")
        for key, sub in spec.items():
            if key not in value:
                fail(f"an object with {', '.join(spec)} (no {key!r})")
            check_value(value[key], sub, f"{where}.{key}")
    elif isinstance(spec, list):
        if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__"):
            fail("a list")
        for j, item in enumerate(value):
            if item is not None:
                check_value(item, spec[0], f"{where}[{j}]")
    elif isinstance(spec, Labels):
        is_index = isinstance(value, numbers.Integral) and not isinstance(value, bool)
        if value not in spec.names and not (is_index and 0 <= value < len(spec.names)):
            raise ValueError(
                f"{where}: expected one of {list(spec.names)} or its index, got {value!r:.80}"
            )
    elif spec == "string":
        if not isinstance(value, str):
            fail("a string")
        check_text(value, where)
    elif spec.startswith(("int", "uint")):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            fail("an integer")
    elif spec.startswith("float"):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            fail("a number")


def check_inputs(inputs: dict, specs: dict) -> None:
    """Every example of every input named in ``specs`` (``{name: column}``)."""
    for name, column in inputs.items():
        if column is None or name not in specs:
            continue  # evaluate reports missing inputs itself
        if isinstance(column, (str, bytes, dict)) or not hasattr(column, "__iter__"):
            raise TypeError(f"{name} must be a list (one item per example), got {column!r:.80}")
        for index, value in enumerate(column):
            check_value(value, specs[name], f"{name}[{index}]")
