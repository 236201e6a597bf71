"""An OpenAI-compatible chat endpoint for argbench's LLM judges (openai is imported only here).

Configuration comes from the arguments, else the environment: ``ARGBENCH_LLM_MODEL``,
``ARGBENCH_LLM_BASE_URL`` (else ``OPENAI_BASE_URL``, else OpenAI), ``ARGBENCH_LLM_API_KEY``
(else ``OPENAI_API_KEY``). Rate limits (429) and server errors are retried by the openai client
with exponential backoff (honouring ``Retry-After``); a request that still fails raises
:class:`LLMError` naming the prompt, never a silent default.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

__all__ = ["ChatEndpoint", "LLMError", "PromptTemplate", "endpoint_from"]

MODEL_ENV = "ARGBENCH_LLM_MODEL"
BASE_URL_ENV = "ARGBENCH_LLM_BASE_URL"
KEY_ENV = "ARGBENCH_LLM_API_KEY"


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
    """A request to the chat endpoint failed after the client's retries."""


class ChatEndpoint:
    """Sends one user prompt per request (plus an optional system message), in parallel threads."""

    def __init__(
        self,
        model: str | None = None,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        system: str | None = None,
        temperature: float | None = 0.0,
        max_tokens: int | None = None,
        timeout: float = 60.0,
        max_retries: int = 6,
        max_workers: int = 4,
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
        self.system = system
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_workers = max_workers
        self._client = None

    def signature_fields(self, prompt_template: str, system: str | None = None) -> list[tuple]:
        """What of this judge can change a metric's number, for the metric's signature: the
        model, ``prompt`` (:func:`argbench.signature.short_hash` of the template text, preceded
        by the system message actually sent and a NUL byte when there is one), the
        temperature (``default``: the server's) and ``max_tokens`` when set."""
        from argbench.signature import short_hash

        system = self.system if self.system is not None else system
        text = f"{system}\0{prompt_template}" if system else prompt_template
        temperature = "default" if self.temperature is None else float(self.temperature)
        fields = [("llm", self.model), ("prompt", short_hash(text)), ("temp", temperature)]
        if self.max_tokens is not None:
            fields.append(("max_tokens", int(self.max_tokens)))
        return fields

    @property
    def client(self):
        if self._client is None:
            from openai import OpenAI

            self._client = OpenAI(
                base_url=self.base_url,
                api_key=self.api_key,
                timeout=self.timeout,
                max_retries=self.max_retries,
            )
        return self._client

    def _ask(self, prompt: str, system: str | None) -> str | None:
        messages = [{"role": "user", "content": prompt}]
        if system:
            messages.insert(0, {"role": "system", "content": system})
        options = {}
        if self.temperature is not None:
            options["temperature"] = self.temperature
        if self.max_tokens is not None:
            options["max_tokens"] = self.max_tokens
        response = self.client.chat.completions.create(
            model=self.model, messages=messages, **options
        )
        try:
            content = response.choices[0].message.content
        except (AttributeError, IndexError, TypeError):
            return None  # a response without a message: the caller counts it as unparseable
        return content if isinstance(content, str) else None

    def complete(self, prompts: list[str], system: str | None = None) -> list[str | None]:
        """The reply text per prompt (None when a response carries no text); equal prompts asked once.

        ``system`` is the caller's default system message; the endpoint's own ``system`` wins.
        """
        unique = list(dict.fromkeys(prompts))
        system = self.system if self.system is not None else system

        def ask(index: int) -> str | None:
            try:
                return self._ask(unique[index], system)
            except Exception as error:
                raise LLMError(
                    f"chat request for prompt #{prompts.index(unique[index])} to model "
                    f"{self.model!r} at {self.base_url or 'the OpenAI API'} failed after "
                    f"{self.max_retries} retries (timeout {self.timeout}s): "
                    f"{type(error).__name__}: {error}"
                ) from error

        with ThreadPoolExecutor(max_workers=max(1, self.max_workers)) as pool:
            replies = list(pool.map(ask, range(len(unique))))
        by_prompt = dict(zip(unique, replies, strict=True))
        return [by_prompt[p] for p in prompts]


def endpoint_from(llm, **defaults) -> ChatEndpoint:
    """``llm`` as a ChatEndpoint: one already, a dict of its options, or None (environment)."""
    if isinstance(llm, ChatEndpoint):
        return llm
    if llm is None:
        return ChatEndpoint(**defaults)
    if isinstance(llm, dict):
        return ChatEndpoint(**{**defaults, **llm})
    raise TypeError(f"llm must be a ChatEndpoint, a dict of its options or None, got {llm!r}")
