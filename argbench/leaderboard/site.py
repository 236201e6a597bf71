"""The leaderboard as a static site: a front page, a page per benchmark task, a page per system.

Everything a page needs is in the page: the style, a small script that sorts and filters the
table in place (from a file on disk, offline) and the plots as inline SVG. Every text that
comes from a results file (system names, questions, signatures) is HTML-escaped: a results
file is data, never markup.
"""

from __future__ import annotations

import hashlib
import math
from html import escape
from pathlib import Path

from argbench.io import atomic_write
from argbench.leaderboard.judge_cards import card_for, card_page, card_slug
from argbench.leaderboard.judge_cards import summary as card_summary
from argbench.leaderboard.table import Column, per_item, task_text, worst_items, write_tables
from argbench.scoring.statistics import group_letter

STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em;max-width:1400px;color:#222}
table{border-collapse:collapse;font-size:13px}th,td{border:1px solid #ccc;padding:3px 6px;
vertical-align:top}th{background:#eef;cursor:pointer}td.n{text-align:right;
font-variant-numeric:tabular-nums}code{font-size:11px;word-break:break-all}.small{font-size:12px;
color:#555}tr.tied td{background:#f4fff4}.warn{color:#a00}
"""

# sorting: click a header (numbers by data-v, else text); filtering: rows containing the text
SCRIPT = """
function sortBy(th){const t=th.closest('table'),i=[...th.parentNode.children].indexOf(th),
b=t.tBodies[0],up=th.dataset.dir!=='asc';th.dataset.dir=up?'asc':'desc';
const v=r=>{const c=r.children[i];const x=c.dataset.v;return x!==undefined&&x!==''?parseFloat(x):c.textContent};
[...b.rows].sort((p,q)=>{const a=v(p),c=v(q);const r=(typeof a==='number'&&typeof c==='number')?a-c:
String(a).localeCompare(String(c));return up?r:-r}).forEach(r=>b.appendChild(r));}
function filterRows(input){const t=document.getElementById(input.dataset.table),s=input.value.toLowerCase();
for(const r of t.tBodies[0].rows){r.style.display=r.textContent.toLowerCase().includes(s)?'':'none'}}
document.addEventListener('DOMContentLoaded',()=>{document.querySelectorAll('th').forEach(
h=>h.addEventListener('click',()=>sortBy(h)));document.querySelectorAll('input.filter').forEach(
i=>i.addEventListener('input',()=>filterRows(i)))});
"""


def _page(title: str, body: str) -> str:
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>{escape(title)}</title><style>{STYLE}</style><script>{SCRIPT}</script></head>"
        f"<body>{body}</body></html>\n"
    )


def _num(value, digits=4) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    return f"{value:.{digits}f}"


def _cell(value, digits=4) -> str:
    """A numeric cell: shown rounded, sorted by its full value."""
    sort = "" if value is None else repr(float(value))
    return f"<td class='n' data-v='{sort}'>{_num(value, digits)}</td>"


def system_slug(name: str) -> str:
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in name)[:40]
    return f"system-{safe}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"


HEADERS = [
    "rank", "rank (95%)", "tie group", "system", "score", "95% CI", "human score", "other figures", "items scored", "complete",
    "Δ vs leader [CI]", "p vs leader", "not distinguishable from", "dataset version",
    "content hash", "signature", "model",
]  # fmt: skip


def _short(text: str, n: int) -> str:
    """A long identifier cut to ``n`` characters, the whole of it in the tooltip and the sort."""
    cut = text if len(text) <= n else text[:n] + "…"
    return f"<td data-v='' title='{escape(text)}'><code>{escape(cut)}</code></td>"


def _row_html(row: dict, level: str) -> str:
    versus = row["vs_leader"]
    diff = (
        "leader"
        if versus is None
        else f"{versus['difference']:+.4f} [{versus['low']:+.4f}, {versus['high']:+.4f}]"
    )
    cells = [
        f"<td class='n' data-v='{row['rank']}'>{row['rank']}</td>",
        f"<td class='n' data-v='{row['rank_low']}'>{_rank_text(row)}</td>",
        f"<td>{escape(row['group'])}</td>",
        f"<td><a href='{system_slug(row['system'])}.html'>{escape(row['system'])}</a>"
        + (f"<br><span class='small'>{escape(row['harness'])}</span>" if row["harness"] else "")
        + "</td>",
        _cell(row["score"]),
        f"<td class='n' data-v='{_num(row['low'], 17)}'>[{_num(row['low'])}, {_num(row['high'])}]</td>",
        _cell(row["human_score"]),
        f"<td class='small'>{escape(', '.join(f'{k} {v:.4f}' for k, v in row['figures'].items()))}</td>",
        f"<td class='n' data-v='{row['items_scored']}'>{row['items_scored']:,} / {row['items']:,}</td>",
        f"<td>{'yes' if row['complete'] else '<span class=warn>no</span>'}"
        + "".join(f"<br><span class='warn small'>{escape(f)}</span>" for f in row["flags"])
        + "</td>",
        f"<td class='n' data-v='{'' if versus is None else versus['difference']!r}'>{escape(diff)}</td>",
        _cell(None if versus is None else versus["p_value"]),
        f"<td>{escape(', '.join(row['not_distinguishable_from']) or '—')}</td>",
        f"<td>{escape(str(row['dataset_version']))}</td>",
        _short(str(row["content_hash"]), 19),
        _short(row["signature"], 24),
        f"<td>{escape(row['model'] or '—')}</td>",
    ]
    tied = " class='tied'" if row["tied_with_leader"] else ""
    return f"<tr{tied}>{''.join(cells)}</tr>"


def _rank_text(row: dict) -> str:
    low, high = row["rank_low"], row["rank_high"]
    return f"{low}" if low == high else f"{low}–{high}"


def ties_text(column: Column) -> str:
    """The column's tie groups, best first, each with its letter: ``a: x, y · b: y, z``."""
    groups = (column.ties or {}).get("groups") or []
    return " · ".join(f"{group_letter(n)}: {', '.join(g)}" for n, g in enumerate(groups))


def card_cell(column: Column) -> str:
    """The judge card of the column's judge, linked: κ and §6.1's correlations with their
    intervals; a column without one says so."""
    card = getattr(column, "card", None)
    if card is None:
        return "<td class='small warn'>no judge card for this judge</td>"
    s = card_summary(card)
    warn = (
        "<br><span class='warn'>κ's interval reaches 0: no better than chance</span>"
        if s["chance"]
        else "<br><span class='warn'>κ undefined: no usable judgment</span>"
        if s["undefined"]
        else ""
    )
    sample = "" if s["sample"] == "all" else f" (sample: {escape(s['sample'])})"
    return (
        f"<td class='small'><a href='{s['slug']}.html'>judge card</a>{sample}: κ {s['kappa']}; "
        f"ranking vs people: Spearman {s['spearman']}, Kendall {s['kendall']}{warn}</td>"
    )


def task_page(column: Column, notes: list[str]) -> str:
    level = f"{100 * column.stats['confidence']:g}%"
    table_id = "board"
    header = "".join(f"<th>{escape(h)}</th>" for h in HEADERS)
    rows = "".join(_row_html(r, level) for r in column.rows)
    parts = [
        "<p><a href='index.html'>all benchmarks</a></p>",
        f"<h1>{escape(column.title())}</h1>",
        f"<p>signature <code>{escape(column.signature)}</code><br>dataset "
        f"<code>{escape(_dataset_text(column.dataset))}</code>"
        + (f"<br>harness task <code>{escape(task_text(column.task))}</code>" if column.task else "")
        + "</p>",
        f"<p class='small'>{column.stats['n_items']:,} items; {level} intervals: paired "
        f"percentile bootstrap over items, {column.stats['resamples']:,} resamples, seed "
        f"{column.stats['seed']}; p: paired approximate randomisation against the leader "
        "(argbench compare). Green rows cannot be told apart from the leader (p ≥ 0.05). "
        f"rank (95%): the interval of the system's rank over the same resamples; tie group: "
        f"systems sharing a letter cannot be told apart ({escape((column.ties or {}).get('method', ''))}, "
        "p from the paired randomisation test). "
        "Click a header to sort; type to filter.</p>",
        f"<p><b>Tie groups</b>: {escape(ties_text(column))}</p>",
        f"<table><tr><th>judge</th>{card_cell(column)}</tr></table>",
    ]
    if column.correlation:
        c = column.correlation
        parts.append(
            f"<p><b>Automatic vs human ranking</b> ({c['n']} systems with human labels): "
            f"Pearson's r on the scores {c['pearson_scores']:.3f}, Spearman's ρ (Pearson on "
            f"the ranks) {c['spearman_ranks']:.3f}. The paper (§6.1) reports Pearson's "
            "coefficient 0.69 for STS with stsb-mpnet-base-v2 without saying whether on scores "
            "or ranks.</p>"
        )
    said = dict.fromkeys([*notes, *(d["result"].get("note") for d in column.docs)])
    parts += [f"<p class='small'>{escape(n)}</p>" for n in said if n]
    parts += [
        f"<p><input class='filter' data-table='{table_id}' placeholder='filter rows'> "
        f"<a href='{column.slug}.csv'>CSV</a> <a href='{column.slug}.json'>JSON</a></p>",
        f"<table id='{table_id}'><thead><tr>{header}</tr></thead><tbody>{rows}</tbody></table>",
    ]
    return _page(column.title(), "".join(parts))


def _dataset_text(dataset: dict) -> str:
    keys = ("name", "config", "split", "version", "content_hash", "commit")
    return " ".join(f"{k}={dataset[k]}" for k in keys if dataset.get(k))


def svg_values(values: list[float | None], width=640, height=180) -> str:
    """The per-item values sorted, as an inline SVG step line (0..1 when they fit)."""
    scored = sorted(v for v in values if v is not None)
    if not scored:
        return "<p>no scored item</p>"
    low, high = min(0.0, scored[0]), max(1.0, scored[-1])
    span = (high - low) or 1.0
    step = (width - 40) / max(1, len(scored))
    points = " ".join(
        f"{30 + k * step:.1f},{height - 20 - (v - low) / span * (height - 40):.1f}"
        for k, v in enumerate(scored)
    )
    return (
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' role='img'>"
        f"<title>per-item values, sorted</title>"
        f"<line x1='30' y1='{height - 20}' x2='{width - 10}' y2='{height - 20}' stroke='#999'/>"
        f"<line x1='30' y1='10' x2='30' y2='{height - 20}' stroke='#999'/>"
        f"<text x='2' y='{height - 20}' font-size='10'>{low:g}</text>"
        f"<text x='2' y='20' font-size='10'>{high:g}</text>"
        f"<polyline fill='none' stroke='#4477aa' stroke-width='2' points='{points}'/></svg>"
    )


def _labels(values) -> str:
    return escape(", ".join(map(str, values))) if isinstance(values, list) else "—"


def system_page(name: str, places: list[tuple[Column, dict, dict]]) -> str:
    parts = ["<p><a href='index.html'>all benchmarks</a></p>", f"<h1>{escape(name)}</h1>"]
    for column, row, doc in places:
        values = per_item(doc, column.key)
        parts += [
            f"<h2><a href='{column.slug}.html'>{escape(column.title())}</a>: rank {row['rank']}"
            f" of {len(column.rows)}, {_num(row['score'])} [{_num(row['low'])}, "
            f"{_num(row['high'])}]</h2>",
            svg_values([v for _, v in values]),
            "<h3>worst items</h3><table><thead><tr><th>item</th><th>value</th>"
            "<th>the system's text</th><th>labels (metric)</th><th>labels (people)</th></tr>"
            "</thead><tbody>",
        ]
        for entry in worst_items(doc, column.key):
            text = entry.get("questions")
            text = "<br>".join(escape(str(q)) for q in text) if isinstance(text, list) else "—"
            labels = [_labels(entry.get(k)) for k in ("labels", "human_labels")]
            parts.append(
                f"<tr><td>{escape(str(entry['item']))}</td>{_cell(entry['value'])}"
                f"<td>{text}</td><td>{labels[0]}</td><td>{labels[1]}</td></tr>"
            )
        parts.append(
            "</tbody></table><h3>per-item values</h3><table><thead><tr><th>item</th>"
            "<th>value</th></tr></thead><tbody>"
            + "".join(f"<tr><td>{escape(str(i))}</td>{_cell(v)}</tr>" for i, v in values)
            + "</tbody></table>"
        )
    return _page(name, "".join(parts))


def index_page(columns_: list[Column], refused: list[dict]) -> str:
    parts = [
        "<h1>argbench leaderboard</h1>",
        "<p class='small'>Each task is one measurement: one metric signature on one split "
        "(content hash); results that differ in either are separate tasks. Files: "
        "<a href='leaderboard.csv'>leaderboard.csv</a>, "
        "<a href='leaderboard.json'>leaderboard.json</a>.</p>",
    ]
    benchmarks: dict[str, list[Column]] = {}
    for column in columns_:
        benchmarks.setdefault(column.benchmark, []).append(column)
    for benchmark, tasks in benchmarks.items():
        parts.append(f"<h2>{escape(benchmark)}</h2><table><thead><tr><th>task</th>"
                     "<th>systems</th><th>leader</th><th>score</th><th>95% CI</th>"
                     "<th>tie groups</th><th>judge card</th>"
                     "<th>signature</th></tr></thead><tbody>")  # fmt: skip
        for column in tasks:
            top = column.rows[0]
            parts.append(
                f"<tr><td><a href='{column.slug}.html'>{escape(column.title())}</a></td>"
                f"<td class='n'>{len(column.rows)}</td><td>{escape(top['system'])}</td>"
                f"{_cell(top['score'])}<td>[{_num(top['low'])}, {_num(top['high'])}]</td>"
                f"<td class='small'>{escape(ties_text(column))}</td>{card_cell(column)}"
                f"<td><code>{escape(column.signature)}</code></td></tr>"
            )
        parts.append("</tbody></table>")
    if refused:
        parts.append("<h2>not placed</h2><ul>")
        parts += [
            f"<li>{escape(str(r['system']))} ({escape(r['path'])}): {escape(r['reason'])}</li>"
            for r in refused
        ]
        parts.append("</ul>")
    return _page("argbench leaderboard", "".join(parts))


def write_site(
    columns_: list[Column], refused: list[dict], out_dir, notes=None, cards=()
) -> list[Path]:
    """Every page, and the tables as CSV and JSON (all tasks, and each task), into
    ``out_dir`` (written through :mod:`argbench.io`); returns the pages written. ``cards``:
    judge cards (read with ``read_card``); each column shows its judge's, and the card's
    page is written beside the board."""
    out_dir = Path(out_dir)
    notes = notes or {}
    pages = []
    for column in columns_:
        column.card = card_for(list(cards), column.metric, column.signature)
        if column.card is not None:
            page = out_dir / f"{card_slug(column.card)}.html"
            if page not in pages:
                pages.append(atomic_write(page, card_page(column.card)))
    pages.insert(0, atomic_write(out_dir / "index.html", index_page(columns_, refused)))
    by_system: dict[str, list] = {}
    for column in columns_:
        page = task_page(column, notes.get(column.slug, []))
        pages.append(atomic_write(out_dir / f"{column.slug}.html", page))
        write_tables([column], out_dir / column.slug)
        for row in column.rows:
            by_system.setdefault(row["system"], []).append((column, row, column.docs[row["index"]]))
    for name, places in by_system.items():
        pages.append(atomic_write(out_dir / f"{system_slug(name)}.html", system_page(name, places)))
    write_tables(columns_, out_dir / "leaderboard")
    return pages
