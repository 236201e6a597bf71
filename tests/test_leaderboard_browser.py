"""The leaderboard pages in a real browser (headless Chromium on 127.0.0.1, a fresh profile):
rows, intervals, sorting and filtering work from disk, nothing is fetched from the network,
injected markup stays text, and every page has a screenshot."""

from __future__ import annotations

from pathlib import Path

import pytest

from argbench.browser import Browser, find_chromium
from argbench.cli import main
from tests.test_leaderboard import DATASET, SIGNATURE, board, results, write

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        find_chromium() is None, reason="no Chromium (apt-get install chromium; CI installs it)"
    ),
]

ROWS = "[...document.querySelectorAll('#board tbody tr')]"
VISIBLE = (
    f"{ROWS}.filter(r => r.style.display !== 'none')"
    ".map(r => r.children[3].querySelector('a').textContent)"  # rank, rank (95%), tie group, system
)


@pytest.fixture(scope="module")
def board_site(tmp_path_factory):
    """The leaderboard's own site (argbench leaderboard --screenshots) on a small board."""
    tmp = tmp_path_factory.mktemp("board")
    paths = board(tmp)
    evil = "<img src=x onerror=\"document.title='pwned'\">"
    paths.append(write(tmp, results(evil, [0.5] * 20, questions=[["<b>bold?</b>"]] * 20), "evil"))
    other = SIGNATURE.replace("m@abc", "other@def")
    paths.append(write(tmp, results("other-model", [1.0] * 20, signature=other), "other"))
    # another split: the reason it is apart names both content hashes (long, unbroken)
    data = {**DATASET, "content_hash": "sha256:" + "cd" * 32}
    paths.append(write(tmp, results("other-data", [1.0] * 20, dataset=data), "other-data"))
    out = tmp / "site"
    assert (
        main(["leaderboard", *paths, "--out", str(out), "--resamples", "500", "--screenshots"]) == 0
    )
    return out


def task_pages(board_site):
    return sorted(
        p
        for p in board_site.glob("*.html")
        if p.name != "index.html" and not p.name.startswith("system-")
    )


def test_rows_intervals_sorting_filtering(board_site, browser):
    pages = task_pages(board_site)
    assert len(pages) == 3  # the other model's and the other split's results: tasks of their own
    main_page = next(p for p in pages if ">strong<" in p.read_text())  # the system, linked
    browser.open(main_page)
    assert browser.evaluate(f"{ROWS}.length") == 4
    names = browser.evaluate(VISIBLE)
    assert names[-1] == "weak" and "other-model" not in names
    cells = browser.evaluate(f"{ROWS}.map(r => r.children[5].textContent)")  # the 95% CI
    assert all(c.startswith("[0.") or c.startswith("[1.") for c in cells), cells
    # click "score": ascending, then descending
    browser.evaluate("document.querySelectorAll('#board th')[4].click()")
    ascending = browser.evaluate(f"{ROWS}.map(r => parseFloat(r.children[4].dataset.v))")
    assert ascending == sorted(ascending) and browser.evaluate(VISIBLE)[0] == "weak"
    browser.evaluate("document.querySelectorAll('#board th')[4].click()")
    descending = browser.evaluate(f"{ROWS}.map(r => parseFloat(r.children[4].dataset.v))")
    assert descending == sorted(descending, reverse=True)
    # filter: type into the box
    browser.evaluate(
        "(() => {const i = document.querySelector('input.filter'); i.value = 'weak';"
        " i.dispatchEvent(new Event('input')); })()"
    )
    assert browser.evaluate(VISIBLE) == ["weak"]


def test_injected_markup_stays_text_and_nothing_comes_from_the_network(board_site, browser):
    for page in sorted(board_site.glob("*.html")):
        browser.open(page)
        assert browser.evaluate("document.title") != "pwned", page.name
        assert browser.evaluate("document.querySelectorAll('img, b').length") == 0, page.name
        assert browser.evaluate("document.querySelectorAll('script').length") == 1, page.name
    system = next(p for p in board_site.glob("system-*.html") if "onerror" in p.read_text())
    browser.open(system)
    assert "<b>bold?</b>" in browser.evaluate("document.body.textContent")
    assert "onerror" in browser.evaluate("document.querySelector('h1').textContent")
    assert browser.requests and all(u.startswith("file://") for u in browser.requests), {
        u for u in browser.requests if not u.startswith("file://")
    }


@pytest.mark.parametrize("width", [1280, 390])
def test_no_sideways_scroll_on_a_laptop_or_a_phone(board_site, width):
    """At 1280 px and at 390 px (a phone: the viewport tag decides the layout width), the
    front page and the task pages fit the screen's width: a wide table scrolls inside its own
    box, the page never does, and the text keeps a readable size. Before: no viewport tag (a
    phone laid the page out 980 px wide, text about 5 px) and the task page scrolled sideways."""
    with Browser(width=width, height=900, mobile=width < 600) as browser:
        for page in [board_site / "index.html", *task_pages(board_site)]:
            browser.open(page)
            inner = browser.evaluate("window.innerWidth")
            assert inner == width, (page.name, inner)
            scroll = browser.evaluate("document.documentElement.scrollWidth")
            assert scroll <= inner, (page.name, scroll, inner)
            size = browser.evaluate(
                "parseFloat(getComputedStyle(document.querySelector('p')).fontSize)"
            )
            assert size >= 12, (page.name, size)


def test_a_screenshot_of_each_page(board_site):
    pages = {p.stem for p in board_site.glob("*.html")}
    shots = {p.stem for p in (board_site / "screenshots").glob("*.png")}
    assert pages == shots
    for png in (board_site / "screenshots").glob("*.png"):
        data = png.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000, png.name


def test_a_browser_that_does_not_start_is_a_clear_error(tmp_path):
    """A Chromium that exits at once (a broken install) is named with what it said, within
    the timeout, and leaves no profile folder behind."""
    import tempfile

    fake = tmp_path / "chromium"
    fake.write_text("#!/bin/sh\necho 'cannot open display: broken install' >&2\nexit 3\n")
    fake.chmod(0o755)
    before = set(Path(tempfile.gettempdir()).glob("argbench-chromium-*"))
    with pytest.raises(RuntimeError, match=r"did not start .*exit 3.*broken install"):
        with Browser(str(fake), timeout=10):
            pass
    assert set(Path(tempfile.gettempdir()).glob("argbench-chromium-*")) == before
