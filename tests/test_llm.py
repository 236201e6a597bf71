"""The OpenAI-compatible chat endpoint: configuration from arguments and environment."""

from __future__ import annotations

import pytest

from argbench.llm import ChatEndpoint


def test_llm_endpoint_configuration_from_env(monkeypatch):
    monkeypatch.delenv("ARGBENCH_LLM_MODEL", raising=False)
    with pytest.raises(ValueError, match="ARGBENCH_LLM_MODEL"):
        ChatEndpoint()
    monkeypatch.setenv("ARGBENCH_LLM_MODEL", "m")
    monkeypatch.delenv("ARGBENCH_LLM_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ValueError, match="ARGBENCH_LLM_API_KEY"):
        ChatEndpoint()
    monkeypatch.setenv("ARGBENCH_LLM_API_KEY", "k")
    monkeypatch.setenv("ARGBENCH_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    endpoint = ChatEndpoint()
    assert (endpoint.model, endpoint.api_key, endpoint.base_url) == (
        "m",
        "k",
        "http://127.0.0.1:9/v1",
    )


# ---- the real files ----
