"""``argbench reproduce``: rebuild the corpora and recompute the papers' tables side by side.

Each paper contributes sections: a function ``(Context) -> Section``. A row holds argbench's
figure, the published one and where the published one comes from; a row that cannot be
compared (another model, no judge) says so in ``note`` and is flagged ``comparable=False``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path


@dataclass
class Row:
    item: str
    argbench: float | int | str | None
    published: float | int | None = None
    source: str = ""  # where the published figure comes from
    note: str = ""
    comparable: bool = True

    @property
    def diff(self) -> float | None:
        if (
            not self.comparable
            or not isinstance(self.argbench, (int, float))
            or self.published is None
        ):
            return None
        return self.argbench - self.published


@dataclass
class Section:
    paper: str
    title: str
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0


@dataclass
class Context:
    """What sections share: where the data comes from, where output goes, which models to use."""

    out_dir: Path
    sources: str | None = None
    cache_dir: str | None = None
    plots: bool = False
    model: str | None = None
    judge: str | None = None
    log: Callable[[str], None] = print
    figures: list[str] = field(default_factory=list)

    def load(self, name, config=None, split=None):
        from argbench import load_dataset

        return load_dataset(name, config, split, sources=self.sources, cache_dir=self.cache_dir)


# ---------------------------------------------------------------- ClaimDiff

CLAIMDIFF_TABLE1 = {  # paper Table 1 (also the release README): train, test, test-full
    "pairs": (1857, 1084, 3173),
    "topics": (90, 44, 44),
    "articles": (180, 88, 88),
    "% strengthen": (69.31, 56.64, 19.35),
    "% weaken": (10.61, 21.96, 7.50),
}


def claimdiff_table1(ctx: Context) -> Section:
    section = Section("ClaimDiff", "Table 1: statistics per split")
    strength, weaken = ctx.load("claimdiff", "S"), ctx.load("claimdiff", "W")
    for column, split in enumerate(("train", "test", "test_doc")):
        s, w = strength[split], weaken[split]
        ours = {
            "pairs": len(s),
            "topics": len(set(s["topic"])),
            "articles": len(set(s["article_a"]) | set(s["article_b"])),
            "% strengthen": round(100 * sum(s["label"]) / len(s), 2),
            "% weaken": round(100 * sum(w["label"]) / len(w), 2),
        }
        for stat, value in ours.items():
            section.rows.append(
                Row(f"{split} / {stat}", value, CLAIMDIFF_TABLE1[stat][column], "paper Table 1")
            )
        rationales = sum(len(r) for r in s["rationales"]) + sum(len(r) for r in w["rationales"])
        section.rows.append(
            Row(f"{split} / rationales (S + W)", rationales, None, "", "not in the paper's table")
        )
    section.notes.append(
        "test_doc (release: test-full) has 3,168 pairs against the paper's 3,173; topic and article counts "
        "are distinct strings in the release and run slightly above the paper's."
    )
    return section


# ---------------------------------------------------------------- CQs-Gen


def cqs_gen_statistics(ctx: Context) -> Section:
    from collections import Counter

    section = Section("CQs-Gen", "dataset statistics")
    interventions = ctx.load("cqs_gen", "interventions")
    validation = interventions["validation"]
    label = validation.features["references"].feature["label"]
    counts = Counter(label.int2str(r["label"]) for refs in validation["references"] for r in refs)
    expected = {"Useful": 2790, "Unhelpful": 893, "Invalid": 453}
    section.rows.append(Row("validation interventions", len(validation), 186, "release"))
    section.rows.append(Row("test interventions", len(interventions["test"]), 34, "release"))
    section.rows.append(Row("reference questions", sum(counts.values()), 4136, "release"))
    for name, value in expected.items():
        section.rows.append(Row(f"references labelled {name}", counts[name], value, "release"))
    return section


SECTIONS: list[Callable[[Context], Section]] = [
    claimdiff_table1,
    cqs_gen_statistics,
]


# ---------------------------------------------------------------- report


def _fmt(value) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.4f}".rstrip("0").rstrip(".") if abs(value) < 1000 else f"{value:,.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def render_markdown(sections: list[Section], figures: list[str]) -> str:
    lines = ["# argbench reproduction report", ""]
    paper = None
    for section in sections:
        if section.paper != paper:
            paper = section.paper
            lines += [f"## {paper}", ""]
        lines += [
            f"### {section.title}",
            "",
            "| item | argbench | published | diff | source | note |",
            "|---|---|---|---|---|---|",
        ]
        for row in section.rows:
            diff = row.diff
            lines.append(
                f"| {row.item} | {_fmt(row.argbench)} | {_fmt(row.published)} | "
                f"{'—' if diff is None else f'{diff:+.4g}'} | {row.source} | {row.note} |"
            )
        lines += [""] + [f"- {note}" for note in section.notes] + ([""] if section.notes else [])
        lines += [f"_computed in {section.seconds:.1f}s_", ""]
    if figures:
        lines += ["## Figures", ""] + [f"![{Path(f).stem}]({Path(f).name})" for f in figures] + [""]
    return "\n".join(lines)


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
):
    """Run every section, write ``report.md`` / ``report.json`` (and figures) to ``out_dir``."""
    ctx = Context(Path(out_dir), sources, cache_dir, plots, model, judge, log)
    ctx.out_dir.mkdir(parents=True, exist_ok=True)
    sections = []
    chosen = [s for s in SECTIONS if only is None or s.__name__ in only]
    for position, make in enumerate(chosen, 1):
        log(f"[{position}/{len(chosen)}] {make.__name__.replace('_', ' ')}")
        start = time.perf_counter()
        section = make(ctx)
        section.seconds = time.perf_counter() - start
        sections.append(section)
        log(f"  done in {section.seconds:.1f}s")
    (ctx.out_dir / "report.md").write_text(render_markdown(sections, ctx.figures), encoding="utf-8")
    payload = [
        {**asdict(s), "rows": [{**asdict(r), "diff": r.diff} for r in s.rows]} for s in sections
    ]
    (ctx.out_dir / "report.json").write_text(
        json.dumps({"sections": payload, "figures": ctx.figures}, indent=1)
    )
    return sections
