"""MkDocs hooks: the pages that are generated from the code and the cards at build time.

Nothing here is copied by hand, so nothing can drift:
- ``index.md`` is README.md (links into ``docs/`` made site-relative);
- ``corpora/<name>.md``: each dataset card (the card a build wrote, when a build folder is
  given, else the template with a note where the build fills in numbers);
- ``metric-cards/<name>.md``: each metric card (``metrics/<name>/README.md``);
- ``reproduction/report.md`` and its figures: an ``argbench reproduce`` output folder;
- ``reference/cli.md`` (argparse's own help), ``reference/api.md`` (mkdocstrings over every
  module), ``reference/exit-codes.md`` (from the CLI's code), ``reference/performance.md``
  (the benches' output files).
The nav is built here too: known pages first, then every other ``docs/*.md`` (pages other
branches add appear without being listed).

Environment: ``ARGBENCH_DOCS_BUILD`` a folder written by ``make reproduce`` (``argbench build``
+ ``argbench reproduce --out <folder>/reproduction``); ``ARGBENCH_DOCS_BENCH`` a folder written
by ``scripts/run_benches.py --out``; ``ARGBENCH_DOCS_REQUIRE=1`` makes a missing one an error
(CI), otherwise its page says how to get it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[1]

# the hand-written pages in reading order; any other docs/*.md follows them, by name
GUIDES = [
    "install.md",
    "load-a-corpus.md",
    "score-your-system.md",
    "metrics.md",
    "harness.md",
    "judges.md",
    "reproduce.md",
    "cq_human_agreement.md",
    "pairwise.md",
    "scale.md",
    "errors.md",
]
LAST = ["development.md"]


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


def index_page() -> str:
    """README.md as the home page: ``docs/x.md`` links become ``x.md``."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.sub(r"\]\(docs/", "](", text)


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
            text = _strip_front_matter(card_template(name))
            text = re.sub(r"\{\{(\w+)\}\}", r"*(\1: filled in by `argbench build`)*", text)
            text += (
                "\n\n!!! note\n    This is the card template; `make docs BUILD=<folder>` with a"
                " folder written by `make reproduce` shows the built card with its numbers.\n"
            )
        pages[f"corpora/{name}.md"] = text
    return pages


def metric_pages() -> dict[str, str]:
    from argbench.metrics import list_metrics, metric_path

    return {
        f"metric-cards/{name}.md": _strip_front_matter(
            (metric_path(name) / "README.md").read_text(encoding="utf-8")
        )
        for name in list_metrics()
    }


def report_pages() -> dict[str, str | bytes]:
    build = _env_folder("ARGBENCH_DOCS_BUILD")
    report = build / "reproduction" if build else None
    if report and (report / "report.md").is_file():
        pages: dict[str, str | bytes] = {
            "reproduction/report.md": (report / "report.md").read_text(encoding="utf-8")
        }
        for figure in sorted(report.glob("*.png")):
            pages[f"reproduction/{figure.name}"] = figure.read_bytes()
        return pages
    if _required():
        raise SystemExit(f"docs: no {report}/report.md: run `make reproduce` first")
    return {
        "reproduction/report.md": "# argbench reproduction report\n\n"
        "Not in this build: `make reproduce` writes `build/reproduction/`, then `make docs`"
        " (or `make docs BUILD=<the folder make reproduce wrote>`) puts it here.\n"
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


def api_page() -> str:
    import pkgutil

    import argbench

    modules = ["argbench"] + sorted(
        m.name
        for m in pkgutil.walk_packages(argbench.__path__, "argbench.")
        if not any(part.startswith("_") for part in m.name.split("."))
        and not m.name.startswith(
            ("argbench.cli", "argbench.loaders", "argbench.dataset_cards", "argbench.metrics")
        )
    )
    lines = ["# Python API", "", "Generated from the docstrings of every public module.", ""]
    for name in modules:
        lines += [
            f"## `{name}`",
            "",
            f"::: {name}",
            "    options:",
            "      show_root_heading: false",
            "",
        ]
    return "\n".join(lines)


def performance_page() -> str:
    """The benches' output files: the only place the docs take timings from."""
    lines = [
        "# Performance",
        "",
        "Every figure here is what a bench script in `scripts/` printed, read from its output",
        "file at build time; none is typed by hand. Each bench prints ratios against a baseline",
        "measured in the same run. CI runs them all at a small size",
        "(`python scripts/run_benches.py --small --out DIR`), so its times are those of small",
        "inputs on CI's machine. A full-size run (`python scripts/run_benches.py --out",
        "benchmarks`, up to an hour) committed as `benchmarks/` is shown here as well.",
        "",
    ]
    found = False
    for label, folder in (
        ("Full size (committed `benchmarks/`)", ROOT / "benchmarks"),
        ("This build's run", _env_folder("ARGBENCH_DOCS_BENCH")),
    ):
        summary = folder / "benches.json" if folder else None
        if not (summary and summary.is_file()):
            continue
        found = True
        runs = json.loads(summary.read_text(encoding="utf-8"))
        size = "small size (`--small`)" if runs.get("small") else "full size"
        lines += [f"## {label}", "", f"{size}; machine: {runs.get('machine', 'unknown')}.", ""]
        steps = folder / "ci_steps.jsonl"
        if steps.is_file():  # written by .ci/run, one line per step, before this build
            lines += ["CI steps of this run (`.ci/run`, a fresh clone):", ""]
            lines += ["| step | seconds |", "|---|---|"]
            for line in steps.read_text(encoding="utf-8").splitlines():
                step = json.loads(line)
                lines.append(f"| `{step['step']}` | {step['seconds']} |")
            lines.append("")
        for bench in runs["benches"]:
            lines += [
                f"### `{bench['command']}`",
                "",
                f"exit status {bench['returncode']}, {bench['seconds']:.1f} s in all",
                "",
                "```text",
                (folder / bench["output"]).read_text(encoding="utf-8").rstrip() or "(no output)",
                "```",
                "",
            ]
    if not found:
        if _required():
            raise SystemExit("docs: ARGBENCH_DOCS_BENCH has no benches.json")
        lines += ["No bench output in this build: `make docs BENCH=<folder>`.", ""]
    return "\n".join(lines)


def generated_pages() -> dict[str, str | bytes]:
    pages: dict[str, str | bytes] = {"index.md": index_page()}
    pages.update(corpus_pages())
    pages.update(metric_pages())
    pages.update(report_pages())
    pages["reference/cli.md"] = cli_page()
    pages["reference/api.md"] = api_page()
    pages["reference/exit-codes.md"] = exit_codes_page()
    pages["reference/performance.md"] = performance_page()
    return pages


# ---- mkdocs events ----

_PAGES: dict[str, str | bytes] = {}


def _title(path: str, content: str | bytes) -> str:
    match = re.search(r"^# (.+)$", content, flags=re.M) if isinstance(content, str) else None
    return match.group(1).strip() if match else Path(path).stem


def _nav(docs_dir: Path) -> list:
    hand = sorted(p.name for p in docs_dir.glob("*.md"))
    guides = [p for p in GUIDES if p in hand] + [
        p for p in hand if p not in GUIDES and p not in LAST and p != "index.md"
    ]

    def section(prefix: str) -> list:
        return [
            {_title(path, content): path}
            for path, content in sorted(_PAGES.items())
            if path.startswith(prefix) and path.endswith(".md")
        ]

    def titled(name: str) -> dict:
        text = (docs_dir / name).read_text(encoding="utf-8")
        return {_title(name, text): name}

    return [
        {"Home": "index.md"},
        {"Guides": [titled(p) for p in guides]},
        {"Corpora": section("corpora/")},
        {"Metric cards": section("metric-cards/")},
        {"Reproduction report": "reproduction/report.md"},
        {"Reference": section("reference/")},
        *[titled(p) for p in LAST if p in hand],
    ]


def on_config(config, **kwargs):
    _PAGES.clear()
    _PAGES.update(generated_pages())
    config["nav"] = _nav(Path(config["docs_dir"]))
    return config


def on_files(files, config, **kwargs):
    for path, content in _PAGES.items():
        existing = files.get_file_from_path(path)
        if existing is not None:
            files.remove(existing)
        files.append(File.generated(config, path, content=content))
    return files
