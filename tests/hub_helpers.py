"""Start tests/hub_server.py on 127.0.0.1 and run the real Hub clients against it.

``huggingface_hub``, ``datasets`` and ``evaluate`` read ``HF_ENDPOINT`` when imported, so code
that loads from the test Hub runs in a subprocess with the endpoint set (:meth:`Hub.run`).
Publishing can run in-process through ``HfApi(endpoint=...)`` (:meth:`Hub.api`), which lets
the fixture mirrors (monkeypatched checksums) be used.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import urllib.request
from pathlib import Path

HERE = Path(__file__).parent
TOKEN = "hf_test_token"
CLI = "import sys; from argbench.cli import main; sys.exit(main(sys.argv[1:]))"


class Hub:
    def __init__(self, state: Path, home: Path):
        self.state, self.home = state, home
        self.process = None
        self.start()

    def start(self):
        """Start the server on a free port the system picks. A restarted server (same state
        folder) gets a new port too: the port it had was free for any other process while it
        was down, and on a shared machine one took it (``address already in use``). Clients
        follow :attr:`url`: :meth:`api`, :meth:`env`, :meth:`run` and :meth:`cli` read it."""
        self.process = subprocess.Popen(
            [sys.executable, str(HERE / "hub_server.py"), "--state", str(self.state)]
            + ["--token", TOKEN, "--port", "0"],
            stdout=subprocess.PIPE,
            text=True,
        )
        line = self.process.stdout.readline()
        if not line.startswith("listening on "):
            raise RuntimeError(f"hub_server did not start: {line!r}")
        self.port = int(line.split()[-1])
        self.url = f"http://127.0.0.1:{self.port}"

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)

    def dead(self, within: float = 10.0) -> bool:
        """Whether the server process has exited, waiting up to ``within`` seconds: a client
        sees its connection closed while the exiting process is not reaped yet, and on a
        busy machine that moment is long enough for ``poll()`` to say it still runs."""
        try:
            self.process.wait(within)
        except subprocess.TimeoutExpired:
            return False
        return True

    def control(self, path: str, payload=None) -> dict:
        data = None if payload is None else json.dumps(payload).encode()
        with urllib.request.urlopen(f"{self.url}/_test/{path}", data=data, timeout=10) as reply:
            return json.loads(reply.read())

    def calls(self) -> dict:
        return self.control("calls")

    def fault(self, match: str, action: str, **options):
        self.control("fault", {"match": match, "action": action, **options})

    def outage(self, match: str, status: int):
        """``status`` to every request matching ``match`` until :meth:`clear`: more times
        than any client retries (huggingface_hub 2.x retries a 5xx five times)."""
        self.fault(match, "status", status=status, times=OUTAGE)

    def clear(self):
        self.control("clear", {})

    def api(self, token: str = TOKEN):
        import huggingface_hub
        from huggingface_hub import HfApi

        # conftest sets offline mode for the rest; CommitInfo parses its URL against ENDPOINT
        huggingface_hub.constants.HF_HUB_OFFLINE = False
        huggingface_hub.constants.ENDPOINT = self.url
        reset_hub_sessions()
        return HfApi(endpoint=self.url, token=token)

    def env(self, **extra) -> dict:
        env = {k: v for k, v in os.environ.items() if not k.endswith("_OFFLINE")}
        env.update(HF_ENDPOINT=self.url, HF_TOKEN=TOKEN, HF_HOME=str(self.home))
        env.update({k: str(v) for k, v in extra.items()})
        return env

    def run(self, code: str, *, python=sys.executable, timeout=300, check=True, **env):
        """Run ``code`` in a fresh interpreter pointed at this Hub; its last stdout line is JSON."""
        done = subprocess.run(
            [python, "-c", textwrap.dedent(code)],
            env=self.env(**env),
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=str(self.home),
        )
        if check and done.returncode != 0:
            raise AssertionError(f"client failed ({done.returncode}):\n{done.stderr[-4000:]}")
        return done

    def cli(self, *args, timeout=600, **env):
        return subprocess.run(
            [sys.executable, "-c", CLI, *map(str, args)],
            env=self.env(**env),
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=str(self.home),
        )


OUTAGE = 20  # requests an outage answers with its error before it is cleared


def reset_hub_sessions() -> None:
    """Drop huggingface_hub's shared HTTP session, so the next request opens one to the
    endpoint now set: ``reset_sessions`` (requests, before 1.0) or ``close_session`` (httpx,
    1.0 and later; 2.x has no ``reset_sessions``)."""
    import huggingface_hub.utils

    reset = getattr(huggingface_hub.utils, "reset_sessions", None)
    (reset or huggingface_hub.utils.close_session)()


def snapshot_code(repo_id: str, configs: list[str], revision: str | None) -> str:
    """Client code: load each config from the Hub and print rows, features, version, citation."""
    return f"""
        import json, datasets
        out = {{}}
        for config in {configs!r}:
            splits = datasets.load_dataset({repo_id!r}, config, revision={revision!r})
            out[config] = {{s: snapshot(d) for s, d in splits.items()}}
        print(json.dumps(out, default=str))
    """


SNAPSHOT_DEF = """
def snapshot(d):
    return {
        "features": d.features.to_dict(),
        "rows": d.to_list(),
        "version": str(d.info.version),
        "citation": d.info.citation,
    }
"""


def snapshot(d) -> dict:
    """The same snapshot of a local split, through JSON as the client's is."""
    namespace: dict = {}
    exec(SNAPSHOT_DEF, namespace)
    return json.loads(json.dumps(namespace["snapshot"](d), default=str))


def load_from_hub(hub: Hub, repo_id: str, configs: list[str], revision: str | None) -> dict:
    code = SNAPSHOT_DEF + textwrap.dedent(snapshot_code(repo_id, configs, revision))
    done = hub.run(code)
    return json.loads(done.stdout.strip().splitlines()[-1])


def evaluate_only_venv() -> Path:
    """A venv with ``evaluate`` (this environment's version) and its dependencies, not argbench:
    where a Space's user is. Made once (pip's cache makes it ~35 s) under
    ``$ARGBENCH_TEST_VENVS`` (default ``~/.cache/argbench-test-venvs``), then reused."""
    from importlib.metadata import version

    from filelock import FileLock

    root = Path(os.environ.get("ARGBENCH_TEST_VENVS", Path.home() / ".cache/argbench-test-venvs"))
    wanted = f"evaluate=={version('evaluate')}"
    target = root / f"{wanted.replace('==', '-')}-py{sys.version_info[0]}.{sys.version_info[1]}"
    python, complete = target / "bin" / "python", target / ".complete"
    root.mkdir(parents=True, exist_ok=True)
    # one maker at a time (xdist workers, other checkouts' runs): another's half-made venv is
    # not removed under it
    with FileLock(str(target) + ".lock"):
        return _make_evaluate_venv(target, python, complete, wanted)


def _make_evaluate_venv(target: Path, python: Path, complete: Path, wanted: str) -> Path:
    import shutil

    if complete.is_file():
        return python
    shutil.rmtree(target, ignore_errors=True)  # a half-made one
    subprocess.run([sys.executable, "-m", "venv", str(target)], check=True)
    subprocess.run(  # a new venv's bundled pip first: old pips backtrack for minutes
        [str(python), "-m", "pip", "install", "-q", "--upgrade", "pip"], capture_output=True
    )
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", wanted], capture_output=True, text=True
    )
    if done.returncode != 0:
        raise RuntimeError(f"cannot make a venv with {wanted}: {done.stderr[-2000:]}")
    complete.write_text(wanted)
    return python
