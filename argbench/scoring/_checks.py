"""Input checks shared by the metric functions: errors name the field and the example index."""

from __future__ import annotations

import math
from collections.abc import Sequence


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


def check_text(value: str, where: str) -> None:
    """A str that UTF-8 (Arrow, the embedding cache keys) can store: no lone surrogates."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ValueError(
            f"{where}: not valid Unicode: lone surrogate {value[error.start]!r} at position "
            f"{error.start} (a text decoded with errors='surrogateescape' or a broken \\ud8xx "
            "escape); fix or drop that character"
        ) from None


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
