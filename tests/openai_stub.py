"""A tiny OpenAI-compatible chat server on 127.0.0.1 for the LLM-judge tests (no network).

``responder(request_json, call_number)`` returns ``(status, body, delay_seconds, headers)``;
``body`` is a reply string (wrapped as a chat completion), a dict (sent as JSON) or bytes.
"""

from __future__ import annotations

import json
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


class StubServer:
    def __init__(self, responder):
        self.responder = responder
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                payload = json.loads(self.rfile.read(length) or b"{}")
                with stub._lock:
                    stub.requests.append(payload)
                    number = len(stub.requests)
                status, body, delay, headers = stub.responder(payload, number)
                if delay:
                    time.sleep(delay)
                if isinstance(body, str) or body is None:
                    body = completion(body)
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for key, value in (headers or {}).items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
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


def user_prompt(request: dict) -> str:
    return next(m["content"] for m in request["messages"] if m["role"] == "user")
