"""A tiny OpenAI-compatible chat server on 127.0.0.1 for the LLM-judge tests (no network).

``responder(request_json, call_number)`` returns ``(status, body, delay_seconds, headers)``;
``body`` is a reply string (wrapped as a chat completion), a dict (sent as JSON) or bytes;
``headers`` may replace the Content-Type. The identity probe argbench sends before a run
(:data:`argbench.llm.identity.PROBE_PROMPT`) is answered with a fixed reply and kept apart in
``probes``, so ``requests`` holds the judgments alone; it comes with log-probabilities, as
from llama.cpp's server. ``MODES`` holds the hostile endpoints the tests and
a manual run use: ``python tests/openai_stub.py MODE [PORT]`` serves one until Ctrl-C.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def completion(content) -> dict:
    return {
        "id": "stub",
        "object": "chat.completion",
        "created": 0,
        "model": "stub-model",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
    }


def probe_completion(content: str) -> dict:
    """The probe's reply with its log-probabilities, as llama.cpp's server gives them: what
    lets argbench tell one model from another behind the same URL and name (without them a
    judge's replies are not cached across runs, argbench.llm.identity)."""
    body = completion(content)
    top = [{"token": content[:4], "logprob": -0.25}, {"token": "x", "logprob": -3.5}]
    body["choices"][0]["logprobs"] = {
        "content": [{"token": content[:4], "logprob": -0.25, "top_logprobs": top}]
    }
    return body


class StubServer:
    def __init__(self, responder, port: int = 0):
        self.responder = responder
        self.requests: list[dict] = []
        self.probes: list[dict] = []
        self.probe_reply = "stub probe reply"  # what the model answers the identity probe
        self.request_lines: list[str] = []  # every request, GET /models and probes included
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def parse_request(self):
                parsed = super().parse_request()
                stub.request_lines.append(self.requestline)
                return parsed

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                payload = json.loads(self.rfile.read(length) or b"{}")
                if _is_probe(payload):
                    stub.probes.append(payload)
                    self._send(200, probe_completion(stub.probe_reply), None)
                    return
                with stub._lock:
                    stub.requests.append(payload)
                    number = len(stub.requests)
                status, body, delay, headers = stub.responder(payload, number)
                if delay:
                    time.sleep(delay)
                if isinstance(body, str) or body is None:
                    body = completion(body)
                self._send(status, body, headers)

            def _send(self, status, body, headers):
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                try:
                    headers = {"Content-Type": "application/json", **(headers or {})}
                    self.send_response(status)
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def _is_probe(request: dict) -> bool:
    from argbench.llm.identity import PROBE_PROMPT

    return any(m.get("content") == PROBE_PROMPT for m in request.get("messages") or [])


def user_prompt(request: dict) -> str:
    return next(m["content"] for m in request["messages"] if m["role"] == "user")


def _error(status: int, message: str, headers=None):
    return lambda request, number: (status, {"error": {"message": message}}, 0, headers)


# Endpoints that misbehave the way real ones do; each ``(request, call_number) -> reply``.
MODES = {
    "ok": lambda request, number: (200, "0", 0, None),
    "html": lambda request, number: (
        200,
        b"<html><body><h1>Welcome to nginx!</h1></body></html>",
        0,
        {"Content-Type": "text/html"},
    ),
    "html_as_json": lambda request, number: (200, b"<html>gateway</html>", 0, None),
    "no_choices": lambda request, number: (200, {"id": "x", "object": "chat.completion"}, 0, None),
    "empty_choices": lambda request, number: (200, {"id": "x", "choices": []}, 0, None),
    "null_content": lambda request, number: (200, None, 0, None),
    "chatty": lambda request, number: (200, "Sure! The answer is 1.", 0, None),
    "slow": lambda request, number: (200, "0", 3600, None),
    "401": _error(401, "invalid api key"),
    "403": _error(403, "forbidden"),
    "404": _error(404, "model not found"),
    "400": _error(400, "bad request: unsupported parameter"),
    "429": _error(429, "rate limited", {"retry-after-ms": "10"}),
    "500": _error(500, "internal error"),
}


if __name__ == "__main__":  # a hostile endpoint for trying the CLI by hand
    mode = sys.argv[1] if len(sys.argv) > 1 else "ok"
    with StubServer(MODES[mode], int(sys.argv[2]) if len(sys.argv) > 2 else 0) as stub:
        print(f"{mode}: {stub.base_url}", flush=True)
        stub.thread.join()
