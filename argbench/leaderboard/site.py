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
from argbench.leaderboard.table import (
    Column,
    apart,
    apart_text,
    item_texts,
    model_text,
    per_item,
    ties_text,
    write_tables,
)
from argbench.reproduce.render import build_info
from argbench.scoring.statistics import group_letter

# the documentation's leaderboard page, from the board as the docs site serves it (board/)
DOCS_LINK = "../leaderboard/"

# a phone (390 px) gets the same page: the text wraps, a wide table scrolls inside its own
# box (div.wide), never the page
STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em auto;padding:0 1em;max-width:1400px;
color:#222;line-height:1.4}h1{font-size:1.5em}h2{font-size:1.25em}
p,li,dd,h1,h2,h3{overflow-wrap:anywhere}div.wide{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;font-size:13px}th,td{border:1px solid #ccc;padding:3px 6px;
vertical-align:top}th{background:#eef;cursor:pointer}td.n{text-align:right;
font-variant-numeric:tabular-nums;white-space:nowrap}code{font-size:11px;word-break:break-all}
.small{font-size:12px;color:#555}tr.tied td{background:#f4fff4}.warn{color:#a00}
dl.shared{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;font-size:13px}
dl.shared dt{font-weight:600}dl.shared dd{margin:0;overflow-wrap:anywhere}
svg{max-width:100%;height:auto}input.filter{max-width:100%}
@media (max-width:600px){body{margin:.5em auto;padding:0 .5em}table{font-size:12px}}
"""

# sorting: click a header (numbers by data-v, else text); filtering: rows containing the text
SORT_AND_FILTER = """
function sortBy(th){const t=th.closest('table'),i=[...th.parentNode.children].indexOf(th),
b=t.tBodies[0],up=th.dataset.dir!=='asc';th.dataset.dir=up?'asc':'desc';
const v=r=>{const c=r.children[i];const x=c.dataset.v;return x!==undefined&&x!==''?parseFloat(x):c.textContent};
[...b.rows].sort((p,q)=>{const a=v(p),c=v(q);const r=(typeof a==='number'&&typeof c==='number')?a-c:
String(a).localeCompare(String(c));return up?r:-r}).forEach(r=>b.appendChild(r));}
function filterRows(input){const t=document.getElementById(input.dataset.table),s=input.value.toLowerCase();
for(const r of t.tBodies[0].rows){r.style.display=r.textContent.toLowerCase().includes(s)?'':'none'}}
"""
SCRIPT = (
    SORT_AND_FILTER
    + """document.addEventListener('DOMContentLoaded',()=>{document.querySelectorAll('th').forEach(
h=>h.addEventListener('click',()=>sortBy(h)));document.querySelectorAll('input.filter').forEach(
i=>i.addEventListener('input',()=>filterRows(i)))});
"""
)


def _page(title: str, body: str) -> str:
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
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
    "rank", "rank (95%)", "tie group", "system (how the run was made)", "score", "95% CI",
    "human score", "other figures", "items scored", "complete", "Δ vs leader [CI]",
    "p vs leader", "cannot be told apart from",
]  # fmt: skip


def _wide(table: str) -> str:
    """A table that scrolls sideways inside its own box on a narrow screen."""
    return f"<div class='wide'>{table}</div>"


def _items(row: dict) -> str:
    """``34 / 34``, or ``2 / 34 incomplete`` in red: on every page a row appears."""
    text = f"{row['items_scored']:,} / {row['items']:,}"
    return text if row["complete"] else f"{text} <span class='warn'>incomplete</span>"


def _system_cell(row: dict, column: Column, link: str = "") -> str:
    """The system's name, how the run was made, and its dataset version when the column's
    rows are on different commits (the header then names only what they share)."""
    own = "commit" not in column.dataset and "@" in str(row.get("dataset_version"))
    return (
        f"<td><a href='{link}{system_slug(row['system'])}.html'>{escape(row['system'])}</a>"
        + (f"<br><span class='small'>{escape(row['run'])}</span>" if row["run"] else "")
        + (
            f"<br><span class='small'>dataset {escape(row['dataset_version'])}</span>"
            if own
            else ""
        )
        + "</td>"
    )


def _row_html(row: dict, column: Column, link: str = "") -> str:
    versus = row["vs_leader"]
    diff = (
        "leader"
        if versus is None
        else f"{versus['difference']:+.4f} [{versus['low']:+.4f}, {versus['high']:+.4f}]"
    )
    ties = ties_text(row)
    cells = [
        f"<td class='n' data-v='{row['rank']}'>{row['rank']}</td>",
        f"<td class='n' data-v='{row['rank_low']}'>{_rank_text(row)}</td>",
        f"<td>{escape(row['group'])}</td>",
        _system_cell(row, column, link),
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
        f"<td title='{escape(', '.join(row['not_distinguishable_from']))}'>{escape(ties)}</td>",
    ]
    tied = " class='tied'" if row["tied_with_leader"] else ""
    return f"<tr{tied}>{''.join(cells)}</tr>"


def _rank_text(row: dict) -> str:
    low, high = row["rank_low"], row["rank_high"]
    return f"{low}" if low == high else f"{low}–{high}"


def tie_groups_text(column: Column) -> str:
    """The column's tie groups, best first, each with its letter: ``a: x, y · b: y, z``."""
    groups = (column.ties or {}).get("groups") or []
    return " · ".join(f"{group_letter(n)}: {', '.join(g)}" for n, g in enumerate(groups))


def card_cell(column: Column, link: str = "") -> str:
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
        f"<td class='small'><a href='{link}{s['slug']}.html'>judge card</a>{sample}: κ {s['kappa']}; "
        f"ranking vs people: Spearman {s['spearman']}, Kendall {s['kendall']}{warn}</td>"
    )


def other_card_line(card: dict) -> str:
    """A judge card of a judge no column here is ranked by: its name, data and κ, linked."""
    s = card_summary(card)
    r = card["result"]
    sample = "" if s["sample"] == "all" else f" (sample: {escape(s['sample'])})"
    warn = " <span class='warn'>κ's interval reaches 0: no better than chance</span>" * s["chance"]
    return (
        f"<a href='{s['slug']}.html'>{escape(r['name'])}</a> on "
        f"{escape(str(card['dataset'].get('name')))}/{escape(str(card['dataset'].get('config')))}"
        f"{sample}: κ {s['kappa']}{warn}"
    )


def _shared(column: Column) -> str:
    """What every row of the column has in common, said once above it."""
    d = column.dataset
    entries = [
        ("metric", f"{column.metric}, ranked by its per-item {column.key}"),
        ("signature", f"<code>{escape(column.signature)}</code>"),
        ("model", escape(model_text(column.signature) or "—")),
        ("dataset", escape(f"{column.where()}, version {d.get('version')}")),
        ("content hash", f"<code>{escape(str(d.get('content_hash')))}</code>"),
        ("items", f"{len(column.items):,}"),
    ]
    if d.get("commit"):
        entries.append(("Hub commit", f"<code>{escape(str(d['commit']))}</code>"))
    body = "".join(f"<dt>{escape(k)}</dt><dd>{v}</dd>" for k, v in entries)
    return f"<dl class='shared'>{body}</dl>"


def task_page(column: Column, notes: list[str], reasons: list[str] = ()) -> str:
    body = task_body(column, notes, reasons)
    return _page(column.title(), "<p><a href='index.html'>all benchmarks</a></p>" + body)


def task_body(column: Column, notes: list[str], reasons=(), *, link: str = "", heading="h1") -> str:
    """A column as its page shows it (what the rows share, the judge card, the notes, why it
    is apart from the other columns, the table), without the page around it: the static
    site's task page and the leaderboard Space show the same. ``link``: where the site's
    other pages are, relative to the page this is shown in (the Space serves them under
    ``board/``); ``heading``: the column title's tag."""
    level = f"{100 * column.stats['confidence']:g}%"
    table_id = f"board-{column.slug}" if link else "board"
    header = "".join(f"<th>{escape(h)}</th>" for h in HEADERS)
    rows = "".join(_row_html(r, column, link) for r in column.rows)
    parts = [
        f"<{heading}>{escape(column.title())}</{heading}>",
        "<p>Every row below is scored the same way; what they share:</p>",
        _shared(column),
        f"<p class='small'>{level} intervals: paired percentile bootstrap over the items, "
        f"{column.stats['resamples']:,} resamples, seed {column.stats['seed']}; p: paired "
        "approximate randomisation against the leader (argbench compare). An incomplete run "
        "(a --limit run) is ranked on the items it scored. Green rows cannot be told apart "
        "from the leader (p ≥ 0.05). rank (95%): the interval of the system's rank over the "
        "same resamples; tie group: systems sharing a letter cannot be told apart "
        f"({escape((column.ties or {}).get('method', ''))}, p from the paired randomisation "
        "test). Click a header to sort; type to filter.</p>",
        f"<p><strong>Tie groups</strong>: {escape(tie_groups_text(column))}</p>",
        _wide(f"<table><tr><th>judge</th>{card_cell(column, link)}</tr></table>"),
    ]
    if column.correlation:
        c = column.correlation
        parts.append(
            f"<p><b>Automatic vs human ranking</b> ({c['n']} systems with human labels): "
            f"Pearson's r on the scores {c['pearson_scores']:.3f}, Spearman's ρ (Pearson on "
            f"the ranks) {c['spearman_ranks']:.3f}. The paper (§6.1) reports Pearson's "
            "coefficient 0.69 for STS with stsb-mpnet-base-v2 under its own protocol, without "
            "saying whether on scores or ranks.</p>"
        )
    said = dict.fromkeys([*notes, *(d["result"].get("note") for d in column.docs)])
    parts += [f"<p class='small'>{escape(n)}</p>" for n in said if n]
    if reasons:
        parts.append("<p class='small'>Not ranked together with the other columns of this "
                     "metric, because:</p><ul class='small'>")  # fmt: skip
        parts += [f"<li>{escape(apart_text(r))}</li>" for r in reasons]
        parts.append("</ul>")
    parts += [
        f"<p><input class='filter' data-table='{table_id}' placeholder='filter rows'> "
        f"<a href='{link}{column.slug}.csv'>CSV</a> <a href='{link}{column.slug}.json'>JSON</a></p>",
        _wide(
            f"<table id='{table_id}'><thead><tr>{header}</tr></thead><tbody>{rows}</tbody></table>"
        ),
    ]
    return "".join(parts)


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
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
        f"viewBox='0 0 {width} {height}' role='img'>"
        f"<title>per-item values, sorted</title>"
        f"<line x1='30' y1='{height - 20}' x2='{width - 10}' y2='{height - 20}' stroke='#999'/>"
        f"<line x1='30' y1='10' x2='30' y2='{height - 20}' stroke='#999'/>"
        f"<text x='2' y='{height - 20}' font-size='10'>{low:g}</text>"
        f"<text x='2' y='20' font-size='10'>{high:g}</text>"
        f"<polyline fill='none' stroke='#4477aa' stroke-width='2' points='{points}'/></svg>"
    )


def _labels(values) -> str:
    return escape(", ".join(map(str, values))) if isinstance(values, list) else "—"


def _lines(values) -> str:
    """Texts one per line (the questions of an item), or ``—``."""
    if not isinstance(values, list) or not values:
        return "—"
    return "<br>".join(escape(str(v)) for v in values)


def _generation_cell(entry: dict) -> str:
    """What the model wrote for an item (a harness import keeps it), with its prompt's hash."""
    generation = entry.get("generation")
    if not isinstance(generation, dict):
        return "—"
    text = escape(str(generation.get("text", ""))).replace("\n", "<br>")
    prompt = generation.get("prompt_sha256")
    return text + (
        f"<br><span class='small'>prompt {escape(str(prompt)[:12])}</span>" if prompt else ""
    )


def system_page(name: str, places: list[tuple[Column, dict, dict]]) -> str:
    parts = ["<p><a href='index.html'>all benchmarks</a></p>", f"<h1>{escape(name)}</h1>"]
    for column, row, doc in places:
        values = per_item(doc, column.key)
        entries = item_texts(doc, column.key)
        generated = any("generation" in e for e in entries)
        parts += [
            f"<h2><a href='{column.slug}.html'>{escape(column.title())}</a>: rank {row['rank']}"
            f" of {len(column.rows)}, {_num(row['score'])} [{_num(row['low'])}, "
            f"{_num(row['high'])}]</h2>",
            f"<p>items scored: {_items(row)}"
            + (f"<br><span class='small'>{escape(row['run'])}</span>" if row["run"] else "")
            + "</p>",
            svg_values([v for _, v in values]),
            "<h3>item by item, worst first</h3>",
            "<p class='small'>The system's questions (as scored), the label the metric gave "
            "each, the labels people gave (the shared-task submissions)"
            + (", and the model's whole output with the hash of its prompt" if generated else "")
            + ".</p>",
        ]
        head = ["item", "value", "the system's text", "labels (metric)", "labels (people)"]
        if generated:
            head.append("the model's output")
        body = []
        for entry in entries:
            labels = [_labels(entry.get(k)) for k in ("labels", "human_labels")]
            cells = [
                f"<td>{escape(str(entry['item']))}</td>{_cell(entry['value'])}",
                f"<td>{_lines(entry.get('questions'))}</td><td>{labels[0]}</td><td>{labels[1]}</td>",
            ]
            if generated:
                cells.append(f"<td class='small'>{_generation_cell(entry)}</td>")
            body.append(f"<tr>{''.join(cells)}</tr>")
        parts.append(
            _wide(
                "<table><thead><tr>"
                + "".join(f"<th>{escape(h)}</th>" for h in head)
                + f"</tr></thead><tbody>{''.join(body)}</tbody></table>"
            )
        )
    return _page(name, "".join(parts))


def index_page(
    columns_: list[Column],
    refused: list[dict],
    reasons: dict | None = None,
    info=None,
    other_cards=(),
) -> str:
    """The front page: when and from what it was built, a line per benchmark and the metric
    its score is, and each column with its leader and its incomplete runs; ``other_cards``:
    judge cards given whose judge ranks no column here, listed with their κ."""
    reasons = reasons or {}
    info = info or build_info()
    built = f"built {info['date']} with argbench {info['version']}" + (
        f" (commit {info['commit']})" if info.get("commit") else ""
    )
    parts = [
        "<h1>argbench leaderboard</h1>",
        f"<p class='small'>{escape(built)}. <a href='{escape(DOCS_LINK)}'>What the board "
        "shows and how it is built</a> (docs/leaderboard.md).</p>",
        "<p class='small'>Each column is one measurement: one metric, scored the same way "
        "(signature), on one split's items. Rows of a column are systems ranked by the metric's "
        "headline with a 95% bootstrap interval; a run that scored only some items (a --limit "
        "run) is marked incomplete. Files: <a href='leaderboard.csv'>leaderboard.csv</a>, "
        "<a href='leaderboard.json'>leaderboard.json</a>.</p>",
    ]
    benchmarks: dict[str, list[Column]] = {}
    for column in columns_:
        benchmarks.setdefault(column.benchmark, []).append(column)
    for benchmark, tasks in benchmarks.items():
        metrics = dict.fromkeys(f"{c.metric} ({c.key})" for c in tasks)
        parts.append(
            f"<h2>{escape(benchmark)}</h2><p class='small'>{len(tasks)} column"
            f"{'s' if len(tasks) > 1 else ''}; scores: {escape(', '.join(metrics))}, higher is "
            "better.</p>"
        )
        body = []
        for column in tasks:
            top = column.rows[0]
            partial: dict[tuple, list[str]] = {}  # rows with the same count: one line
            for r in column.rows:
                if not r["complete"]:
                    partial.setdefault((r["items_scored"], r["items"]), []).append(r["system"])
            runs = (
                "<br>".join(
                    f"<span class='warn'>{escape(', '.join(names))}: {scored:,} / {items:,} "
                    "items, incomplete</span>"
                    for (scored, items), names in partial.items()
                )
                or "all complete"
            )
            why = "".join(
                f"<br><span class='small'>{escape(apart_text(r, short=True))}</span>"
                for r in reasons.get(column.slug, [])
            )
            body.append(
                f"<tr><td><a href='{column.slug}.html'>{escape(column.title())}</a>{why}"
                + f"</td><td class='n'>{len(column.rows)}</td>"
                f"<td>{escape(top['system'])}<br><span class='small'>{_items(top)}</span></td>"
                f"{_cell(top['score'])}<td class='n'>[{_num(top['low'])}, {_num(top['high'])}]</td>"
                f"<td>{runs}</td><td class='small'>{escape(tie_groups_text(column))}</td>"
                f"{card_cell(column)}</tr>"
            )
        parts.append(
            _wide(
                "<table><thead><tr><th>column</th><th>systems</th><th>leader (items "
                "scored)</th><th>score</th><th>95% CI</th><th>incomplete runs</th><th>tie groups</th>"
                "<th>judge card</th></tr></thead>"
                f"<tbody>{''.join(body)}</tbody></table>"
            )
        )
    if other_cards:
        parts.append(
            "<h2>Judge cards of judges that rank no column here</h2><ul>"
            + "".join(f"<li>{other_card_line(card)}</li>" for card in other_cards)
            + "</ul>"
        )
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
    reasons = apart(columns_)
    pages = []
    cards = list(cards)
    for column in columns_:
        column.card = card_for(cards, column.metric, column.signature)
        if column.card is not None:
            page = out_dir / f"{card_slug(column.card)}.html"
            if page not in pages:
                pages.append(atomic_write(page, card_page(column.card)))
    used = {id(column.card) for column in columns_}
    other = [card for card in cards if id(card) not in used]
    for card in other:
        page = out_dir / f"{card_slug(card)}.html"
        if page not in pages:
            pages.append(atomic_write(page, card_page(card)))
    index = index_page(columns_, refused, reasons, other_cards=other)
    pages.insert(0, atomic_write(out_dir / "index.html", index))
    by_system: dict[str, list] = {}
    for column in columns_:
        page = task_page(column, notes.get(column.slug, []), reasons.get(column.slug, []))
        pages.append(atomic_write(out_dir / f"{column.slug}.html", page))
        write_tables([column], out_dir / column.slug)
        for row in column.rows:
            by_system.setdefault(row["system"], []).append((column, row, column.docs[row["index"]]))
    for name, places in by_system.items():
        pages.append(atomic_write(out_dir / f"{system_slug(name)}.html", system_page(name, places)))
    write_tables(columns_, out_dir / "leaderboard")
    return pages
