"""The built site's HTML, read as files: no raw markup, one name per page, offline, citable,
searchable, no path of the build machine. (tests/test_site_browser.py opens the same site in
Chromium; scripts/docs_render.py is what fixes most of what these tests look for.)"""

from __future__ import annotations

import html
import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

import argbench

from .site_helpers import ROOT, pages

pytest.importorskip("mkdocs")


@pytest.fixture(scope="module")
def texts(site) -> dict[str, str]:
    return {
        p.parent.relative_to(site).as_posix(): p.read_text(encoding="utf-8") for p in pages(site)
    }


def _visible(page: str) -> str:
    """The article's text as a reader sees it (tags dropped, entities decoded)."""
    match = re.search(r"<article.*?</article>", page, flags=re.S)
    body = re.sub(r"<script.*?</script>", "", match.group(0) if match else page, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", body))


def _render():
    spec = importlib.util.spec_from_file_location("docs_render", ROOT / "scripts/docs_render.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["docs_render"] = module
    spec.loader.exec_module(module)
    return module


RAW = [
    (re.compile(r"\\\|"), "an escaped pipe \\|"),
    (re.compile(r":(?:py:)?(?:func|class|meth|mod|attr|exc|data|obj):`?"), "a Sphinx role"),
    (re.compile(r"[ℓΣsα-ω]_\{"), "TeX-style subscript _{...}"),
    (re.compile(r"\{\{\s*\w+\s*\}\}"), "a template placeholder {{...}}"),
]


def test_no_raw_markup_on_any_page(texts):
    found = []
    for path, page in texts.items():
        text = _visible(page)
        for pattern, what in RAW:
            for match in pattern.finditer(text):
                found.append(
                    f"{path}: {what}: ...{text[max(0, match.start() - 40) : match.end() + 40]}..."
                )
    assert not found, "\n".join(found[:40])


def test_nav_labels_are_page_titles_without_markup(texts):
    """One name per page: the sidebar label of each page is its title, with no backticks."""
    found = []
    for path, page in texts.items():
        active = re.findall(
            r'<a href="[^"]*" class="md-nav__link md-nav__link--active"[^>]*>\s*'
            r'<span class="md-ellipsis">\s*(.*?)\s*</span>',
            page,
            flags=re.S,
        )
        title = re.search(r"<h1[^>]*>(.*?)</h1>", page, flags=re.S)
        if not active or not title:
            continue
        label = html.unescape(re.sub(r"<[^>]+>", "", active[0])).strip()
        heading = html.unescape(re.sub(r"<[^>]+>", "", title.group(1))).replace("¶", "").strip()
        if "`" in label or (label != heading and path != "."):  # the home page is "Home"
            found.append(f"{path or '/'}: nav {label!r}, title {heading!r}")
    assert not found, "\n".join(found)


def test_cross_references_are_links_not_italics(texts):
    """A page named in italics (*Performance*) instead of linked is a dead end for a reader."""
    titles = set()
    for page in texts.values():
        title = re.search(r"<h1[^>]*>(.*?)</h1>", page, flags=re.S)
        if title:
            titles.add(
                html.unescape(re.sub(r"<[^>]+>", "", title.group(1))).replace("¶", "").strip()
            )
    titles -= {"argbench"}
    found = []
    for path, page in texts.items():
        for italic in re.findall(r"<em>(.*?)</em>", page, flags=re.S):
            if html.unescape(italic).strip() in titles:
                found.append(f"{path}: <em>{italic}</em> names a page without linking it")
    assert not found, "\n".join(found)


def test_offline_and_versioned_and_licensed(texts):
    for path, page in texts.items():
        assert "fonts.googleapis" not in page and "fonts.gstatic" not in page, path
        assert not re.search(r"<script[^>]+src=\"https?://", page), path
        assert not re.search(r"<link[^>]+href=\"https?://[^\"]+\.(css|js)", page), path
        assert f"argbench {argbench.__version__}" in page, f"{path}: no version in the footer"
        assert "Apache-2.0" in page, path


def test_footer_links_to_cite_changelog_and_licence_from_every_page(texts, site):
    import posixpath

    for path, page in texts.items():
        footer = re.search(r'md-copyright__highlight">(.*?)</div>', page, flags=re.S).group(1)
        hrefs = re.findall(r'href="([^"]+)"', footer)
        assert len(hrefs) == 3, f"{path}: footer links {hrefs}"
        for href in hrefs:
            target = posixpath.normpath(posixpath.join(path, href))
            assert (site / target / "index.html").is_file(), f"{path}: footer link {href} is broken"


def test_no_path_of_the_build_machine(texts, site):
    roots = {str(ROOT), str(site), str(Path(sys.prefix)), str(Path.home())}
    for path, page in texts.items():
        for root in roots:
            if len(root) > 5:
                assert root not in page, f"{path} shows the local path {root}"


def test_citation_version_matches_the_package(texts):
    cff = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert f'version: "{argbench.__version__}"' in cff and "license: Apache-2.0" in cff
    cite = _visible(texts["cite"])
    assert "@software{argbench" in cite and f"version = {{{argbench.__version__}}}" in cite
    assert (ROOT / "LICENSE").read_text().lstrip().startswith("Apache License")
    changelog = _visible(texts["changelog"])
    for name in argbench.list_datasets():
        assert name in changelog, f"changelog: no entry for corpus {name}"


def test_api_reference_is_split_and_roles_are_links(texts):
    modules = [p for p in texts if p.startswith("reference/api/argbench")]
    assert len(modules) > 15, modules
    results = texts["reference/api/argbench.io"]
    assert "<code>check_output</code></a>" in results  # was ":func:`check_output`"


def test_search_finds_the_words_people_type(site):
    """mkdocs' search index, split with the separator mkdocs.yml gives lunr."""
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    separator = re.compile(index["config"]["separator"])

    def found(query: str) -> set[str]:
        words = [w.lower() for w in separator.split(query) if w]
        hits = set()
        for doc in index["docs"]:
            tokens = {t.lower() for t in separator.split(doc["title"] + " " + doc["text"]) if t}
            if all(w in tokens for w in words):
                hits.add(doc["location"].split("#")[0])
        return hits

    assert "metric-cards/annotator_agreement/" in found("kappa")
    assert "pairwise/" in found("Bradley-Terry")
    assert "pairwise/" in found("Bradley–Terry")


def test_search_words_and_roles_unit():
    render = _render()
    page = "<p>Cohen's κ of two raters</p><p><code>κ</code></p>"
    assert render.fix_html(page, {}).startswith("<p>Cohen's κ (kappa) of")
    assert render.fix_html("<p>kappa and κ</p>", {}) == "<p>kappa and κ</p>"
    roles = "<p>:func:<code>atomic_write</code> and :class:<code>Nope</code></p>"
    fixed = render.fix_html(
        roles, {"argbench.io.atomic_write": "io/#argbench.io.atomic_write"}, "argbench.io"
    )
    assert (
        fixed
        == '<p><a href="io/#argbench.io.atomic_write"><code>atomic_write</code></a> and <code>Nope</code></p>'
    )
    assert render.fix_html("<td><code>a\\|b</code></td>", {}) == "<td><code>a|b</code></td>"


def test_a_failed_notebook_cell_stops_the_build(tmp_path):
    render = _render()
    notebook = {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": 1,
                "source": "1/0",
                "metadata": {},
                "outputs": [
                    {
                        "output_type": "error",
                        "ename": "ZeroDivisionError",
                        "evalue": "x",
                        "traceback": [],
                    }
                ],
            }
        ]
    }
    (tmp_path / "nb.ipynb").write_text(json.dumps(notebook))
    with pytest.raises(render.NotebookError, match="cell 1 failed"):
        render.notebook_page(tmp_path / "nb.ipynb", "nb")
    notebook["cells"][0].update(execution_count=None, outputs=[])
    (tmp_path / "nb.ipynb").write_text(json.dumps(notebook))
    with pytest.raises(render.NotebookError, match="never executed"):
        render.notebook_page(tmp_path / "nb.ipynb", "nb")


def test_performance_page_opens_with_the_summary_table(texts):
    """The committed full run's comparisons, one row per summary line a bench printed (a bench
    without one says so), before the benches' printouts."""
    article = re.search(r"<article.*?</article>", texts["reference/performance"], re.S).group(0)
    opening = article.split("<h2", 1)[0]  # what comes before the first section
    table = re.search(r"<table>.*?</table>", opening, re.S)
    assert table, opening[:2000]
    headers = [html.unescape(h) for h in re.findall(r"<th[^>]*>(.*?)</th>", table.group(0))]
    assert headers == ["work", "baseline", "baseline s", "argbench s", "ratio", "machine", "date"]
    rows = [
        [html.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>", r)]
        for r in re.findall(r"<tr>(.*?)</tr>", table.group(0), re.S)[1:]
    ]
    full = json.loads((ROOT / "docs/benchmarks/full/benches.json").read_text(encoding="utf-8"))
    ratio = lambda r: f"x{r:,.0f}" if r >= 100 else f"x{r:.3g}"  # noqa: E731
    entries = [(b["bench"], s) for b in full["benches"] for s in b.get("summary") or []]
    expected = [
        [f"{b} {s['work']}", s["baseline"], ratio(s["ratio"]), s["date"]] for b, s in entries
    ]
    assert [[r[0], r[1], r[4], r[6]] for r in rows if r[2]] == expected
    # the machine: its platform once above the table when the rows share it, CPUs and load per row
    shared = re.search(r"Machine: (.*?)\.</p>", opening)
    for row, (_, s) in zip([r for r in rows if r[2]], entries, strict=True):
        assert (f"{shared.group(1)}, {row[5]}" if shared else row[5]) == s["machine"]
    without = [r[0].split(" no summary yet (")[0] for r in rows if not r[2]]
    assert without == [b["bench"] for b in full["benches"] if not b.get("summary")]
    assert "argbench-bench-summary: {" not in _visible(article)  # the lines are the table
