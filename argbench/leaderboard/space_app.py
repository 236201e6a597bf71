"""The leaderboard Space's page: the board (``gradio_leaderboard``) and an upload form.

Run by the Space's ``app.py`` (written by :mod:`argbench.leaderboard.space`) after the bundled
argbench is importable; Gradio is imported only here, so argbench itself never needs it. The
work is :mod:`argbench.leaderboard.submit`'s: this module only wires it to the page. A refused
upload shows its reason as plain text in the status box and leaves the board as it was.
"""

from __future__ import annotations

from pathlib import Path

from argbench.leaderboard import submit


def _frame(folder: Path, config: dict):
    import pandas as pd

    titles = [title for _, title in submit.SHOWN]
    return pd.DataFrame(submit.rows(folder / "results", config), columns=titles)


def build(folder) -> object:
    """The Gradio Blocks of the Space in ``folder`` (its ``space.json`` and ``results/``)."""
    import gradio as gr
    from gradio_leaderboard import Leaderboard, SelectColumns

    folder = Path(folder)
    config = submit.load_config(folder)
    titles = [title for _, title in submit.SHOWN]

    def board(frame):
        return Leaderboard(
            value=frame,
            datatype=["str"] * len(titles),
            select_columns=SelectColumns(
                default_selection=titles, cant_deselect=["rank", "system", "score"]
            ),
            search_columns=["system"],
            elem_id="board",
        )

    def upload(file, name):
        # the board is always sent whole: gradio_leaderboard refuses an update without a value
        if file is None:
            return _frame(folder, config), "refused: choose a submission file (.json) first"
        path = Path(file if isinstance(file, str) else file.name)
        try:
            doc = submit.score_upload(path, name, config, label=path.name)
            submit.add(doc, folder / "results")
        except (submit.UploadError, ValueError, OSError) as error:
            return _frame(folder, config), f"refused: {error}"
        interval = doc["result"]["ci"][config["key"]]
        message = (
            f"scored {doc['system']}: {config['key']} {doc['result'][config['key']]:.4f} "
            f"[{interval['low']:.4f}, {interval['high']:.4f}], signature {doc['signature']}"
        )
        return _frame(folder, config), message

    with gr.Blocks(title=config["title"]) as page:
        gr.Markdown(f"# {config['title']}\n\n{config['description']}")
        table = board(_frame(folder, config))
        with gr.Row():
            file = gr.File(label="submission (.json)", file_types=[".json"], elem_id="upload")
            name = gr.Textbox(label="system name", elem_id="system-name")
        button = gr.Button("Submit", elem_id="submit")
        status = gr.Textbox(label="status", interactive=False, elem_id="status")
        button.click(upload, inputs=[file, name], outputs=[table, status])
        # the board as it is now on every visit (uploads since the Space started included)
        page.load(lambda: _frame(folder, config), outputs=[table])
    return page


def main(folder) -> None:
    """Serve the Space (``GRADIO_SERVER_NAME`` / ``GRADIO_SERVER_PORT`` choose where)."""
    build(folder).queue(default_concurrency_limit=1).launch()
