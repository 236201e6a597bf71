"""The metrics: one folder per metric, ``<name>/<name>.py`` (an evaluate module) + card."""

from __future__ import annotations

import re
from pathlib import Path

from argbench.scoring import declaration

_HERE = Path(__file__).parent


def list_metrics() -> list[str]:
    return sorted(p.name for p in _HERE.iterdir() if p.is_dir() and (p / f"{p.name}.py").is_file())


def metric_path(name: str) -> Path:
    """Folder of metric ``name`` (what ``evaluate.load`` takes)."""
    if name not in list_metrics():
        raise KeyError(f"unknown metric {name!r}; available: {', '.join(list_metrics()) or 'none'}")
    return _HERE / name


def module_type(name: str) -> str:
    """``measurement`` (a statistic of predictions or ratings alone) or ``metric``, as the
    metric declares it (:mod:`argbench.scoring.declaration`)."""
    return declaration(name).module_type


def load_metric(name: str, **kwargs):
    import evaluate

    kwargs.setdefault("module_type", module_type(name))
    return evaluate.load(str(metric_path(name)), **kwargs)


def output_meanings(name: str) -> dict[str, str]:
    """``{output key: one-line meaning}`` from the ``## Outputs`` table of metric ``name``'s card.

    The card is the one place each value is defined; ``argbench evaluate`` prints these lines
    beside the values, and a test checks that every scalar a metric returns has one. A row
    ``| `a`, `b` | meaning |`` defines both keys."""
    text = (metric_path(name) / "README.md").read_text(encoding="utf-8")
    section = re.search(r"^## Outputs\n(.*?)(?=^## |\Z)", text, flags=re.S | re.M)
    meanings: dict[str, str] = {}
    for line in (section.group(1) if section else "").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if "|" in line else []
        if len(cells) >= 2 and cells[0].startswith("`"):
            for key in re.findall(r"`([^`]+)`", cells[0]):
                meanings[key] = cells[1]
    return meanings
