"""The judge client against servers that change under it or misbehave (issue 27).

Real parts first: llama-cpp-python's server (``python -m llama_cpp.server``) started on one
127.0.0.1 port the way a user would, with the packaged SmolLM2 GGUF, a byte copy of it under
another path, and a *different model* (the same file with its output norm scaled, so another
GGUF with other log-probabilities), restarted on the same port under the same model name.
Then a strict misbehaving server written here (unknown calls fail with 404) for the faults the
real server cannot produce: a serialising queue with delays, HTTP 500 validation errors,
garbage bodies, a server that says nothing about itself.
"""

from __future__ import annotations

import json
import shutil
import struct
import threading
import time
import warnings
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from argbench.llm import ChatEndpoint, JudgmentError, free_port, llama_server
from argbench.llm.identity import PROBE_PROMPT
from argbench.scoring.argument_answer_coherence import argument_answer_coherence
from argbench.signature import Signature
from tests.openai_stub import probe_completion

PROMPTS = ["Is 2 bigger than 1? Answer 0 or 1.", "Is the sky green? Answer 0 or 1."]


# ---- a different GGUF: the packaged one with its output norm scaled ----

_SCALARS = {
    0: "B",
    1: "b",
    2: "H",
    3: "h",
    4: "I",
    5: "i",
    6: "f",
    7: "?",
    10: "Q",
    11: "q",
    12: "d",
}


def _tensor_offsets(data: bytes) -> dict[str, tuple[int, int, int]]:
    """GGUF tensor name -> (absolute data offset, ggml type, element count)."""
    pos = 0

    def take(fmt):
        nonlocal pos
        value = struct.unpack_from("<" + fmt, data, pos)
        pos += struct.calcsize("<" + fmt)
        return value[0]

    def string():
        nonlocal pos
        size = take("Q")
        pos += size
        return data[pos - size : pos].decode("utf-8", "replace")

    def value(kind):
        if kind == 8:
            return string()
        if kind == 9:
            inner, count = take("I"), take("Q")
            return [value(inner) for _ in range(count)]
        return take(_SCALARS[kind])

    assert data[:4] == b"GGUF", "not a GGUF file"
    pos = 4
    take("I")  # version
    n_tensors, n_kv = take("Q"), take("Q")
    alignment = 32
    for _ in range(n_kv):
        key = string()
        got = value(take("I"))
        if key == "general.alignment":
            alignment = got
    infos = []
    for _ in range(n_tensors):
        name = string()
        dims = [take("Q") for _ in range(take("I"))]
        infos.append((name, take("I"), take("Q"), int(np.prod(dims))))
    start = (pos + alignment - 1) // alignment * alignment
    return {name: (start + offset, kind, count) for name, kind, offset, count in infos}


@pytest.fixture(scope="module")
def gguf_models(weights, tmp_path_factory):
    """(original path, a byte copy elsewhere, a different model) as GGUF files."""
    folder = tmp_path_factory.mktemp("gguf")
    copy = folder / "renamed-judge.gguf"
    shutil.copyfile(weights, copy)
    data = bytearray(copy.read_bytes())
    offset, kind, count = _tensor_offsets(bytes(data))["output_norm.weight"]
    assert kind == 0, "output_norm.weight is float32 in the packaged GGUF"
    norm = np.frombuffer(bytes(data[offset : offset + 4 * count]), dtype="<f4") * 1.6
    data[offset : offset + 4 * count] = norm.astype("<f4").tobytes()
    other = folder / "other-judge.gguf"
    other.write_bytes(bytes(data))
    return weights, copy, other


def _judge(base_url, cache, **options):
    endpoint = ChatEndpoint(
        "judge",
        base_url=base_url,
        api_key="local",
        cache_dir=cache,
        structured="grammar",
        max_tokens=4,
        timeout=120,
        progress=False,
        **options,
    )
    asked = []
    ask = endpoint._ask
    endpoint._ask = lambda prompt, *a, **k: asked.append(prompt) or ask(prompt, *a, **k)
    replies = endpoint.complete(PROMPTS, choices=["0", "1"])
    assert all(r in ("0", "1") for r in replies), replies
    return len(asked), dict(endpoint.signature_fields("p"))["llm"], endpoint.identity


def test_real_server_restarted_with_another_model_behind_the_same_port_and_name(
    gguf_models, tmp_path
):
    original, copy, other = gguf_models
    port, cache = free_port(), tmp_path / "cache"
    with llama_server(original, port=port, n_ctx=512) as url:  # reports the weights' path
        asked, first, identity = _judge(url, cache)
    assert (asked, identity.kind) == (2, "weights")
    assert first.startswith("judge@sha256:")
    # control: the same bytes under another file name are the same judge: nothing is asked
    with llama_server(copy, port=port, n_ctx=512) as url:
        asked, again, _ = _judge(url, cache)
    assert (asked, again) == (0, first)
    # old: the same URL and model name gave the old replies (0 requests, same signature)
    with llama_server(other, port=port, n_ctx=512) as url:
        asked, changed, identity = _judge(url, cache)
    assert (asked, identity.kind) == (2, "weights") and changed != first
    assert Signature("m", [("llm", first)]).differences(Signature("m", [("llm", changed)]))


def test_real_server_that_names_only_an_alias_is_identified_by_the_probe(gguf_models, tmp_path):
    original, _, other = gguf_models
    port, cache = free_port(), tmp_path / "cache"
    with llama_server(original, port=port, alias="judge", n_ctx=512) as url:
        asked, first, identity = _judge(url, cache)
    assert (asked, identity.kind) == (2, "fingerprint") and first.startswith("judge@fp:")
    with llama_server(other, port=port, alias="judge", n_ctx=512) as url:
        asked, changed, _ = _judge(url, cache)
    assert asked == 2 and changed != first  # another model under the same alias: asked again
    with llama_server(original, port=port, alias="judge", n_ctx=512) as url:
        asked, again, _ = _judge(url, cache)
    assert (asked, again) == (0, first)  # control: the same model back: the replies are reused


# ---- a strict misbehaving server ----


class Hostile:
    """OpenAI-style chat server on 127.0.0.1: ``POST /v1/chat/completions`` and ``GET
    /v1/models`` only (anything else 404). ``reply(request) -> (status, body)``; ``serialise``
    runs one request at a time (the others wait in its queue) taking ``work`` seconds each."""

    def __init__(
        self, reply, *, work=0.0, serialise=False, models=None, fingerprint=None, logprobs=True
    ):
        self.reply, self.work, self.serialise = reply, work, serialise
        self.models, self.fingerprint, self.logprobs = models, fingerprint, logprobs
        self.requests: list[dict] = []
        self.probes = 0
        self.lock = threading.Lock()
        self.queue = threading.Lock()
        hostile = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, status, body):
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def do_GET(self):
                if self.path == "/v1/models" and hostile.models is not None:
                    return self._send(200, {"object": "list", "data": hostile.models})
                self._send(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self):
                if self.path != "/v1/chat/completions":
                    return self._send(404, {"error": {"message": f"no route {self.path}"}})
                request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                probe = request["messages"][-1]["content"] == PROBE_PROMPT
                with hostile.lock:
                    if probe:
                        hostile.probes += 1
                    else:
                        hostile.requests.append(request)
                gate = hostile.queue if hostile.serialise else threading.Lock()
                with gate:
                    time.sleep(hostile.work)
                    status, body = hostile.reply(request, probe)
                if isinstance(body, str) and probe and body and hostile.logprobs:
                    body = {**probe_completion(body), **(
                        {"system_fingerprint": hostile.fingerprint} if hostile.fingerprint else {}
                    )}  # fmt: skip
                elif isinstance(body, str):
                    body = {
                        "choices": [{"message": {"role": "assistant", "content": body}}],
                        **(
                            {"system_fingerprint": hostile.fingerprint}
                            if hostile.fingerprint
                            else {}
                        ),
                    }
                self._send(status, body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def _answers(text="1", probe="apple pear plum"):
    return lambda request, is_probe: (200, probe if is_probe else text)


def _endpoint(server, **options):
    settings = {"api_key": "k", "progress": False, "max_retries": 2, **options}
    return ChatEndpoint("judge", base_url=server.url, **settings)


def test_serialising_server_is_found_by_measuring_and_queue_time_is_not_a_timeout(tmp_path):
    # old: 4 workers, timeout 1 s, 0.4 s of work each behind one queue: queued requests timed
    # out (1.6 s) and their retries joined the queue
    with Hostile(_answers(), work=0.4, serialise=True) as server:
        endpoint = _endpoint(server, max_workers=4, timeout=1.0, cache_dir=False)
        lines = []
        endpoint.progress = lines.append
        replies = endpoint.complete([f"q{i}" for i in range(8)])
    assert replies == ["1"] * 8
    assert len(server.requests) == 8  # nothing retried
    assert endpoint.concurrency == 1
    assert any("one request at a time" in line for line in lines)


def test_parallel_server_keeps_its_workers(tmp_path):  # the control
    with Hostile(_answers(), work=0.4) as server:
        endpoint = _endpoint(server, max_workers=4, timeout=1.0, cache_dir=False)
        assert endpoint.complete([f"q{i}" for i in range(8)]) == ["1"] * 8
    assert endpoint.concurrency == 4 and len(server.requests) == 8


VALIDATION = (
    "1 validation error for CreateChatCompletionRequest\nresponse_format.json_schema.schema: "
    "Value error, the schema's 'additionalProperties': false is not supported by this server's "
    "grammar converter; use a schema without it or response_format json_object [type=value_error]"
)


def test_rejected_request_is_not_retried_and_its_cause_is_shown_whole(tmp_path):
    def reply(request, probe):
        if request.get("response_format", {}).get("type") == "json_schema":
            return 500, {"error": {"message": VALIDATION, "type": "internal_server_error"}}
        return 200, "x" if probe else "1"

    with Hostile(reply) as server:
        llm = {"base_url": server.url, "api_key": "k", "model": "judge", "progress": False}
        with pytest.raises(JudgmentError) as caught:
            argument_answer_coherence(
                ["A is fast [1]."], [["A is faster."]], llm={**llm, "structured": "json_schema"}
            )
        assert len(server.requests) == 1  # old: 3 (two blind retries)
        assert VALIDATION in str(caught.value)  # old: cut to 120 characters
        control = argument_answer_coherence(["A is fast [1]."], [["A is faster."]], llm=llm)
    assert control["aac"] == 1.0


def test_garbage_body_is_a_failed_judgment_and_is_not_cached(tmp_path):
    answers = {"text": b"\x00\xff not json"}

    def reply(request, probe):
        return 200, "apple" if probe else answers["text"]

    with Hostile(reply) as server:
        llm = {"base_url": server.url, "api_key": "k", "model": "judge", "cache_dir": tmp_path}
        with pytest.raises(JudgmentError, match="not JSON"):
            argument_answer_coherence(["A [1]."], [["B."]], llm={**llm, "progress": False})
        answers["text"] = "1"  # the endpoint is fixed: the re-run asks again and scores
        assert argument_answer_coherence(["A [1]."], [["B."]], llm=llm)["aac"] == 1.0
        assert len(server.requests) == 2


def test_unparseable_free_text_is_asked_again_after_the_endpoint_is_fixed(tmp_path):
    answers = {"text": "Sure! I think so."}
    with Hostile(lambda request, probe: (200, "apple" if probe else answers["text"])) as server:
        llm = {"base_url": server.url, "api_key": "k", "model": "judge", "cache_dir": tmp_path}
        with pytest.raises(JudgmentError, match="unparseable"):
            argument_answer_coherence(["A [1]."], [["B."]], llm=llm)
        answers["text"] = "1"  # old: the unparseable reply was cached; 0 requests, same failure
        assert argument_answer_coherence(["A [1]."], [["B."]], llm=llm)["aac"] == 1.0
        assert len(server.requests) == 2
        # control: a parsed reply is cached: a third run asks nothing
        assert argument_answer_coherence(["A [1]."], [["B."]], llm=llm)["aac"] == 1.0
        assert len(server.requests) == 2


def test_a_server_nothing_identifies_gets_no_cache_and_is_told_once(tmp_path):
    # the probe is answered with an empty text and /v1/models is not served: nothing to go by
    with Hostile(lambda request, probe: (200, "" if probe else "1")) as server:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(2):
                assert _endpoint(server, cache_dir=tmp_path).complete(PROMPTS) == ["1", "1"]
        told = [w for w in caught if "nothing identifies" in str(w.message)]
        assert len(told) == 1 and "model_id" in str(told[0].message)
        assert len(server.requests) == 4  # not reused across runs
        signatures = {
            dict(_endpoint(server).signature_fields("p"))["llm"] for _ in range(2)
        }  # an unidentified model shares its signature with no other run
        assert len(signatures) == 2 and all("@unidentified:" in s for s in signatures)
        # naming the model lets a run resume against such a server
        for _ in range(2):
            _endpoint(server, cache_dir=tmp_path, model_id="judge-v7").complete(PROMPTS)
        assert len(server.requests) == 6


def test_the_same_name_and_url_with_another_model_is_asked_again(tmp_path):
    # old: keyed by URL + name, the second model got the first one's replies
    state = {"probe": "apple pear plum", "text": "1"}
    with Hostile(lambda request, probe: (200, state["probe"] if probe else state["text"])) as s:
        first = _endpoint(s, cache_dir=tmp_path)
        assert first.complete(PROMPTS) == ["1", "1"]
        again = _endpoint(s, cache_dir=tmp_path)  # control: same model, nothing asked
        assert again.complete(PROMPTS) == ["1", "1"] and len(s.requests) == 2
        state.update(probe="banana kiwi fig", text="0")  # another model behind the same name
        other = _endpoint(s, cache_dir=tmp_path)
        assert other.complete(PROMPTS) == ["0", "0"] and len(s.requests) == 4
    sig = [dict(e.signature_fields("p"))["llm"] for e in (first, again, other)]
    assert sig[0] == sig[1] != sig[2]


def test_a_changed_system_fingerprint_is_another_model(tmp_path):
    with Hostile(_answers(), models=[{"id": "judge", "owned_by": "x"}], fingerprint="fp_1") as s:
        assert _endpoint(s, cache_dir=tmp_path).complete(PROMPTS) == ["1", "1"]
        s.fingerprint = "fp_2"  # the provider changed the model behind the name
        assert _endpoint(s, cache_dir=tmp_path).complete(PROMPTS) == ["1", "1"]
        assert len(s.requests) == 4
        s.fingerprint = "fp_2"  # control: unchanged, reused
        assert _endpoint(s, cache_dir=tmp_path).complete(PROMPTS) == ["1", "1"]
        assert len(s.requests) == 4


def test_reported_model_entry_changes_the_identity(tmp_path):
    entry = {"id": "judge", "owned_by": "llamacpp", "meta": {"n_params": 134515008}}
    with Hostile(_answers(), models=[entry]) as s:
        first = _endpoint(s, cache_dir=tmp_path)
        first.complete(PROMPTS)
        entry["meta"] = {"n_params": 361821120}  # a bigger model, same name, same probe reply
        second = _endpoint(s, cache_dir=tmp_path)
        second.complete(PROMPTS)
        assert len(s.requests) == 4
    assert first.identity.key != second.identity.key


def test_a_judge_known_only_by_what_its_server_says_gets_no_cache_across_runs(tmp_path):
    """Old: a server that returns no log-probabilities was identified by its /models entry
    and its probe reply alone; another judge behind the same URL, name, entry and probe reply
    got the first judge's cached replies (0 requests, AAC 1.0 where its answer gives 0.0).
    New: such a judge gets no cache across runs (told once, naming model_id): the second
    judge is asked and scores 0.0. Control: named by the user (model_id), a rerun is served
    from the cache; and a server with log-probabilities keeps its cache (the tests above)."""
    models = [{"id": "judge", "object": "model", "owned_by": "me", "meta": {"n_params": 135}}]

    def judge(answer):
        return Hostile(
            lambda request, probe: (200, "apple pear plum" if probe else answer),
            models=models,
            logprobs=False,
        )

    llm = {"api_key": "k", "model": "judge", "cache_dir": tmp_path, "progress": False}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with judge("1") as first:
            aac = argument_answer_coherence(
                ["A [1]."], [["B."]], llm={**llm, "base_url": first.url}
            )
            assert aac["aac"] == 1.0
        with judge("0") as second:
            aac = argument_answer_coherence(
                ["A [1]."], [["B."]], llm={**llm, "base_url": second.url}
            )
        assert aac["aac"] == 0.0 and len(second.requests) == 1  # asked, not borrowed
    assert any("only what the server says" in str(w.message) for w in caught)
    named = {**llm, "model_id": "judge-v1"}  # control: the user vouches for the model
    with judge("1") as server:
        for _ in range(2):
            aac = argument_answer_coherence(
                ["A [1]."], [["B."]], llm={**named, "base_url": server.url}
            )
            assert aac["aac"] == 1.0
        assert len(server.requests) == 1  # the second run from the cache
