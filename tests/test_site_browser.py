"""Every page of the built site, opened in a real headless Chromium at 1280 px.

The browser is Debian's ``chromium`` (``.ci/run`` installs it), driven through the DevTools
protocol over a websocket (``websocket-client``). Each page must:
- fit: no code block, table or table cell reaches past the content column (or, for the
  reproduction report's tables, past the window) unless a scrollable box holds it, no code
  line is wider than its block (code wraps), and the page itself never scrolls sideways;
- stay offline: no request to any host but the local server (no font or script CDN);
- log no console error and throw no exception (a missing asset is a console error too).
Screenshots of the home page, the quick tour and the report go to ``<site>/screenshots/``.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import websocket  # websocket-client, in the test extra: a missing one fails, never skips

from .site_helpers import SiteServer, built_site, pages

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
WIDTH, HEIGHT = 1280, 900
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


class Browser:
    """Headless Chromium and one DevTools session on its first tab."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.process = subprocess.Popen(
            [
                CHROMIUM,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--remote-debugging-port=0",
                "--remote-allow-origins=*",
                f"--user-data-dir={folder}",
                f"--window-size={WIDTH},{HEIGHT}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        port_file = folder / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not port_file.is_file() or not port_file.read_text().strip():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise RuntimeError(f"{CHROMIUM} did not start (exit {self.process.returncode})")
            time.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list"))
        tab = next(t for t in targets if t["type"] == "page")
        self.ws = websocket.create_connection(tab["webSocketDebuggerUrl"], timeout=60)
        self.next_id = 0
        self.events: list[dict] = []
        for domain in ("Page", "Network", "Runtime", "Log"):
            self.call(f"{domain}.enable")
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=WIDTH,
            height=HEIGHT,
            deviceScaleFactor=1,
            mobile=False,
        )

    def call(self, method: str, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        self.ws.settimeout(120)  # settle() leaves a short timeout behind
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def wait_for(self, method: str, seconds: float = 30) -> None:
        deadline = time.monotonic() + seconds
        self.ws.settimeout(seconds)
        while time.monotonic() < deadline:
            if any(e.get("method") == method for e in self.events):
                return
            self.events.append(json.loads(self.ws.recv()))
        raise TimeoutError(method)

    def settle(self, seconds: float = 0.6) -> None:
        """Collect the events of the next ``seconds`` (the search worker's late requests)."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            self.ws.settimeout(left)
            try:
                self.events.append(json.loads(self.ws.recv()))
            except websocket.WebSocketTimeoutException:
                break

    def open(self, url: str) -> list[dict]:
        self.events = []
        self.call("Page.navigate", url=url)
        self.wait_for("Page.loadEventFired")
        self.settle()
        return self.events

    def evaluate(self, expression: str):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(result["exceptionDetails"])
        return result["result"].get("value")

    def screenshot(self, path: Path) -> None:
        height = self.evaluate("document.documentElement.scrollHeight")
        shot = self.call(
            "Page.captureScreenshot",
            format="png",
            captureBeyondViewport=True,
            clip={"x": 0, "y": 0, "width": WIDTH, "height": min(height, 6000), "scale": 1},
        )
        path.write_bytes(base64.b64decode(shot["data"]))

    def close(self) -> None:
        if getattr(self, "ws", None):
            self.ws.close()
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def problems_in(events: list[dict]) -> list[str]:
    """Requests to another host, console errors, exceptions, failed loads."""
    found = []
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Network.requestWillBeSent":
            url = params["request"]["url"]
            if urlsplit(url).scheme in ("http", "https", "ws", "wss") and urlsplit(
                url
            ).hostname not in ("127.0.0.1", "localhost"):
                found.append(f"request to a non-local host: {url}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
            found.append("console error: " + " ".join(str(a.get("value")) for a in params["args"]))
        elif method == "Runtime.exceptionThrown":
            found.append(f"exception: {params['exceptionDetails'].get('text')}")
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            found.append(f"console error: {params['entry']['text']} ({params['entry'].get('url')})")
        elif method == "Network.loadingFailed" and not params.get("canceled"):
            found.append(f"failed to load: {params.get('errorText')}")
    return found


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"no Chromium at {CHROMIUM}: apt-get install -y chromium (.ci/run does)")
    folder = Path(tempfile.mkdtemp(prefix="argbench-chromium-"))
    opened = Browser(folder)
    yield opened
    opened.close()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def site():
    return built_site()


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
        events = browser.open(server.base)
        layout = browser.evaluate(LAYOUT_JS)
    found = problems_in(events)
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
            found = problems_in(browser.open(server.base + path))
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
