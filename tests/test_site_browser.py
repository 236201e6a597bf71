"""Every page of the built site, opened in a real headless Chromium at 1280 px.

The browser is Debian's ``chromium`` (``.ci/run`` installs it), driven by
:class:`argbench.browser.Browser` (the driver the leaderboard and the Space tests use too).
Each page must:
- fit: no code block, table or table cell reaches past the content column (or, for the
  reproduction report's tables, past the window) unless a scrollable box holds it, no code
  line is wider than its block (code wraps), and the page itself never scrolls sideways;
- stay offline: no request to any host but the local server (no font or script CDN);
- log no console error and throw no exception (a missing asset is a console error too).
Screenshots of the home page, the quick tour and the report go to ``<site>/screenshots/``.
"""

from __future__ import annotations

import json
import os

import pytest

from argbench.browser import problems

from .site_helpers import SiteServer, pages

WIDTH, HEIGHT = 1280, 900
BROWSER_SIZE = (WIDTH, HEIGHT)  # the browser fixture's window (conftest.py)
pytestmark = pytest.mark.browser
SCREENSHOTS = {"home": "", "quick-tour": "quick-tour/", "report": "reproduction/report/"}

# Returns a list of problems: elements that stick out of the column (or the window) with no
# scrollable box between them and it. A box scrolls when its overflow-x is auto or scroll.
LAYOUT_JS = r"""
(() => {
  const problems = [];
  const column = document.querySelector('.md-content__inner') || document.body;
  // the column's box with its padding (Material's scroll boxes reach into the padding)
  const limit = (document.querySelector('.md-content') || column).getBoundingClientRect().right + 1;
  const describe = el => el.tagName.toLowerCase() + ' "' +
      (el.innerText || '').trim().slice(0, 60).replace(/\s+/g, ' ') + '"';
  const scrolls = el => /(auto|scroll)/.test(getComputedStyle(el).overflowX);
  const held = el => {
    for (let e = el.parentElement; e && e !== document.body; e = e.parentElement) {
      if (scrolls(e) && e.getBoundingClientRect().right <= limit) return true;
    }
    return false;
  };
  const report = location.pathname.includes('/reproduction/');
  for (const el of column.querySelectorAll('pre, pre > code, table, th, td, img')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0) continue;
    if (r.right > limit && !held(el)) problems.push('past the column: ' + describe(el));
    if (el.scrollWidth > el.clientWidth + 1 && !scrolls(el) &&
        getComputedStyle(el).overflowX !== 'visible')
      problems.push('content cut, cannot scroll: ' + describe(el));
    // code wraps on this site (docs/stylesheets/argbench.css): a line that needs sideways
    // scrolling is a line the reader does not see whole, unless the block is one of the
    // tables of text that scroll (.scroll-x) and its scrollbar takes room on the page
    if (el.matches('pre > code') && el.scrollWidth > el.clientWidth + 1) {
      if (!el.closest('.scroll-x'))
        problems.push('code line wider than its block: ' + describe(el));
      else if (!scrolls(el) || el.offsetHeight - el.clientHeight < 4)
        problems.push('wide code block without a visible scrollbar: ' + describe(el));
    }
    if (report && el.matches('td, th') && r.right > innerWidth && !held(el))
      problems.push('report cell out of the window: ' + describe(el));
  }
  if (document.documentElement.scrollWidth > innerWidth + 1)
    problems.push('the page scrolls sideways: ' + document.documentElement.scrollWidth + ' px');
  return problems;
})()
"""


def test_layout_checker_catches_overflow(browser, tmp_path):
    """The checks can fail: an unscrollable wide block, a remote font, a console error."""
    (tmp_path / "index.html").write_text(
        '<html><head><link rel="stylesheet" href="https://fonts.googleapis.com/css?family=Roboto">'
        "</head><body><div class='md-content__inner' style='width:600px'>"
        "<pre style='overflow:hidden;white-space:pre'>" + "x" * 400 + "</pre>"
        "<table><tr><td style='white-space:nowrap'>" + "y " * 400 + "</td></tr></table>"
        "<div class='scroll-x'><pre><code style='display:block;white-space:pre;overflow:hidden'>"
        + "z"
        * 400
        + "</code></pre></div>"
        "</div><script>console.error('broken')</script></body></html>"
    )
    with SiteServer(tmp_path) as server:
        events = browser.open(server.base, settle=0.6)
        layout = browser.evaluate(LAYOUT_JS)
    found = problems(events)
    assert any("fonts.googleapis.com" in p for p in found)
    assert any("broken" in p for p in found)
    assert any(p.startswith("content cut") and "pre" in p for p in layout)
    assert any(p.startswith("past the column") and "td" in p for p in layout)
    assert any(p.startswith("wide code block without a visible scrollbar") for p in layout)


def test_every_page_fits_stays_offline_and_logs_no_error(browser, site):
    every = pages(site)
    assert len(every) > 30, f"only {len(every)} pages in {site}"
    shots = site / "screenshots"
    shots.mkdir(exist_ok=True)
    failures = {}
    with SiteServer(site) as server:
        for page in every:
            path = page.parent.relative_to(site).as_posix()
            path = "" if path == "." else path + "/"
            found = problems(browser.open(server.base + path, settle=0.6))
            found += browser.evaluate(LAYOUT_JS)
            if found:
                failures[path or "/"] = found
            for name, where in SCREENSHOTS.items():
                if where == path:
                    browser.screenshot(shots / f"{name}.png")
    assert not failures, json.dumps(failures, indent=1, ensure_ascii=False)[:20000]
    for name in SCREENSHOTS:
        assert (shots / f"{name}.png").stat().st_size > 10_000, name
    if os.environ.get("ARGBENCH_SITE_DIR"):
        print(f"screenshots: {shots}")


RESULTS_JS = r"""[...document.querySelectorAll('.md-search-result__item > .md-search-result__link')]
  .map(a => new URL(a.href).pathname)"""


@pytest.mark.parametrize(
    "query, first",
    [
        # the subject's words find its corpus page first: the card's heading names it (it was
        # 13th, below API pages whose section titles say "questions")
        ("critical questions", "/corpora/cqs_gen/"),
        ("ClaimDiff", "/corpora/claimdiff/"),  # the control: a corpus found by its name
    ],
)
def test_search_box_puts_the_subjects_page_first(browser, site, query, first):
    """Typed into the site's search box, ranked by the site's own lunr index and code."""
    with SiteServer(site) as server:
        browser.open(server.base, settle=0.6)
        browser.evaluate("document.querySelector('.md-search__input').focus()")
        browser.call("Input.insertText", {"text": query})
        browser.wait_for("document.querySelectorAll('.md-search-result__item').length > 0")
        browser.settle(0.5)  # the results of the whole query, not of a prefix
        results = browser.evaluate(RESULTS_JS)
    assert results[0] == first, results[:15]
