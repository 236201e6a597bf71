"""MkDocs hooks: the pages that are generated from the code and the cards at build time.

Nothing here is copied by hand, so nothing can drift:
- ``quick-tour.md``: the executed notebook ``docs/quick-tour.ipynb`` with its outputs;
- ``changelog.md`` and ``license.md``: CHANGELOG.md and LICENSE;
- ``corpora/<name>.md``: each dataset card (the card a build wrote, when a build folder is
  given, else the template with a note where the build fills in numbers);
- ``metric-cards/<name>.md``: each metric card (``metrics/<name>/README.md``);
- ``reproduction/report.md`` and its figures: an ``argbench reproduce`` output folder;
- ``reference/cli.md`` (argparse's own help), ``reference/api/<module>.md`` (mkdocstrings,
  one page per module), ``reference/exit-codes.md`` (from the CLI's code),
  ``reference/performance.md`` (the committed full bench run ``docs/benchmarks/full/`` and
  this build's run).
The nav is built here too, grouped as tutorials / how-to guides / results / reference /
about; every page's nav label is its title (one name per page), and a ``docs/*.md`` page
nobody listed joins the how-to guides. Every page's footer names the argbench version and
licence, and its HTML gets the fixes of scripts/docs_render.py.

Environment: ``ARGBENCH_DOCS_BUILD`` a folder written by ``make reproduce`` (``argbench build``
+ ``argbench reproduce --out <folder>/reproduction``); ``ARGBENCH_DOCS_BENCH`` a folder written
by ``scripts/run_benches.py --out``; ``ARGBENCH_DOCS_REQUIRE=1`` makes a missing one an error
(CI), otherwise its page says how to get it.
"""

from __future__ import annotations

import argparse
import json
import os
import posixpath
import re
import sys
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_render import fix_html, notebook_page  # noqa: E402 (a sibling of this file)
from summary_line import BadSummary, check, without_summaries  # noqa: E402 (a sibling too)

# the hand-written pages, by group, in reading order; a docs/*.md page not named here joins
# the how-to guides (pages other branches add appear without being listed)
TUTORIALS = ["quick-tour.md", "install.md", "load-a-corpus.md", "score-your-system.md"]
HOW_TO = [
    "harness.md",
    "judges.md",
    "reproduce.md",
    "hub.md",
    "pairwise.md",
    "cq_human_agreement.md",
    "scale.md",
]
REFERENCE = ["metrics.md"]
REFERENCE_AFTER = ["errors.md"]
ABOUT = ["cite.md", "changelog.md", "license.md", "development.md"]
RESULTS = ["leaderboard.md"]  # the leaderboard page (issue 29), beside the report
LISTED = {"index.md", *TUTORIALS, *HOW_TO, *REFERENCE, *REFERENCE_AFTER, *ABOUT, *RESULTS}
FULL_BENCH = ROOT / "docs" / "benchmarks" / "full"


def _env_folder(name: str) -> Path | None:
    value = os.environ.get(name)
    return Path(value).resolve() if value else None


def _required() -> bool:
    return os.environ.get("ARGBENCH_DOCS_REQUIRE") == "1"


def _strip_front_matter(text: str) -> str:
    if text.startswith("---\n"):
        end = text.find("\n---\n", 4)
        if end != -1:
            return text[end + 5 :]
    return text


# ---- the pages ----


def notebook_pages() -> dict[str, str | bytes]:
    """The quick tour notebook as it was executed (outputs committed, checked by a test)."""
    return notebook_page(ROOT / "docs" / "quick-tour.ipynb", "quick-tour")


def about_pages() -> dict[str, str]:
    license_text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    return {
        "changelog.md": (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"),
        "license.md": "# Licence\n\nargbench is licensed under the Apache License, Version 2.0"
        ' (`license = "Apache-2.0"` in pyproject.toml). Each corpus keeps its own licence:'
        " see its card. The full text:\n\n```text\n" + license_text.rstrip() + "\n```\n",
    }


def corpus_pages() -> dict[str, str]:
    from argbench import list_datasets
    from argbench.layout import card_template

    build = _env_folder("ARGBENCH_DOCS_BUILD")
    pages = {}
    for name in list_datasets():
        built = build / name / "README.md" if build else None
        if built and built.is_file():
            text = _strip_front_matter(built.read_text(encoding="utf-8"))
        elif _required():
            raise SystemExit(f"docs: no built card {built}: run `make reproduce` first")
        else:
            from argbench.loaders import builder_class

            cls = builder_class(name)
            text = _strip_front_matter(card_template(name))
            text = text.replace("{{version}}", str(cls.VERSION))
            text = text.replace("{{citation}}", cls.CITATION.strip())
            text = re.sub(r"\{\{(\w+)\}\}", r"*(\1: filled in by argbench build)*", text)
            text += (
                "\n\n!!! note\n    This is the card template; `make docs BUILD=<folder>` with a"
                " folder written by `make reproduce` shows the built card with its numbers.\n"
            )
        pages[f"corpora/{name}.md"] = text
    return pages


def metric_pages() -> dict[str, str]:
    from argbench.metrics import list_metrics, metric_path

    # a card is also a Hub Space's README: the site links what the card names in words
    return {
        f"metric-cards/{name}.md": _strip_front_matter(
            (metric_path(name) / "README.md").read_text(encoding="utf-8")
        ).replace("*Performance* page", "[Performance](../reference/performance.md) page")
        for name in list_metrics()
    }


def report_pages() -> dict[str, str | bytes]:
    build = _env_folder("ARGBENCH_DOCS_BUILD")
    report = build / "reproduction" if build else None
    if report and (report / "report.md").is_file():
        pages: dict[str, str | bytes] = {
            "reproduction/report.md": (report / "report.md").read_text(encoding="utf-8")
        }
        for figure in sorted(report.rglob("*.png")):  # beside report.md or in a subfolder
            pages[f"reproduction/{figure.relative_to(report).as_posix()}"] = figure.read_bytes()
        return pages
    if _required():
        raise SystemExit(f"docs: no {report}/report.md: run `make reproduce` first")
    return {
        "reproduction/report.md": "# argbench reproduction report\n\n"
        "Not in this build: `make reproduce` writes `build/reproduction/`, then `make docs`"
        " (or `make docs BUILD=<the folder make reproduce wrote>`) puts it here.\n"
    }


def leaderboard_files() -> dict[str, str | bytes]:
    """The board ``make reproduce`` built (``BUILD/leaderboard``: HTML, CSV, JSON, screenshots),
    served as it is under ``board/``; its pages are self-contained, so they need no theme."""
    build = _env_folder("ARGBENCH_DOCS_BUILD")
    board = build / "leaderboard" if build else None
    if board and (board / "index.html").is_file():
        return {
            f"board/{path.relative_to(board).as_posix()}": path.read_bytes()
            for path in sorted(board.rglob("*"))
            if path.is_file() and not path.name.startswith(".")
        }
    if _required():
        raise SystemExit(f"docs: no {board}/index.html: run `make reproduce` first")
    return {
        "board/index.html": "<!doctype html><meta charset=utf-8><title>argbench leaderboard</title>"
        "<p>Not in this build: <code>make reproduce</code> writes <code>build/leaderboard/</code>, "
        "then <code>make docs</code> puts it here.</p>"
    }


def _parsers(parser: argparse.ArgumentParser, prog: str):
    yield prog, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, f"{prog} {name}")


def cli_page() -> str:
    os.environ["COLUMNS"] = "100"  # argparse wraps help at $COLUMNS: the same text everywhere
    from argbench.cli import parser

    lines = [
        "# Command line reference",
        "",
        "Generated from argparse (`argbench ... --help` prints the same).",
        "",
    ]
    for prog, sub in _parsers(parser(), "argbench"):
        lines += [f"## `{prog}`", "", "```text", sub.format_help().rstrip(), "```", ""]
    return "\n".join(lines)


def exit_code_rows() -> list[tuple[int, str, str]]:
    """(status, meaning, exceptions), from the CLI's own table (``argbench.cli.EXIT_CODES``) and
    the exception classes ``argbench.cli.exit_status`` maps to each status."""
    import argbench.cli as cli

    raised = {
        1: "`RuntimeError`, `OSError`, `MemoryError` (other than the ones for 2)",
        2: "`UsageError`, `argbench.errors.BadInput`, "
        + ", ".join(f"`{e.__name__}`" for e in cli._BAD_INPUT),
        130: "`KeyboardInterrupt`",
    }
    return [(status, meaning, raised.get(status, "")) for status, meaning in cli.EXIT_CODES.items()]


def exit_codes_page() -> str:
    return "\n".join(
        [
            "# Exit codes",
            "",
            "Every `argbench` subcommand exits with one of these. The table is generated from",
            "the code that decides the status (`argbench.cli.exit_status`); any other exception",
            "is a bug and is raised with its traceback. Error messages start with",
            "`argbench <command>: error:` and name what was wrong and where.",
            "",
            "| status | meaning | raised as |",
            "|---|---|---|",
            *[
                f"| {status} | {meaning} | {raised} |"
                for status, meaning, raised in exit_code_rows()
            ],
            "",
            "Which refusal of which subcommand exits with which status "
            "(`argbench.cli.exits.REFUSALS`):",
            "",
            *_refusal_rows(),
            "",
        ]
    )


def _refusal_rows() -> list[str]:
    from argbench.cli.exits import END, markdown

    text = markdown()  # the block docs/errors.md holds: its second table
    return text[text.index("| subcommand |") : text.index(END)].rstrip().split("\n")


def on_page_markdown(markdown, page, **kwargs):
    """docs/errors.md's generated tables, rendered again from the code (never stale)."""
    if page.file.src_path == "errors.md":
        from argbench.cli.exits import rewrite

        return rewrite(markdown)
    return markdown


def api_modules() -> list[str]:
    import pkgutil

    import argbench

    return ["argbench"] + sorted(
        m.name
        for m in pkgutil.walk_packages(argbench.__path__, "argbench.")
        if not any(part.startswith("_") for part in m.name.split("."))
        and not m.name.startswith(
            ("argbench.cli", "argbench.loaders", "argbench.dataset_cards", "argbench.metrics")
        )
    )


def _first_line(module: str) -> str:
    import importlib

    doc = (importlib.import_module(module).__doc__ or "").strip()
    return re.sub(r"``?([^`]+)``?", r"`\1`", doc.split("\n\n")[0].replace("\n", " "))


def api_pages() -> dict[str, str]:
    """One page per public module (a 49,000-px single page is no reference), and an index."""
    pages = {}
    rows = ["| module | what it is for |", "|---|---|"]
    for name in api_modules():
        pages[f"reference/api/{name}.md"] = "\n".join(
            [f"# {name}", "", f"::: {name}", "    options:", "      show_root_heading: false", ""]
        )
        rows.append(f"| [`{name}`]({name}.md) | {_first_line(name).replace('|', '/')} |")
    pages["reference/api/index.md"] = "\n".join(
        ["# Python API", "", "Generated from the docstrings, one page per module.", "", *rows, ""]
    )
    return pages


def api_anchors() -> dict[str, str]:
    """Full name of every documented public object -> its URL from the site root."""
    import importlib
    import inspect

    anchors = {}
    for name in api_modules():
        page = f"reference/api/{name}/"
        anchors[name] = page
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if attr.startswith("_") or getattr(value, "__module__", name) != name:
                continue
            anchors[f"{name}.{attr}"] = f"{page}#{name}.{attr}"
            if inspect.isclass(value):
                for member in vars(value):
                    if not member.startswith("_"):
                        anchors[f"{name}.{attr}.{member}"] = f"{page}#{name}.{attr}.{member}"
    return anchors


def _seconds(value: float) -> str:
    return f"{value:.3g}" if value < 100 else f"{value:,.0f}"


def _ratio(value: float) -> str:
    return f"x{value:,.0f}" if value >= 100 else f"x{value:.3g}"


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def summary_table(runs: dict, folder: Path) -> list[str]:
    """One row per comparison a bench printed (its ``argbench-bench-summary:`` lines, collected
    by run_benches into ``summary``); a bench of the run without any says so. An entry that is
    not of the documented form stops the build, naming the bench. The machine's platform,
    when every row shares it, is said once above the table; each row keeps its CPUs and load."""
    rows, machines = [], []
    for bench in runs["benches"]:
        name = bench["bench"]
        if "summary_error" in bench:
            raise BadSummary(f"{folder / 'benches.json'}: {bench['summary_error']}")
        entries = bench.get("summary") or []
        for entry in entries:
            try:
                check(entry, name)
            except BadSummary as error:
                raise BadSummary(f"{folder / 'benches.json'}: {error}") from None
            machine = entry.get("machine", runs.get("machine", ""))
            machines.append(machine)
            date = entry.get("date", bench.get("started", runs.get("date", "")))
            rows.append(
                [f"`{name}` {_cell(entry['work'])}", _cell(entry["baseline"])]
                + [_seconds(entry["baseline_s"]), _seconds(entry["argbench_s"])]
                + [_ratio(entry["ratio"]), machine, _cell(date)]
            )
        if not entries:
            why = "did not finish" if bench.get("returncode") != 0 else "output from before them"
            when = bench.get("started") or runs.get("date", "")
            rows.append([f"`{name}` no summary yet ({why})", "", "", "", "", "", _cell(when)])
    platforms = {m.split(", ", 1)[0] for m in machines}
    shared = platforms.pop() if len(platforms) == 1 else None
    intro = []
    if shared:
        intro = [f"Machine: {_cell(shared)}.", ""]
        for row in rows:
            row[5] = row[5].removeprefix(shared + ", ")
    return [
        *intro,
        '<div class="bench-summary" markdown>',
        "",
        "| work | baseline | baseline s | argbench s | ratio | machine | date |",
        "|---|---|--:|--:|--:|---|---|",
        *(
            "| " + " | ".join(_cell(c) if i == 5 else c for i, c in enumerate(r)) + " |"
            for r in rows
        ),
        "",
        "</div>",
        "",
        "ratio = baseline seconds / argbench seconds: argbench is faster when it is above 1. "
        "Each row is one `argbench-bench-summary:` line the bench printed "
        "(scripts/summary_line.py); the load average is the machine's at the end of the "
        "bench (the machine is shared).",
        "",
    ]


def _runs(folder: Path) -> dict:
    return json.loads((folder / "benches.json").read_text(encoding="utf-8"))


def _bench_section(label: str, folder: Path, table: bool) -> list[str]:
    """A run's outputs as printed; ``table``: its summary table first (the full run's opens
    the page instead)."""
    runs = _runs(folder)
    size = "small size (`--small`)" if runs.get("small") else "full size"
    when = f", {runs['date']}" if runs.get("date") else ""
    lines = [f"## {label}", "", f"{size}{when}; machine: {runs.get('machine', 'unknown')}.", ""]
    lines += summary_table(runs, folder) if table else []
    failed = [b["bench"] for b in runs["benches"] if b.get("returncode") != 0]
    ran = {b["bench"] for b in runs["benches"]}
    absent = sorted(p.stem for p in (ROOT / "scripts").glob("bench_*.py") if p.stem not in ran)
    if failed:
        lines += [f"Did not finish in this run: {', '.join(f'`{m}`' for m in failed)}.", ""]
    if absent:
        lines += [f"Not in this run: {', '.join(f'`{m}`' for m in absent)}.", ""]
    steps = folder / "ci_steps.jsonl"
    if steps.is_file():  # written by .ci/run, one line per step, before this build
        lines += ["CI steps of this run (`.ci/run`, a fresh clone):", ""]
        lines += ["| step | seconds |", "|---|---|"]
        for line in steps.read_text(encoding="utf-8").splitlines():
            step = json.loads(line)
            lines.append(f"| `{step['step']}` | {step['seconds']} |")
        lines.append("")
    for bench in runs["benches"]:
        status = "timed out" if bench.get("timed_out") else f"exit status {bench['returncode']}"
        lines += [
            f"### {bench['bench']}",
            "",
            f"`{bench['command']}`: {status}, {bench['seconds']:.1f} s in all"
            + (f"; started {bench['started']}" if bench.get("started") else "")
            + (f", load average {bench['load']} at the end" if "load" in bench else ""),
            "",
            '<div class="scroll-x" markdown>',  # a table of text: it scrolls, never wraps
            "",
            "```text",
            without_summaries((folder / bench["output"]).read_text(encoding="utf-8")).rstrip()
            or "(no output)",
            "```",
            "",
            "</div>",
            "",
        ]
    return lines


def performance_page() -> str:
    """The benches' output files: the only place the docs take timings from."""
    lines = ["# Performance", ""]
    if (FULL_BENCH / "benches.json").is_file():
        lines += [
            "What each bench measured against its baseline in the full-size run committed to",
            "the repository (`docs/benchmarks/full`); the benches' whole printouts follow.",
            "",
            *summary_table(_runs(FULL_BENCH), FULL_BENCH),
        ]
    lines += [
        "Every figure here is what a bench script in `scripts/` printed, read from its output",
        "file at build time; none is typed by hand. Each bench prints ratios against a baseline",
        "measured in the same run. Two runs are shown: a full-size run committed to the",
        "repository (`python scripts/run_benches.py --out docs/benchmarks/full`), with the",
        "machine and date it ran on, and, in CI, that build's own run at a small size",
        "(`python scripts/run_benches.py --small --out DIR`, `make docs BENCH=DIR`): small",
        "inputs on CI's machine.",
        "",
    ]
    found = False
    for label, folder, table in (
        ("Full size (committed: docs/benchmarks/full)", FULL_BENCH, False),
        ("This build's run", _env_folder("ARGBENCH_DOCS_BENCH"), True),
    ):
        if folder and (folder / "benches.json").is_file():
            found = True
            lines += _bench_section(label, folder, table)
    if not found:
        lines += ["No bench output in this build: `make docs BENCH=<folder>`.", ""]
    bench = _env_folder("ARGBENCH_DOCS_BENCH")
    if _required() and not (bench and (bench / "benches.json").is_file()):
        raise SystemExit("docs: ARGBENCH_DOCS_BENCH has no benches.json")
    return "\n".join(lines)


def generated_pages() -> dict[str, str | bytes]:
    pages: dict[str, str | bytes] = {}
    pages.update(notebook_pages())
    pages.update(about_pages())
    pages.update(corpus_pages())
    pages.update(metric_pages())
    pages.update(report_pages())
    pages.update(leaderboard_files())
    pages["reference/cli.md"] = cli_page()
    pages.update(api_pages())
    pages["reference/exit-codes.md"] = exit_codes_page()
    pages["reference/performance.md"] = performance_page()
    return pages


# ---- mkdocs events ----

_PAGES: dict[str, str | bytes] = {}
_ANCHORS: dict[str, str] = {}


def _title(path: str, content: str | bytes) -> str:
    """A page's nav label: its first heading, as the reader sees it (no markup)."""
    match = re.search(r"^# (.+)$", content, flags=re.M) if isinstance(content, str) else None
    title = match.group(1).strip() if match else Path(path).stem
    return re.sub(r"[`*]", "", title)


def _nav(docs_dir: Path) -> list:
    hand = {p.name: p.read_text(encoding="utf-8") for p in docs_dir.glob("*.md")}
    pages = {**{k: v for k, v in _PAGES.items() if k.endswith(".md")}, **hand}

    def titled(names: list[str]) -> list:
        return [{_title(n, pages[n]): n} for n in names if n in pages]

    def section(prefix: str, first: str | None = None) -> list:
        names = sorted(p for p in pages if p.startswith(prefix) and p != first)
        return titled(([first] if first else []) + names)

    others = sorted(n for n in hand if n not in LISTED)
    return [
        {"Home": "index.md"},
        {"Tutorials": titled(TUTORIALS)},
        {"How-to guides": titled(HOW_TO + others)},
        {"Results": titled(["reproduction/report.md", *RESULTS])},
        {
            "Reference": [
                *titled(REFERENCE),
                {"Metric cards": section("metric-cards/")},
                {"Corpora": section("corpora/")},
                *titled(["reference/cli.md"]),
                {"Python API": section("reference/api/", "reference/api/index.md")},
                *titled(["reference/exit-codes.md", *REFERENCE_AFTER]),
                *titled(["reference/performance.md"]),
            ]
        },
        {"About": titled(ABOUT)},
    ]


def on_config(config, **kwargs):
    import argbench

    _PAGES.clear()
    _PAGES.update(generated_pages())
    _ANCHORS.clear()
    _ANCHORS.update(api_anchors())
    config["nav"] = _nav(Path(config["docs_dir"]))
    # every page's footer: the version it documents, the licence, how to cite
    # (ROOT/ becomes the way back to the site's root from each page: on_post_page)
    config["copyright"] = (
        f"argbench {argbench.__version__} · Apache-2.0 "
        '<a href="ROOT/license/">licence</a> · <a href="ROOT/cite/">cite argbench</a> · '
        '<a href="ROOT/changelog/">changelog</a>'
    )
    return config


def on_files(files, config, **kwargs):
    for path, content in _PAGES.items():
        existing = files.get_file_from_path(path)
        if existing is not None:
            files.remove(existing)
        files.append(File.generated(config, path, content=content))
    return files


def _base(page) -> str:
    here = page.url or "./"
    return here if here.endswith("/") else posixpath.dirname(here) + "/"


def on_post_page(output, page, config, **kwargs):
    root = posixpath.relpath(".", _base(page))
    return output.replace('href="ROOT/', f'href="{root}/')


def on_page_content(html, page, config, files, **kwargs):
    base = _base(page)
    relative = {}
    for name, url in _ANCHORS.items():
        target, _, anchor = url.partition("#")
        relative[name] = posixpath.relpath(target, base) + "/" + (f"#{anchor}" if anchor else "")
    module = None
    if page.file.src_uri.startswith("reference/api/argbench"):
        module = Path(page.file.src_uri).stem
    return fix_html(html, relative, module)


def on_post_template(output, template_name, config, **kwargs):
    # 404.html is served at any depth: its footer links go from the server's root
    return output.replace('href="ROOT/', 'href="/')
