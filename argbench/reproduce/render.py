"""``report.md`` and ``report.json``: the reproduction report for people and for programs.

The markdown is a page people scan: a header (argbench version, date, commit), the headline
and a summary table per paper up front, then per section a narrow table (item, argbench,
published, difference, verdict, source) whose explanations sit below it as notes keyed by the
row's number, so no column runs off a 1280 px screen and no row grows hundreds of pixels tall;
each section's figures follow its table, captioned. Nothing in either file names a path of
the machine that built it: figures are named by file, models by name.
"""

from __future__ import annotations

import datetime
import subprocess
from collections import Counter
from dataclasses import asdict
from pathlib import Path

from argbench._version import __version__
from argbench.io import atomic_write, write_json
from argbench.reproduce.report import CATEGORIES, KINDS, Row, Section, count_sentence

LEGEND = (
    ("printed precision", "argbench's figure, rounded half-up, equals the paper's as printed"),
    (
        "named test",
        "it does not, but passes the test the row names (both 95% CIs, a printed range or bound)",
    ),
    (
        "not reproduced",
        "neither: the section says why, each reason tested (the computation and its result) or "
        "marked an untested hypothesis",
    ),
    ("not comparable", "another model or population, or no judge configured"),
    (
        "not reproductions",
        "rows on a population inferred from the figure itself, release checks (the authors' "
        "own outputs), structural counts and tautologies, derived figures (the paper's sums, "
        "shares, products, quotients and differences of other published figures, or the same "
        "figure again: shown with the derivation), variants and descriptive rows: shown, never "
        "in the headline",
    ),
)


def build_info() -> dict:
    """What heads the report: argbench's version, the UTC date, and the git commit of the
    checkout argbench runs from ("+ changes" when its files differ; None outside git)."""
    root = Path(__file__).resolve().parents[2]  # the folder holding the argbench package

    def git(*args) -> str | None:
        try:
            done = subprocess.run(
                ["git", "-C", str(root), *args], capture_output=True, text=True, timeout=10
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    commit = git("rev-parse", "--short=12", "HEAD")
    if commit and git("status", "--porcelain", "--untracked-files=no"):
        commit += " + changes"
    return {
        "version": __version__,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
        "commit": commit,
    }


def _fmt(value) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.4f}".rstrip("0").rstrip(".") if abs(value) < 1000 else f"{value:,.1f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def published_text(r: Row) -> str:
    """The published figure as the paper printed it: its decimals kept (0.20, 7.50), a range
    or bound as written, thousands separated as argbench's figures are."""
    if r.published is None:
        return "—"
    if r.printed and (not r.point or (r.decimals or 0) < 0):
        return r.printed  # a range, a bound, or "5K"
    if r.decimals is not None and abs(r.published) >= 1000:
        return f"{r.published:,.{r.decimals}f}"
    if r.decimals is not None:
        return f"{r.published:.{r.decimals}f}"
    return _fmt(r.published)


def _cell(text: str) -> str:
    """Text safe in a table cell: no pipe splits it, no newline ends the row."""
    return str(text).replace("|", "&#124;").replace("\n", " ")


def verdict(r: Row) -> str:
    """The verdict column: the category, and for rows that are not reproductions whether
    their figure agrees with the one beside it."""
    category = r.category
    if category == "printed precision":
        return "**agrees** (printed precision)"
    if category == "named test":
        return "agrees within a named test"
    if category == "not reproduced":
        return "**not reproduced**"
    if category in ("not comparable", "descriptive"):
        return category if category == "not comparable" else "—"
    agrees = r.agrees
    return category + ("" if agrees is None else f" ({'agrees' if agrees else 'differs'})")


def summary_table(sections: list[Section]) -> list[str]:
    papers: dict[str, Counter] = {}
    for s in sections:
        papers.setdefault(s.paper, Counter()).update(s.counts())
    papers["all papers"] = sum(papers.values(), Counter())
    lines = [
        "| paper | at the printed precision | within a named test | not reproduced "
        "| not comparable | not reproductions |",
        "|---|---|---|---|---|---|",
    ]
    for paper, counts in papers.items():
        judged = sum(counts[c] for c in CATEGORIES[:3])
        other = sum(counts[k] for k in KINDS[1:])
        name = f"**{paper}**" if paper == "all papers" else paper
        lines.append(
            f"| {name} | {counts['printed precision']} of {judged} | {counts['named test']} | "
            f"{counts['not reproduced']} | {counts['not comparable']} | {other} |"
        )
    return lines


def render_section(section: Section) -> list[str]:
    lines = [
        f"### {section.title}",
        "",
        f"**Summary:** {section.summary()}",
        "",
        *(
            ["**Why not reproduced:**", "", *[f"- {r.text()}" for r in section.reasons], ""]
            if section.reasons
            else []
        ),
        "| # | item | argbench | published | diff | verdict | source |",
        "|---|---|---|---|---|---|---|",
    ]
    notes = []
    for number, r in enumerate(section.rows, 1):
        diff = r.diff if r.point else None  # a range or bound has no one figure to subtract
        lines.append(
            f"| {number} | {_cell(r.item)} | {_cell(_fmt(r.argbench))} | "
            f"{_cell(published_text(r))} | {'—' if diff is None else f'{diff:+.4g}'} | "
            f"{verdict(r)} | {_cell(r.source)} |"
        )
        explained = r.note
        if r.agrees is not None and not r.at_precision and (r.test or r.tolerance is not None):
            test = r.test or f"±{r.tolerance:g}"
            outcome = "passes" if r.passes_test else "fails"
            explained = f"test: {test} ({outcome})" + (f"; {r.note}" if r.note else "")
        if explained:
            notes.append(f"- **{number}.** {explained}")
    lines.append("")
    if notes:
        lines += ["Notes on the rows:", "", *notes, ""]
    lines += [f"- {note}" for note in section.notes] + ([""] if section.notes else [])
    for figure in section.figures:
        lines += [
            f"![{_cell(figure['caption'])}]({figure['file']})",
            "",
            f"*Figure: {figure['caption']}*",
            "",
        ]
    signatures = list(dict.fromkeys(r.signature for r in section.rows if r.signature))
    data = {_dataset_text(r.dataset): None for r in section.rows if r.dataset is not None}
    if signatures or data:
        lines += [f"- signature: `{signature}`" for signature in signatures]
        lines += [f"- data: {text}" for text in data] + [""]
    lines += [f"_computed in {section.seconds:.1f}s_", ""]
    return lines


def render_markdown(sections: list[Section], info: dict | None = None) -> str:
    info = build_info() if info is None else info
    commit = info.get("commit") or "not a git checkout"
    lines = [
        "# argbench reproduction report",
        "",
        f"argbench {info['version']} · {info['date']} · commit `{commit}`",
        "",
        f"**Headline:** {count_sentence(sections)}.",
        "",
        "## Summary",
        "",
        *summary_table(sections),
        "",
        *[f"- **{name}**: {text}" for name, text in LEGEND],
        "",
    ]
    paper = None
    for section in sections:
        if section.paper != paper:
            paper = section.paper
            lines += [f"## {paper}", ""]
        lines += render_section(section)
    return "\n".join(lines)


def _dataset_text(dataset: dict) -> str:
    where = "/".join(str(dataset[k]) for k in ("name", "config", "split") if dataset.get(k))
    return f"{where} version {dataset.get('version')}, `{dataset.get('content_hash')}`"


def row_json(r: Row) -> dict:
    """A row for programs: its fields, the diff, and the verdict (``category``; ``agrees``;
    ``reproduced`` true only when the headline counts the row)."""
    return {
        **asdict(r),
        "diff": r.diff,
        "category": r.category,
        "agrees": r.agrees,
        "reproduced": r.reproduced,
    }


def write_report(out_dir: Path, sections: list[Section], info: dict | None = None) -> None:
    """``report.md`` (for people) and ``report.json`` (every row, for programs)."""

    info = build_info() if info is None else info
    atomic_write(out_dir / "report.md", render_markdown(sections, info))
    payload = [
        {
            **asdict(s),
            "summary": s.summary(),
            "rows": [row_json(r) for r in s.rows],
            "reasons": [{**asdict(r), "tested": r.tested} for r in s.reasons],
        }
        for s in sections
    ]
    write_json(
        out_dir / "report.json",
        {
            **info,
            "headline": count_sentence(sections),
            "sections": payload,
            "figures": [f["file"] for s in sections for f in s.figures],
        },
        ensure_ascii=True,
        allow_nan=True,
    )
