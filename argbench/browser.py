"""Headless Chromium, driven over the DevTools protocol: the leaderboard's screenshots, and
every test that opens a page (the docs site, the leaderboard, the Gradio Space).

One driver for all of them. One browser per :class:`Browser` (one launch for every page),
started on 127.0.0.1 with a fresh profile and stopped with its process group; the protocol
runs over a websocket through aiohttp (which ``datasets`` already installs). Every event the
page sends (requests, console messages, exceptions, failed loads) is kept in
:attr:`Browser.events` since the last :meth:`Browser.open`, so a test can fail on a request to
another host or on a console error.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

from argbench.io import atomic_write

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--remote-debugging-address=127.0.0.1",
    "--remote-debugging-port=0",
]


MAX_HEIGHT = 6000  # pixels of a long page kept in its screenshot


def find_chromium() -> str | None:
    """The Chromium executable: ``$ARGBENCH_CHROMIUM``, else ``chromium`` on the PATH."""
    chosen = os.environ.get("ARGBENCH_CHROMIUM")
    if chosen:
        return chosen
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


class Browser:
    """``with Browser() as b: b.open(path); b.evaluate("js"); b.screenshot(png)``."""

    def __init__(
        self, executable: str | None = None, *, width=1400, height=1000, timeout=60.0, mobile=False
    ):
        self.executable = executable or find_chromium()
        if self.executable is None:
            raise FileNotFoundError(
                "no Chromium found (apt-get install chromium, or set ARGBENCH_CHROMIUM)"
            )
        self.size, self.timeout = (width, height), timeout
        self.mobile = mobile  # a phone: the page's viewport tag decides its layout width
        self.requests: list[str] = []  # every URL the pages asked for, since the start
        self.events: list[dict] = []  # every event since the last open()
        self._next = 0

    def __enter__(self) -> Browser:
        self._profile = tempfile.mkdtemp(prefix="argbench-chromium-")
        # Chromium's own log goes to a file: a pipe nobody drains would stall it after 64 KB
        self._log = open(Path(self._profile) / "chromium.log", "w+b")  # noqa: SIM115 - closed in __exit__
        self._process = subprocess.Popen(
            [self.executable, *FLAGS, f"--user-data-dir={self._profile}", "about:blank"],
            stdout=subprocess.DEVNULL,
            stderr=self._log,
            start_new_session=True,  # its helpers in a group of its own, stopped with it
        )
        try:
            port = self._port()
            self._loop = asyncio.new_event_loop()
            self._run(self._connect(port))
            for domain in ("Page", "Network", "Runtime", "Log"):
                self.call(f"{domain}.enable")
            width, height = self.size
            self.call(
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": self.mobile},
            )
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _port(self) -> int:
        """The DevTools port Chromium chose (``--remote-debugging-port=0``), from the file it
        writes into its profile."""
        port_file = Path(self._profile) / "DevToolsActivePort"
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline and self._process.poll() is None:
            text = port_file.read_text() if port_file.is_file() else ""
            if text.strip():
                return int(text.split()[0])
            time.sleep(0.05)
        self._log.seek(0)
        said = self._log.read().decode("utf-8", "replace").strip().splitlines()[-3:]
        raise RuntimeError(
            f"Chromium ({self.executable}) did not start its DevTools endpoint "
            f"(exit {self._process.poll()}): {' | '.join(said) or 'no output'}"
        )

    def _run(self, coroutine):
        return self._loop.run_until_complete(asyncio.wait_for(coroutine, self.timeout))

    async def _connect(self, port: int) -> None:
        import aiohttp

        self._session = aiohttp.ClientSession()
        async with self._session.get(f"http://127.0.0.1:{port}/json/list") as reply:
            targets = await reply.json()
        page = next(t for t in targets if t["type"] == "page")
        self._ws = await self._session.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=0)

    def _keep(self, message: dict) -> None:
        self.events.append(message)
        if message.get("method") == "Network.requestWillBeSent":
            self.requests.append(message["params"]["request"]["url"])

    async def _call(self, method: str, params: dict | None) -> dict:
        self._next += 1
        ident = self._next
        await self._ws.send_str(json.dumps({"id": ident, "method": method, "params": params or {}}))
        while True:
            message = json.loads((await self._ws.receive()).data)
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self._keep(message)

    async def _listen(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                message = await asyncio.wait_for(self._ws.receive(), left)
            except asyncio.TimeoutError:
                return
            self._keep(json.loads(message.data))

    def settle(self, seconds: float = 0.6) -> None:
        """Keep the events of the next ``seconds`` (requests a page makes after it loaded,
        such as the search index a worker fetches)."""
        self._run(self._listen(seconds))

    def call(self, method: str, params: dict | None = None) -> dict:
        return self._run(self._call(method, params))

    def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page (JSON-serialisable)."""
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"JavaScript error: {result['exceptionDetails']}")
        return result["result"].get("value")

    def open(self, path, *, settle: float = 0.0) -> list[dict]:
        """Load a page (a file on disk, or an ``http://`` URL: a local server, the running
        Space), wait until it is complete (and ``settle`` seconds more); the page's events."""
        url = str(path) if str(path).startswith("http") else Path(path).resolve().as_uri()
        self.events = []
        self.call("Page.navigate", {"url": url})
        deadline = time.monotonic() + self.timeout
        while self.evaluate("document.readyState") != "complete":
            if time.monotonic() > deadline:
                raise RuntimeError(f"{path}: the page did not finish loading")
            time.sleep(0.05)
        if settle:
            self.settle(settle)
        return self.events

    def set_files(self, selector: str, paths) -> None:
        """Choose ``paths`` in the file input ``selector`` as a user's file dialog does (the
        page sees its ``change`` event)."""
        root = self.call("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        node = self.call("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        if not node:
            raise RuntimeError(f"no element {selector!r} in the page")
        files = [str(Path(p).resolve()) for p in paths]
        self.call("DOM.setFileInputFiles", {"nodeId": node, "files": files})

    def click(self, selector: str) -> None:
        """A real mouse click at the middle of ``selector`` (pages that ignore a scripted
        ``element.click()``, such as Gradio's buttons, see this one)."""
        found = json.dumps(selector)
        x, y = self.evaluate(
            f"(() => {{ const e = document.querySelector({found}); e.scrollIntoView();"
            " const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        for kind in ("mousePressed", "mouseReleased"):
            self.call(
                "Input.dispatchMouseEvent",
                {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1},
            )

    def wait_for(self, expression: str, timeout: float | None = None):
        """Poll a JavaScript expression until it is truthy; its value."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"still false after {timeout or self.timeout:g}s: {expression}")
            time.sleep(0.2)

    def screenshot(self, png) -> Path:
        """The whole page as a PNG, written through argbench.io."""
        size = self.call("Page.getLayoutMetrics")["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], MAX_HEIGHT)}
        shot = self.call(
            "Page.captureScreenshot",
            {"format": "png", "captureBeyondViewport": True, "clip": {**clip, "scale": 1}},
        )
        return atomic_write(png, base64.b64decode(shot["data"]))

    def __exit__(self, *exc) -> None:
        loop = getattr(self, "_loop", None)
        if loop is not None:
            for name in ("_ws", "_session"):
                if getattr(self, name, None) is not None:
                    loop.run_until_complete(getattr(self, name).close())
            loop.close()
        if self._process.poll() is None:
            os.killpg(self._process.pid, signal.SIGTERM)  # the group of the browser we started
            try:
                self._process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self._process.pid, signal.SIGKILL)
                self._process.wait()
        self._log.close()
        shutil.rmtree(self._profile, ignore_errors=True)


def problems(events: list[dict], local=("127.0.0.1", "localhost")) -> list[str]:
    """What a page did wrong, from its events: a request to a host not in ``local`` (a font
    or script CDN), a console error, an uncaught exception, a load that failed."""
    from urllib.parse import urlsplit

    found = []
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Network.requestWillBeSent":
            url = urlsplit(params["request"]["url"])
            if url.scheme in ("http", "https", "ws", "wss") and url.hostname not in local:
                found.append(f"request to a non-local host: {params['request']['url']}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
            found.append("console error: " + " ".join(str(a.get("value")) for a in params["args"]))
        elif method == "Runtime.exceptionThrown":
            found.append(f"exception: {params['exceptionDetails'].get('text')}")
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            found.append(f"console error: {params['entry']['text']} ({params['entry'].get('url')})")
        elif method == "Network.loadingFailed" and not params.get("canceled"):
            found.append(f"failed to load: {params.get('errorText')}")
    return found


def screenshots(pages, out_dir, executable: str | None = None) -> list[Path]:
    """A PNG of each page into ``out_dir`` (``<page name>.png``), one browser for all."""
    out = []
    with Browser(executable) as browser:
        for page in pages:
            browser.open(page)
            out.append(browser.screenshot(Path(out_dir) / f"{Path(page).stem}.png"))
    return out
