"""An OpenAI-compatible chat endpoint for argbench's LLM judges (openai is imported only here).

Configuration comes from the arguments, else the environment: ``ARGBENCH_LLM_MODEL``,
``ARGBENCH_LLM_BASE_URL`` (else ``OPENAI_BASE_URL``, else OpenAI), ``ARGBENCH_LLM_API_KEY``
(else ``OPENAI_API_KEY``). Timeouts, rate limits (429) and server errors are retried a few times
with backoff (honouring ``Retry-After``); an endpoint that stays down or refuses the key raises
:class:`LLMError` saying which setting to change. A reply that cannot be used is a failed
judgment: the judges raise :class:`JudgmentError` for any, or mark the result incomplete.
"""

from __future__ import annotations

import copy
import os
import queue
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from argbench.constants import LLM_CONNECTION_OPTIONS as CONNECTION_OPTIONS
from argbench.constants import LLM_SECRET_OPTIONS as SECRET_OPTIONS
from argbench.llm.dispatch import Gate, Run
from argbench.llm.errors import (
    SHOWN,
    Failed,
    LLMError,
    is_rejection,
    rejection_cause,
    reply_text,
    retry_after,
)
from argbench.llm.identity import Identity, named_from_env, resolve_identity
from argbench.llm.reply_cache import ReplyCache, default_cache_dir, reply_key
from argbench.llm.structured import STRUCTURED, structured_label, structured_options
from argbench.signature import short_hash

__all__ = [
    "BASE_URL_ENV",
    "CONNECTION_OPTIONS",
    "DEAD_STREAK",
    "KEY_ENV",
    "MODEL_ENV",
    "SECRET_OPTIONS",
    "ChatEndpoint",
]

MODEL_ENV = "ARGBENCH_LLM_MODEL"
BASE_URL_ENV = "ARGBENCH_LLM_BASE_URL"
KEY_ENV = "ARGBENCH_LLM_API_KEY"
# prompts in a row that failed every retry after which a keep-going run stops: the endpoint is
# down, not one prompt slow (at least this many, or twice the workers)
DEAD_STREAK = 5

# Statuses worth another attempt; 401/403/404 would fail the same way for every prompt.
_RETRY_STATUS = {408, 409, 429}
_STOP_STATUS = {
    401: "the endpoint refused the API key: check ${key} or llm={{'api_key': ...}}",
    403: "the endpoint refused the API key: check ${key} or llm={{'api_key': ...}}",
    404: "no such model or path: check the model name and base_url (${url})",
}


class EndpointDown(LLMError):
    """One of several base URLs stopped answering (connections refused after every retry):
    its requests go to the others."""


# (base_url, model) pairs already told that their replies are not cached: said once
_TOLD_UNIDENTIFIED: set[tuple] = set()


class ChatEndpoint:
    """Sends one user prompt per request (plus an optional system message), in parallel threads.

    Failing fast is the default: each attempt waits at most ``timeout`` seconds of the
    server's work (:mod:`argbench.llm.dispatch`: how many requests are in flight is measured,
    and a queued request's clock covers those ahead of it), a timeout, connection error, 429
    or 5xx is retried at most ``max_retries`` times (backoff 0.5 s, 1 s, ... or the server's
    Retry-After), and the run stops when no request has finished for ``stall_timeout``
    seconds. 401/403/404 stop the run at once; a request the server rejects (a 4xx, or a 5xx
    whose message says the request is invalid) fails that one request, not retried, with the
    server's message whole. ``progress`` (a callable, False, or None for stderr) hears the
    counts every ``progress_every`` seconds of a longer run.

    ``model_id`` (else ``$ARGBENCH_LLM_MODEL_ID``) names the model behind the endpoint when
    the server cannot identify it (:mod:`argbench.llm.identity`); replies are cached under
    the model's identity only.

    Several servers of one judge: ``base_url`` a list (or ``$ARGBENCH_LLM_BASE_URL`` with
    commas). Each server's identity is found from the server itself (its weights, what it
    reports, a probe reply) and must be the same, else :class:`ValueError` names them. Each
    gets its own workers and its own measured concurrency (:mod:`argbench.llm.dispatch`) and
    takes the next prompt when it is free, so a faster server judges more; a server whose
    connections fail every retry is left, and its prompts go to the others (the run stops
    only when none answers). Every prompt's reply reaches the cache once, from the one
    server that answered it; ``served`` counts the replies each base URL gave in the last run.
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
        model_id: str | None = None,
    ):
        self.model = model or os.environ.get(MODEL_ENV)
        if not self.model:
            raise ValueError(f"no LLM model given: pass llm={{'model': ...}} or set ${MODEL_ENV}")
        self.base_urls = _base_urls(
            base_url or os.environ.get(BASE_URL_ENV) or os.environ.get("OPENAI_BASE_URL")
        )
        self.base_url = self.base_urls[0] if self.base_urls else None
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
        if isinstance(max_workers, bool) or not isinstance(max_workers, int) or max_workers < 1:
            raise ValueError(f"llm max_workers must be an int >= 1, got {max_workers!r}")
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
        self.model_id = named_from_env(model_id)
        self.identity: Identity | None = None  # found by the first complete() (or signature)
        self.concurrency: int | None = None  # requests in flight the server runs (measured)
        self.served: dict[str, int] = {}  # base URL -> replies it gave in the last complete()
        self._client = None
        self._replicas: list[ChatEndpoint] | None = None

    def signature_fields(self, prompt_template: str, system: str | None = None) -> list[tuple]:
        """What of this judge can change a metric's number, for the metric's signature: the
        model, named with its identity (``name@sha256:<12>`` of the weights, ``name@id:<name>``
        as the user named it, ``name@fp:<12>`` of what the server reports and a probe reply,
        or ``name@unidentified:<random>``, which no other run shares), ``prompt``
        (:func:`argbench.signature.short_hash` of the template text, preceded by the system
        message actually sent and a NUL byte when there is one), the temperature (``default``:
        the server's), ``max_tokens`` when set, and ``structured`` (the structured-output mode
        used; absent: free text and the parser)."""
        system = self.system if self.system is not None else system
        text = f"{system}\0{prompt_template}" if system else prompt_template
        temperature = "default" if self.temperature is None else float(self.temperature)
        if self.identity is None:
            self.identity = resolve_identity(self)
        model = f"{self.model}{self.identity.suffix}"
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
        self,
        prompt: str,
        system: str | None,
        choices=None,
        mode: str | None = None,
        timeout: float | None = None,
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
            options.update(structured_options(mode, choices))
        client = self.client if timeout is None else self.client.with_options(timeout=timeout)
        raw = client.chat.completions.with_raw_response.create(
            model=self.model, messages=messages, **options
        )
        reply = reply_text(raw.http_response.text)
        if choices and mode != "off" and isinstance(reply, str):
            return structured_label(mode, reply, choices)
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
        self,
        index: int,
        prompt: str,
        system: str | None,
        run: Run,
        gate: Gate,
        choices=None,
        failover: bool = False,
    ) -> str | Failed:
        """One prompt with retries; raises LLMError when the whole run must stop, and
        (``failover``: other servers can take it) :class:`EndpointDown` when this server's
        connections fail every retry."""
        import openai

        attempt, requeued = 0, False
        while True:
            attempt += 1
            in_flight, shared, started = gate.enter()
            if run.stop.is_set():  # the run ended while this request waited for a slot
                gate.leave(started, False, shared)
                raise LLMError("stopped")
            answered = False
            try:
                reply = self._ask(
                    prompt, system, choices, timeout=gate.timeout(self.timeout, in_flight)
                )
                answered = True
                return reply
            except openai.APIStatusError as error:
                answered = True
                status, body = error.status_code, error.response.text
                cause = rejection_cause(body)
                if status in _STOP_STATUS:
                    hint = _STOP_STATUS[status].format(key=KEY_ENV, url=BASE_URL_ENV)
                    raise LLMError(
                        f"{self.where}: HTTP {status} for prompt #{index} (not retried): "
                        f"{hint}. Reply: {cause}"
                    ) from None
                if (status not in _RETRY_STATUS and status < 500) or is_rejection(status, body):
                    return Failed(
                        f"HTTP {status}: the server rejected the request (not retried): {cause}",
                        body[:SHOWN],
                    )
                why, wait = f"HTTP {status}: {cause}", retry_after(error.response)
                hint = (
                    "Raise llm max_retries= or lower max_workers= (the server asks to slow down)."
                    if status == 429
                    else "The server keeps failing; check its logs."
                )
            except openai.APITimeoutError:
                limit = gate.timeout(self.timeout, in_flight)
                if in_flight > 1 and not requeued and gate.concurrency != 1:
                    gate.queued_timeout()  # queue time, not work: one at a time from now on
                    attempt, requeued = attempt - 1, True
                    continue
                why, wait = f"no reply within timeout={limit:g}s", None
                hint = (
                    "If the server is only slow, raise the per-request timeout: "
                    "llm={'timeout': 120}"
                )
            except openai.APIConnectionError as error:
                why, wait = f"cannot connect ({error.__cause__ or error})", None
                hint = f"Is the server running? Check base_url / ${BASE_URL_ENV}."
                if failover and attempt > self.max_retries:
                    raise EndpointDown(f"{self.where}: {why}, after {attempt} attempts") from None
            finally:
                gate.leave(started, answered, shared)
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
        return reply_key(
            self.identity.key,
            self.model,
            system,
            prompt,
            self.temperature,
            self.max_tokens,
            self.structured_used,
        )

    def _cache(self) -> ReplyCache | None:
        """The reply cache, when it is on and the model is identified (else said once)."""
        if self.cache_dir is False:
            return None
        if self.identity.key is None:
            told = (self.base_url, self.model)
            if told not in _TOLD_UNIDENTIFIED:
                _TOLD_UNIDENTIFIED.add(told)
                import warnings

                why = (
                    "only what the server says about itself identifies the model behind this "
                    "endpoint (no log-probabilities: another model behind the same URL and "
                    "name would answer the same)"
                    if self.identity.kind == "reported"
                    else "nothing identifies the model behind this endpoint (the server "
                    "reports nothing about it and answers no probe)"
                )
                warnings.warn(
                    f"{self.where}: {why}, so its replies are not cached and a stopped run "
                    "starts over. Name the model to cache them: "
                    "llm={'model_id': '<name and version>'} or $ARGBENCH_LLM_MODEL_ID",
                    stacklevel=4,
                )
            return None
        folder = default_cache_dir() if self.cache_dir in (None, True) else Path(self.cache_dir)
        return ReplyCache(folder)

    def complete(
        self,
        prompts: list[str],
        system: str | None = None,
        choices=None,
        *,
        keep_going: bool = False,
        accept: Callable[[int, str], bool] | None = None,
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
        ``accept(i, reply)``: whether the judge can use the reply to prompt ``i``; only such
        replies are cached (a refused one is asked again next run, and a stored one the judge
        now refuses is asked again).
        """
        system = self.system if self.system is not None else system
        if choices is not None and choices and isinstance(choices[0], str):
            choices = [choices] * len(prompts)
        options = {} if choices is None else dict(zip(prompts, choices, strict=True))
        first = {p: i for i, p in reversed(list(enumerate(prompts)))}

        def usable(prompt: str, reply) -> bool:
            return isinstance(reply, str) and (accept is None or accept(first[prompt], reply))

        self.identity = resolve_identity(self)  # the server may have been restarted
        self._check_replicas()
        cache = self._cache()
        try:
            unique = list(dict.fromkeys(prompts))
            if options and unique and self.structured_used is None:
                self.client  # noqa: B018
                self._settle_mode(unique[0], system, options.get(unique[0]))
            keys = {p: self._key(p, system) for p in unique} if cache else {}
            stored = cache.get(list(keys.values())) if cache else {}
            answered = {p: stored[keys[p]] for p in unique if keys.get(p) in stored}
            for prompt in [p for p, reply in answered.items() if not usable(p, reply)]:
                del answered[prompt]  # cached before replies were checked: ask again
                cache.forget(keys[prompt])
            asked = [p for p in unique if p not in answered]
            try:
                replies = self._complete(
                    asked, first, system, keep_going, cache, keys, options, usable
                )
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

    def replicas(self) -> list[ChatEndpoint]:
        """One endpoint per base URL (this one when there is one): same settings, own client."""
        if len(self.base_urls) <= 1:
            return [self]
        if self._replicas is None:
            self._replicas = []
            for url in self.base_urls:
                replica = copy.copy(self)
                replica.base_urls, replica.base_url = [url], url
                replica._client, replica._replicas, replica.concurrency = None, None, None
                replica.identity = None  # until _check_replicas finds it
                self._replicas.append(replica)
        return self._replicas

    def _check_replicas(self) -> None:
        """Several base URLs: each server's model, as the server shows it (weights it reports,
        /models, a probe reply; not a name the user vouches for), must be one model."""
        replicas = self.replicas()
        if len(replicas) == 1 or all(r.identity is not None for r in replicas[1:]):
            return  # checked by an earlier complete() of this endpoint (a probe per server)
        found = {}
        for replica in replicas:
            shown = copy.copy(replica)
            shown.weights_sha256 = shown.model_id = None
            found[replica.base_url] = resolve_identity(shown).key
        if None in found.values() or len(set(found.values())) > 1:
            listed = "; ".join(
                f"{url}: {key or 'nothing identifies it'}" for url, key in found.items()
            )
            raise ValueError(
                f"llm base_url: the {len(found)} servers must serve one model, checked from what "
                f"each reports and a probe reply, and they do not ({listed})"
            )
        for replica in replicas:
            replica.identity, replica.structured_used = self.identity, self.structured_used

    def _complete(self, unique, first, system, keep_going, cache, keys, options, usable) -> dict:
        run = Run(len(unique), keep_going)
        say = self._reporter()
        replicas = self.replicas()
        failover = len(replicas) > 1
        for replica in replicas:
            replica.structured_used = self.structured_used
        gates = {
            id(r): Gate(r.max_workers, len(unique), run.stop, say, known=r.concurrency)
            for r in replicas
        }
        alive = set(gates)
        served = self.served = {r.base_url: 0 for r in replicas}  # counted as replies come
        todo: queue.SimpleQueue = queue.SimpleQueue()
        results: queue.SimpleQueue = queue.SimpleQueue()
        for position in range(len(unique)):
            todo.put(position)

        def work(replica):
            gate = gates[id(replica)]
            while not run.stop.is_set() and id(replica) in alive:
                try:  # wait, not return: a server that dies hands its prompts back later
                    position = todo.get(timeout=0.05) if failover else todo.get_nowait()
                except queue.Empty:
                    if failover:
                        continue
                    return
                prompt = unique[position]
                try:
                    reply = replica._request(
                        first[prompt], prompt, system, run, gate, options.get(prompt), failover
                    )
                    with run.lock:
                        served[replica.base_url] += 1
                    results.put((position, reply))
                except EndpointDown as error:
                    with run.lock:
                        alive.discard(id(replica))
                        others = len(alive)
                    if not others:
                        results.put((position, LLMError(f"{error}; no other server answers")))
                        return
                    todo.put(position)  # another server judges it
                    if say:
                        say(f"llm: {error}; its prompts go to the {others} other server(s)")
                    return
                except BaseException as error:  # noqa: BLE001 - handed to the caller's thread
                    results.put((position, error))

        # clients made once here, not by racing worker threads; daemon threads: a request
        # hanging in the socket cannot keep a stopped run alive
        for replica in replicas if unique else ():
            replica.client  # noqa: B018
            for _ in range(min(replica.max_workers, len(unique))):
                threading.Thread(target=work, args=(replica,), daemon=True).start()
        replies: dict[int, str | Failed] = {}
        last = start = reported = time.monotonic()
        streak, dead = 0, max(DEAD_STREAK, 2 * self.max_workers * len(replicas))
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
                    if cache is not None and usable(unique[position], reply):
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
            for replica in replicas:
                gate = gates[id(replica)]
                if gate.concurrency is not None:
                    replica.concurrency = gate.concurrency
        if say and (self.progress_every == 0 or time.monotonic() - start >= self.progress_every):
            say(f"{run.line()} ({time.monotonic() - start:.0f}s)")
        return {unique[i]: reply for i, reply in replies.items()}

    def _reporter(self) -> Callable[[str], None] | None:
        if self.progress is False:
            return None
        if callable(self.progress):
            return self.progress
        return lambda line: print(line, file=sys.stderr, flush=True)


def _base_urls(value) -> list[str]:
    """``base_url`` as a list: one URL, a list of them, or several in one string with commas."""
    if value is None or value == "":
        return []
    if isinstance(value, (list, tuple)):
        urls = [str(u).strip() for u in value]
    elif isinstance(value, str):
        urls = [u.strip() for u in value.split(",")]
    else:
        raise ValueError(f"llm base_url must be a URL or a list of URLs, got {value!r}")
    if not all(urls) or len(set(urls)) != len(urls):
        raise ValueError(f"llm base_url: empty or repeated URLs in {value!r}")
    return urls
