"""What the site's hook (scripts/mkdocs_hooks.py) does to text rather than to files: the
executed quick-tour notebook as a markdown page, and the fixes applied to every page's HTML.

Kept apart from the hook so that each piece is tested on its own (tests/test_site_html.py):
- ``notebook_page``: a notebook's cells and the outputs it was executed with (committed,
  and checked equal to a fresh run by tests/test_quick_tour_notebook.py) as markdown; a cell
  that failed stops the build, so the site never shows a traceback as a result;
- ``fix_html``: Sphinx roles that docstrings use (``:func:`x```) become links to the API page
  that documents ``x`` (or plain code when argbench documents no such object), ``\\|`` that
  GitHub-flavoured tables need inside code spans becomes ``|`` (Python-Markdown keeps the
  backslash), and the words people type in search (``kappa``) are added, visibly, where the
  page only has the symbol (``κ``).
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

# symbol -> the ASCII word a reader types into search; added next to a page's first symbol
# when the page does not have the word already (search finds what the page shows)
SEARCH_WORDS = {"κ": "kappa", "α": "alpha"}

ROLE = re.compile(
    r":(?:py:)?(?:func|class|meth|mod|attr|data|exc|obj|const):<code>~?([\w.]+)(?:\(\))?</code>"
)


class NotebookError(RuntimeError):
    """The committed notebook holds a failed cell: it must be fixed, not published."""


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def notebook_page(path: Path, stem: str) -> dict[str, str | bytes]:
    """``{stem}.md`` (and one PNG per figure output) from the executed notebook ``path``."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    pages: dict[str, str | bytes] = {}
    parts: list[str] = []
    for number, cell in enumerate(notebook["cells"], 1):
        source = _text(cell.get("source", "")).rstrip()
        if cell["cell_type"] == "markdown":
            parts.append(source)
            continue
        if cell["cell_type"] != "code":
            continue
        if cell.get("execution_count") is None:
            raise NotebookError(f"{path.name}: cell {number} was never executed")
        parts.append(f"```python\n{source}\n```")
        for output in cell.get("outputs", []):
            kind = output["output_type"]
            if kind == "error":
                raise NotebookError(
                    f"{path.name}: cell {number} failed ({output.get('ename')}: "
                    f"{output.get('evalue')}); fix it and execute the notebook again"
                )
            if kind == "stream":
                text = _text(output["text"]).rstrip()
            else:
                data = output.get("data", {})
                if "image/png" in data:
                    name = f"{stem}-{number}.png"
                    pages[name] = base64.b64decode(_text(data["image/png"]))
                    parts.append(f"![Output of cell {number}]({name})")
                    continue
                text = _text(data.get("text/plain", "")).rstrip()
            if text:
                parts.append(f'```text title="Output"\n{text}\n```')
    pages[f"{stem}.md"] = "\n\n".join(parts) + "\n"
    return pages


def _role_link(name: str, anchors: dict[str, str], page_module: str | None) -> str:
    """The URL of the API page section that documents ``name``, or '' when none does."""
    candidates = [name]
    if page_module and not name.startswith("argbench"):
        candidates.insert(0, f"{page_module}.{name}")
    for candidate in candidates:
        if candidate in anchors:
            return anchors[candidate]
    matches = [full for full in anchors if full.endswith("." + name)]
    return anchors[matches[0]] if len(matches) == 1 else ""


def _add_search_words(html: str) -> str:
    for symbol, word in SEARCH_WORDS.items():
        if symbol in html and not re.search(rf"\b{word}\b", html, flags=re.I):
            # after the first symbol that is in running text (not inside a tag or code)
            html = re.sub(
                rf"(>[^<]*?{symbol})(?![^<]*</code>)",
                rf"\1 ({word})",
                html,
                count=1,
            )
    return html


def fix_html(html: str, anchors: dict[str, str], page_module: str | None = None) -> str:
    """``html`` of one page with the fixes above; ``anchors`` maps a documented object's full
    name (``argbench.io.atomic_write``) to its URL from the site root."""

    def role(match: re.Match) -> str:
        name = match.group(1)
        url = _role_link(name, anchors, page_module)
        code = f"<code>{name}</code>"
        return f'<a href="{url}">{code}</a>' if url else code

    html = ROLE.sub(role, html)
    html = re.sub(
        r"<td>.*?</td>",
        lambda cell: re.sub(
            r"<code>.*?</code>", lambda c: c.group(0).replace("\\|", "|"), cell.group(0)
        ),
        html,
        flags=re.S,
    )
    return _add_search_words(html)
