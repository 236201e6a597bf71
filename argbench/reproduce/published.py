"""The published figures (``published.yaml``), read with the precision the paper printed.

YAML reads ``7.50`` as 7.5, and a figure compared at one decimal instead of two agrees with
7.51: the precision is lost before any comparison. So every value in ``published.yaml`` is
written as the paper printed it, as a string: ``"7.50"`` (a point figure, compared at two
decimals), ``"9–10"`` (a range: argbench's figure must lie inside it) or ``"> 70"`` (a bound).
An unquoted number is refused, and a ``decimals:`` that disagrees with the printed form is an
error, so the two can never drift apart.

Entries may also carry ``kind`` (what the row is when it is not an independent reproduction:
see :data:`argbench.reproduce.report.KINDS`) and ``why`` (the reason, shown in the report).

A figure the paper computed from other published figures (a sum, a share of a total, a design
product, a quotient or difference, or the same number printed again) names them: ``derived``
is an arithmetic expression over other entries, each written ``{key}`` (``"{a} + {b}"``,
``"2 * {issues}"``), and ``how`` says which of :data:`DERIVATIONS` it is. Such an entry is of
kind ``derived``: shown with its derivation, never counted, whatever the section asks.
"""

from __future__ import annotations

import ast
import operator
import re
from functools import cache
from importlib import resources

FIELDS = {"value", "source", "decimals", "kind", "why", "derived", "how"}
# how a derived figure follows from others
DERIVATIONS = ("sum", "share", "product", "quotient", "difference", "same value")
_REFERENCE = re.compile(r"\{([^{}]+)\}")
_NUMBER = r"-?\d+(?:\.\d+)?"
_POINT = re.compile(rf"^({_NUMBER})$")
_RANGE = re.compile(rf"^({_NUMBER})\s*[–-]\s*({_NUMBER})$")  # en dash or hyphen
_BOUND = re.compile(rf"^>\s*({_NUMBER})$")
_THOUSANDS = re.compile(rf"^({_NUMBER})K$")  # "5K": 5,000 to the thousand


class PublishedFigureError(ValueError):
    """An entry of ``published.yaml`` that does not say what the paper printed."""


def decimals_of(printed: str) -> int:
    """Digits after the point of a printed number: ``"7.50"`` -> 2, ``"869"`` -> 0, and
    ``"5K"`` -> -3 (printed to the thousand)."""
    if printed.endswith("K"):
        return decimals_of(printed[:-1]) - 3
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
            f"{where}: fields must be value, source and optionally decimals, kind, why, "
            f"derived, how; got {sorted(entry)}"
        )
    derived, how = entry.get("derived"), entry.get("how")
    if (derived is None) != (how is None):
        raise PublishedFigureError(f"{where}: 'derived' and 'how' go together")
    if derived is not None:
        if how not in DERIVATIONS:
            raise PublishedFigureError(f"{where}: how: {how!r} is not one of {DERIVATIONS}")
        if entry.get("kind", "derived") != "derived":
            raise PublishedFigureError(
                f"{where}: a figure derived from others is of kind 'derived', not {entry['kind']!r}"
            )
        if not _REFERENCE.search(str(derived)):
            raise PublishedFigureError(f"{where}: derived {derived!r} names no {{key}}")
    printed = entry["value"]
    figure = {
        "source": entry["source"],
        "kind": "derived" if derived is not None else entry.get("kind"),
        "derived": derived,
        "how": how,
        "from": _REFERENCE.findall(derived) if derived is not None else [],
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
    elif match := _THOUSANDS.match(text):
        figure.update(value=round(_number(match[1]) * 1000), decimals=decimals_of(text))
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
            f"{where}: value {printed!r} is not a printed number, a range ('9–10'), a bound "
            "('> 70') or thousands ('5K')"
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
    figures = {key: parse_printed(key, entry) for key, entry in yaml.safe_load(text).items()}
    for key, figure in figures.items():
        for source in figure["from"]:
            if source not in figures or figures[source]["value"] is None:
                raise PublishedFigureError(
                    f"published.yaml, figure {key!r}: derived from {source!r}, which is not a "
                    "published figure with a value"
                )
    return figures


def published_value(key: str):
    """The published figure ``key`` as a number (a range: its midpoint)."""
    return published_figures()[key]["value"]


_OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}


def _evaluate(node):
    if isinstance(node, ast.Expression):
        return _evaluate(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](_evaluate(node.left), _evaluate(node.right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand)
    raise PublishedFigureError(f"derived: only numbers, + - * / and brackets, not {ast.dump(node)}")


def derivation(key: str) -> dict | None:
    """What the published figure ``key`` is computed from, or None for an independent figure:
    ``{how, from, expression, value, text}``: ``value`` is the expression on the published
    figures it names (at their printed values), ``text`` the expression written with them."""
    figures = published_figures()
    figure = figures[key]
    if figure["derived"] is None:
        return None
    values = {source: figures[source]["value"] for source in figure["from"]}
    arithmetic = _REFERENCE.sub(lambda m: repr(values[m[1]]), figure["derived"])
    text = _REFERENCE.sub(
        lambda m: f"{figures[m[1]]['printed']} [{m[1]}]", figure["derived"]
    ).replace("*", "×")
    return {
        "how": figure["how"],
        "from": list(figure["from"]),
        "expression": figure["derived"],
        "value": _evaluate(ast.parse(arithmetic, mode="eval")),
        "text": text,
    }
