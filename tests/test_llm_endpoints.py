"""One judge on several servers (``ChatEndpoint(base_url=[...])``): the servers must serve one
model (checked from what each shows), prompts are spread by who is free, a server that dies
hands its prompts to the others, and every prompt is judged once into the reply cache.
First on the test stubs, then on two real llama.cpp servers, one killed midway."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import time
import urllib.request

import pytest

from argbench.llm import ChatEndpoint, LLMError
from argbench.llm.serve import free_port
from argbench.models import file_sha256

from .openai_stub import StubServer

PROMPTS = [f"Is claim {i} supported? Answer 0 or 1." for i in range(40)]


def cached_rows(folder) -> int:
    with sqlite3.connect(folder / "replies.sqlite") as con:
        return con.execute("select count(*) from reply").fetchone()[0]


def answering(delay=0.02):
    return lambda request, number: (200, "1", delay, None)


def test_a_stub_that_dies_midway_hands_its_prompts_to_the_other(tmp_path):
    with StubServer(answering()) as a, StubServer(answering()) as b:
        endpoint = ChatEndpoint(
            "judge",
            base_url=[a.base_url, b.base_url],
            api_key="x",
            max_workers=2,
            max_retries=1,
            progress=False,
            cache_dir=tmp_path,
        )

        def kill_b_after_five():
            while len(b.requests) < 5:
                time.sleep(0.005)
            b.server.shutdown()
            b.server.server_close()

        killer = threading.Thread(target=kill_b_after_five)
        killer.start()
        replies = endpoint.complete(PROMPTS)
        killer.join()
    assert replies == ["1"] * len(PROMPTS)
    served = endpoint.served
    assert sum(served.values()) == len(PROMPTS)  # each prompt answered by exactly one server
    assert 5 <= served[b.base_url] < len(PROMPTS) and served[a.base_url] > 0
    assert cached_rows(tmp_path) == len(PROMPTS)
    # a second run asks nobody: every reply is in the cache once
    with StubServer(answering()) as c, StubServer(answering()) as d:
        again = ChatEndpoint(
            "judge", base_url=f"{c.base_url},{d.base_url}", api_key="x", cache_dir=tmp_path
        )
        assert again.complete(PROMPTS) == replies and not c.requests and not d.requests


def test_servers_of_different_models_are_refused(tmp_path):
    with StubServer(answering()) as a, StubServer(answering()) as b:
        b.probe_reply = "another model's greedy reply"
        endpoint = ChatEndpoint(
            "judge", base_url=[a.base_url, b.base_url], api_key="x", cache_dir=tmp_path
        )
        with pytest.raises(ValueError, match="must serve one model"):
            endpoint.complete(PROMPTS[:2])
        assert not a.requests and not b.requests  # refused before any judgment
        # control: the same model on both (and the user's name does not stand in for the check)
        b.probe_reply = a.probe_reply
        endpoint = ChatEndpoint(
            "judge", base_url=[a.base_url, b.base_url], api_key="x", model_id="my-judge"
        )
        assert endpoint.complete(PROMPTS[:4]) == ["1"] * 4


def test_every_server_dead_stops_the_run(tmp_path):
    with StubServer(answering()) as a, StubServer(answering()) as b:
        endpoint = ChatEndpoint(
            "judge", base_url=[a.base_url, b.base_url], api_key="x", max_retries=0, cache_dir=False
        )
        endpoint.complete(PROMPTS[:1])  # identities checked while both answer
        for stub in (a, b):
            stub.server.shutdown()
            stub.server.server_close()
        endpoint._check_replicas = lambda: None  # the run itself finds them dead
        with pytest.raises(LLMError, match="no other server answers"):
            endpoint.complete(PROMPTS[1:6])


def test_base_url_lists_are_checked():
    for bad in (["http://a/v1", "http://a/v1"], "http://a/v1,,http://b/v1", [""]):
        with pytest.raises(ValueError, match="empty or repeated"):
            ChatEndpoint("judge", base_url=bad, api_key="x")
    assert ChatEndpoint("j", base_url="http://a/v1, http://b/v1", api_key="x").base_urls == [
        "http://a/v1",
        "http://b/v1",
    ]


# ---- two real llama.cpp servers ----


def start_llama(weights, log) -> tuple[subprocess.Popen, str]:
    """``python -m llama_cpp.server`` on a free 127.0.0.1 port (the test owns the process, to
    kill it), its base URL once /v1/models answers."""
    port = free_port()
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(weights)]
    command += ["--host", "127.0.0.1", "--port", str(port), "--model_alias", "smollm2"]
    command += ["--n_ctx", "1024", "--n_threads", "1"]
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"llama.cpp server exited with {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/models", timeout=2):
                return process, url
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"llama.cpp server not answering on {url}")


@pytest.mark.real_server
def test_two_llama_servers_one_killed_midway_judge_every_item_once(weights, tmp_path):
    log = open(tmp_path / "servers.log", "ab")  # noqa: SIM115
    servers = [start_llama(weights, log) for _ in range(2)]
    try:
        (_, url_a), (victim, url_b) = servers
        endpoint = ChatEndpoint(
            "smollm2",
            base_url=[url_a, url_b],
            api_key="local",
            weights_sha256=file_sha256(weights),
            max_tokens=4,
            max_workers=1,
            max_retries=1,
            timeout=120,
            progress=False,
            cache_dir=tmp_path / "cache",
        )
        prompts = PROMPTS[:12]

        def kill_b_after_two():
            while endpoint.served.get(url_b, 0) < 2:
                time.sleep(0.01)
            victim.kill()

        killer = threading.Thread(target=kill_b_after_two, daemon=True)
        killer.start()
        replies = endpoint.complete(prompts)
        killer.join(timeout=5)
        assert victim.poll() is not None  # it was killed during the run
        assert all(isinstance(r, str) for r in replies)
        served = endpoint.served
        assert sum(served.values()) == len(prompts) and served[url_b] >= 2
        assert served[url_a] > len(prompts) // 2  # the survivor took the rest
        assert cached_rows(tmp_path / "cache") == len(prompts)
        # the cache serves a new run on the survivor alone: nothing asked again
        alone = ChatEndpoint(
            "smollm2",
            base_url=url_a,
            api_key="local",
            weights_sha256=file_sha256(weights),
            max_tokens=4,
            cache_dir=tmp_path / "cache",
            progress=False,
        )
        assert alone.complete(prompts) == replies and alone.served == {url_a: 0}
    finally:
        for process, _ in servers:
            if process.poll() is None:
                process.terminate()
                process.wait(10)
        log.close()
