"""OpenAI-compatible servers (OpenRouter, DeepSeek, llama.cpp, vLLM, Ollama, ...).

They speak Chat Completions, so they share OpenAI's adapter and profile; what differs is
declared here: the names settings accept, a base URL is required (there is no default
endpoint), they publish no retention facts and offer no model catalogue of ours.
"""

from __future__ import annotations

from dataclasses import replace

from agent.providers.openai import SPEC as OPENAI

SPEC = replace(
    OPENAI,
    name="openai-compatible",
    names=("openai-compatible", "openrouter", "deepseek", "llamacpp", "vllm", "ollama"),
    label="OpenAI-compatible server",
    retention=lambda model: None,  # unknown: these servers publish no retention facts
    needs_url=True,
    setup_hint="",
    price_ids=(),
    cache_prices=None,
    price_note="",
    reports_cache_writes=True,
    models=(),
    default_model=None,
)
