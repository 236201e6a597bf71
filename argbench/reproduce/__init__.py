"""``argbench reproduce``: rebuild the corpora and set every figure the releases allow beside
the published one. One module per paper; the published figures are data (``published.yaml``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from argbench.reproduce import cam, claimdiff, cqs_gen, webis
from argbench.reproduce.render import write_report
from argbench.reproduce.report import Context, Reason, Row, Section, count_sentence, row

__all__ = ["SECTIONS", "Context", "Reason", "Row", "Section", "count_sentence", "reproduce", "row"]

SECTIONS: list[Callable[[Context], Section]] = [
    *cam.SECTIONS,
    *claimdiff.SECTIONS,
    *webis.SECTIONS,
    *cqs_gen.SECTIONS,
]


def reproduce(
    out_dir,
    *,
    sources=None,
    cache_dir=None,
    plots=False,
    model=None,
    judge=None,
    log=print,
    only=None,
    judge_answers=None,
    judge_note="",
) -> list[Section]:
    """Run every section (or those named in ``only``), write ``report.md`` / ``report.json``
    (and figures) to ``out_dir``. ``judge_note``: said on every row the judge scored (e.g. that
    a small test model cannot judge)."""
    ctx = Context(Path(out_dir), sources, cache_dir, plots, model, judge, judge_answers, log)
    ctx.judge_note = judge_note
    ctx.out_dir.mkdir(parents=True, exist_ok=True)
    sections = []
    chosen = [s for s in SECTIONS if only is None or s.__name__ in only]
    for position, make in enumerate(chosen, 1):
        log(f"[{position}/{len(chosen)}] {make.__name__.replace('_', ' ')}")
        start = time.perf_counter()
        drawn = len(ctx.figures)
        section = make(ctx)
        section.seconds = time.perf_counter() - start
        section.figures += ctx.figures[drawn:]  # shown in its section, under its table
        sections.append(section)
        log(f"  done in {section.seconds:.1f}s")
    write_report(ctx.out_dir, sections)
    return sections
