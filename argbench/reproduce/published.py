"""The published figures (``published.yaml``), read with the precision the paper printed.

YAML reads ``7.50`` as 7.5, and a figure compared at one decimal instead of two agrees with
7.51: the precision is lost before any comparison. So every value in ``published.yaml`` is
written as the paper printed it, as a string: ``"7.50"`` (a point figure, compared at two
decimals), ``"9–10"`` (a range: argbench's figure must lie inside it) or ``"> 70"`` (a bound).
An unquoted number is refused, and a ``decimals:`` that disagrees with the printed form is an
error, so the two can never drift apart.

Entries may also carry ``kind`` (what the row is when it is not an independent reproduction:
see :data:`argbench.reproduce.report.KINDS`) and ``why`` (the reason, shown in the report).
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

FIELDS = {"value", "source", "decimals", "kind", "why"}
_NUMBER = r"-?\d+(?:\.\d+)?"
_POINT = re.compile(rf"^({_NUMBER})$")
_RANGE = re.compile(rf"^({_NUMBER})\s*[–-]\s*({_NUMBER})$")  # en dash or hyphen
_BOUND = re.compile(rf"^>\s*({_NUMBER})$")


class PublishedFigureError(ValueError):
    """An entry of ``published.yaml`` that does not say what the paper printed."""


def decimals_of(printed: str) -> int:
    """Digits after the point of a printed number: ``"7.50"`` -> 2, ``"869"`` -> 0."""
    return len(printed.split(".")[1]) if "." in printed else 0


def _number(text: str) -> int | float:
    return float(text) if "." in text else int(text)


def parse_printed(key: str, entry: dict) -> dict:
    """One entry of ``published.yaml`` -> ``{value, printed, decimals, shape, low, high,
    source, kind, why}``. ``value`` is the number a row compares with (a range's midpoint,
    a bound's limit); ``shape`` is ``point``, ``range`` or ``bound``."""
    where = f"published.yaml, figure {key!r}"
    if not isinstance(entry, dict):
        raise PublishedFigureError(f"{where}: expected a mapping with value and source")
    unknown = set(entry) - FIELDS
    if unknown or not {"value", "source"} <= set(entry):
        raise PublishedFigureError(
            f"{where}: fields must be value, source and optionally decimals, kind, why; "
            f"got {sorted(entry)}"
        )
    printed = entry["value"]
    figure = {
        "source": entry["source"],
        "kind": entry.get("kind"),
        "why": entry.get("why", ""),
        "printed": printed,
        "value": None,
        "decimals": None,
        "shape": "point",
        "low": None,
        "high": None,
    }
    if printed is None:
        return figure
    if not isinstance(printed, str):
        raise PublishedFigureError(
            f"{where}: value {printed!r} must be written as the paper printed it, in quotes "
            f'(e.g. "7.50"): YAML drops a trailing zero and with it the precision'
        )
    text = printed.strip()
    if match := _POINT.match(text):
        figure.update(value=_number(text), decimals=decimals_of(text))
    elif match := _RANGE.match(text):
        low, high = match.groups()
        figure.update(
            shape="range",
            low=_number(low),
            high=_number(high),
            value=(_number(low) + _number(high)) / 2,
            decimals=max(decimals_of(low), decimals_of(high)),
        )
    elif match := _BOUND.match(text):
        figure.update(shape="bound", low=_number(match[1]), value=_number(match[1]), decimals=None)
    else:
        raise PublishedFigureError(
            f"{where}: value {printed!r} is not a printed number, a range ('9–10') or a bound "
            "('> 70')"
        )
    if "decimals" in entry and entry["decimals"] != figure["decimals"]:
        raise PublishedFigureError(
            f"{where}: decimals: {entry['decimals']} disagrees with the printed form {printed!r} "
            f"({figure['decimals']} decimals)"
        )
    return figure


@cache
def published_figures() -> dict[str, dict]:
    """``published.yaml``, each entry parsed by :func:`parse_printed`."""
    import yaml

    text = resources.files("argbench.reproduce").joinpath("published.yaml").read_text("utf-8")
    return {key: parse_printed(key, entry) for key, entry in yaml.safe_load(text).items()}


def published_value(key: str):
    """The published figure ``key`` as a number (a range: its midpoint)."""
    return published_figures()[key]["value"]
