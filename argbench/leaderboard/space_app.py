"""The leaderboard Space's page (Gradio 6, plain components): the board and an upload form.

Run by the Space's ``app.py`` (written by :mod:`argbench.leaderboard.space`) after the bundled
argbench is importable; Gradio is imported only here, so argbench itself never needs it. The
work is :mod:`argbench.leaderboard.submit`'s: this module only wires it to the page.

The board is the static site's (:func:`argbench.leaderboard.submit.board_html`: each column
as its site page shows it, in a ``gr.HTML`` with the site's style, scoped to it by Gradio),
and the whole site (system pages, judge cards, CSV, JSON) is served beside the page under
``/board/``: one implementation of the board, not a second one in Gradio components.

The uploads live in the Hub dataset repo of :func:`argbench.leaderboard.submit.submissions_repo`
(:class:`argbench.leaderboard.submit.Submissions`): read back when the Space starts, committed
there before an upload is on the board. A refused upload shows its reason as plain text in the
status box and leaves the board and the repo as they were.
"""

from __future__ import annotations

import os
from pathlib import Path

from argbench.leaderboard import submit
from argbench.leaderboard.site import SORT_AND_FILTER, STYLE


class Board:
    """The Space's state: its ``space.json``, the board's own results (``results/``), the
    uploads' copy (``kept/results/``, a copy of the Hub repo) and the site (``site/``)."""

    def __init__(self, folder, api=None):
        self.folder = Path(folder)
        self.config = submit.load_config(self.folder)
        self.site = self.folder / "site"
        self.kept = submit.Submissions(
            submit.submissions_repo(self.config), self.folder / "kept", api=api
        )
        self.warning = ""
        self._shown: tuple | None = None  # (the copy's head, the board's HTML)
        try:
            self.kept.pull()
        except submit.Unreachable as error:  # the board's own rows still shown, and why not more
            self.warning = f"The uploads kept so far are not shown: {error}"

    def html(self) -> str:
        """The board of the board's own results and the uploads' copy, ranked again only
        when the copy changed (a ranking takes seconds: its bootstrap resamples)."""
        if self._shown is None or self._shown[0] != self.kept.head:
            html = submit.board_html(
                [self.folder / "results", self.kept.results],
                self.config,
                self.site,
                cards=submit.load_cards(self.folder),
            )
            self._shown = (self.kept.head, html)
        return self._shown[1]

    def visit(self) -> tuple[str, str]:
        """(the board, a warning) as the repo holds it now (another replica's uploads
        included); the copy as it is, and why, when the repo cannot be read."""
        try:
            self.kept.pull()
            self.warning = ""
        except submit.Unreachable as error:
            self.warning = f"The uploads kept so far may not all be shown: {error}"
        return self.html(), self.warning

    def upload(self, file, name) -> tuple[str, str]:
        """(the board, the status) after an upload: scored, committed to the repo, shown."""
        if file is None:
            return self.html(), "refused: choose a submission file (.json) first"
        path = Path(file if isinstance(file, str) else file.name)
        key = self.config["key"]
        try:
            doc = submit.score_upload(path, name, self.config, label=path.name)
            self.kept.add(doc, shipped=[self.folder / "results"])
        except (submit.UploadError, ValueError, OSError) as error:
            return self.html(), f"refused: {error}"
        interval = doc["result"]["ci"][key]
        message = (
            f"scored {doc['system']}: {key} {doc['result'][key]:.4f} "
            f"[{interval['low']:.4f}, {interval['high']:.4f}], signature {doc['signature']}; "
            f"kept in {self.kept.repo_id}"
        )
        return self.html(), message


def build(board: Board) -> object:
    """The Gradio Blocks of the Space."""
    import gradio as gr

    config = board.config
    with gr.Blocks(title=config["title"]) as page:
        gr.Markdown(f"# {config['title']}\n\n{config['description']}")
        warning = gr.Markdown(board.warning, elem_id="warning")
        with gr.Row():
            file = gr.File(label="submission (.json)", file_types=[".json"], elem_id="upload")
            name = gr.Textbox(label="system name", elem_id="system-name")
        button = gr.Button("Submit", elem_id="submit")
        status = gr.Textbox(label="status", interactive=False, elem_id="status")
        gr.Markdown(
            "Every page of the board (each system's items, the judge cards, CSV and JSON): "
            "[the board's site](board/index.html)."
        )
        table = gr.HTML(
            board.html(),
            css_template=STYLE,
            # the site's sorting and filtering, bound on the component (its tables are
            # replaced after an upload; the listeners stay)
            js_on_load=SORT_AND_FILTER
            + "element.addEventListener('click',e=>{const h=e.target.closest('th');"
            "if(h)sortBy(h)});element.addEventListener('input',e=>{"
            "if(e.target.matches('input.filter'))filterRows(e.target)});",
            elem_id="board",
        )
        button.click(board.upload, inputs=[file, name], outputs=[table, status])
        # the board as it is now on every visit (uploads since the Space started included)
        page.load(board.visit, outputs=[table, warning])
    return page


def main(folder) -> None:
    """Serve the Space: the page at ``/``, the board's site at ``/board/``
    (``GRADIO_SERVER_NAME`` / ``GRADIO_SERVER_PORT`` choose where, as for any Gradio app)."""
    import gradio as gr
    import uvicorn
    from fastapi import FastAPI
    from fastapi.staticfiles import StaticFiles

    board = Board(folder)
    board.html()  # the site written before it is served
    page = build(board).queue(default_concurrency_limit=1)
    app = FastAPI()
    app.mount("/board", StaticFiles(directory=board.site, html=True), name="board")
    app = gr.mount_gradio_app(app, page, path="/")
    uvicorn.run(
        app,
        host=os.environ.get("GRADIO_SERVER_NAME", "0.0.0.0"),
        port=int(os.environ.get("GRADIO_SERVER_PORT", "7860")),
    )
