"""The built documentation site, for the tests that read it (tests/test_site_html.py) and
open it in a browser (tests/test_site_browser.py).

``ARGBENCH_SITE_DIR`` names a site ``make docs`` built (CI sets it after ``make docs``, on
that run's reproduction report and bench output); without it the site is built here, once
per test run (the ``site`` fixture of conftest.py; xdist workers share it), with
``mkdocs build --strict`` into a temporary folder (the report page is then the placeholder
the hook writes when no reproduction is given).
"""

from __future__ import annotations

import functools
import http.server
import os
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@functools.cache
def built_site(into: Path | None = None) -> Path:
    """The site: ``$ARGBENCH_SITE_DIR``, else built into ``into`` (default: a new temporary
    folder), or read from there when a build already completed in it."""
    given = os.environ.get("ARGBENCH_SITE_DIR")
    if given:
        site = Path(given).resolve()
        if not (site / "index.html").is_file():
            raise FileNotFoundError(f"ARGBENCH_SITE_DIR={given} has no index.html: run make docs")
        return site
    site = Path(into or tempfile.mkdtemp(prefix="argbench-site-")) / "site"
    if (site.parent / ".complete").is_file():
        return site
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode:
        raise RuntimeError(f"mkdocs build failed:\n{done.stdout}\n{done.stderr[-5000:]}")
    (site.parent / ".complete").write_text("built\n")
    return site


def pages(site: Path) -> list[Path]:
    """Every HTML page of the site (not the 404 page, not mkdocstrings' fragments). The
    leaderboard under ``board/`` is not a page of this theme: it is ``argbench leaderboard``'s
    own self-contained site, copied as it is, and tests/test_leaderboard_browser.py opens it
    in Chromium (rows, intervals, sorting, no network, escaping)."""
    skipped = ("assets", "board")
    return sorted(p for p in site.rglob("index.html") if not set(skipped) & set(p.parts))


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # the test reports what failed; no access log
        pass


class SiteServer:
    """The site served on 127.0.0.1 (a free port) from a thread, as ``python -m http.server``."""

    def __init__(self, site: Path):
        handler = functools.partial(_Quiet, directory=str(site))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}/"

    def __enter__(self):
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
