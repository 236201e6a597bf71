"""An OpenAI-compatible chat endpoint for argbench's LLM judges (openai is imported only here).

Configuration comes from the arguments, else the environment: ``ARGBENCH_LLM_MODEL``,
``ARGBENCH_LLM_BASE_URL`` (else ``OPENAI_BASE_URL``, else OpenAI), ``ARGBENCH_LLM_API_KEY``
(else ``OPENAI_API_KEY``), ``ARGBENCH_LLM_MODEL_ID`` (names the model when the server cannot).
An endpoint that stays down or refuses the key raises :class:`LLMError` saying which setting to
change; a reply that cannot be used is a failed judgment: the judges raise
:class:`JudgmentError` for any, or mark the result incomplete.

One concern per module:

* :mod:`~argbench.llm.client` -- :class:`ChatEndpoint`: requests, retries, the run loop;
* :mod:`~argbench.llm.dispatch` -- how many requests are in flight (measured, not assumed);
* :mod:`~argbench.llm.identity` -- which model is behind the endpoint;
* :mod:`~argbench.llm.reply_cache` -- replies stored under that identity (:func:`reply_key`);
* :mod:`~argbench.llm.structured` -- structured output (labels held by the server);
* :mod:`~argbench.llm.judgments` -- prompt templates and the judges' failure policy;
* :mod:`~argbench.llm.serve` -- argbench starts llama.cpp's server on a GGUF file;
* :mod:`~argbench.llm.errors` -- what a run reports when something goes wrong.
"""

from argbench.llm.client import (
    BASE_URL_ENV,
    CONNECTION_OPTIONS,
    DEAD_STREAK,
    KEY_ENV,
    MODEL_ENV,
    SECRET_OPTIONS,
    ChatEndpoint,
)
from argbench.llm.errors import Failed, JudgmentError, LLMError
from argbench.llm.identity import MODEL_ID_ENV, Identity, resolve_identity
from argbench.llm.judgments import (
    ON_FAILURE,
    SMALL_TEST_JUDGE_NOTE,
    PromptTemplate,
    check_on_failure,
    endpoint_from,
    settle_judgments,
)
from argbench.llm.reply_cache import CACHE_ENV, ReplyCache, default_cache_dir, reply_key
from argbench.llm.serve import free_port, llama_server, packaged_gguf, serve_gguf
from argbench.llm.structured import (
    STRUCTURED,
    _structured_label,
    _structured_options,
    structured_label,
    structured_options,
)

__all__ = [
    "CONNECTION_OPTIONS",
    "SECRET_OPTIONS",
    "BASE_URL_ENV",
    "CACHE_ENV",
    "DEAD_STREAK",
    "KEY_ENV",
    "MODEL_ENV",
    "MODEL_ID_ENV",
    "ON_FAILURE",
    "SMALL_TEST_JUDGE_NOTE",
    "STRUCTURED",
    "ChatEndpoint",
    "Failed",
    "Identity",
    "JudgmentError",
    "LLMError",
    "PromptTemplate",
    "ReplyCache",
    "_structured_label",
    "_structured_options",
    "check_on_failure",
    "default_cache_dir",
    "endpoint_from",
    "free_port",
    "llama_server",
    "packaged_gguf",
    "reply_key",
    "resolve_identity",
    "serve_gguf",
    "settle_judgments",
    "structured_label",
    "structured_options",
]
