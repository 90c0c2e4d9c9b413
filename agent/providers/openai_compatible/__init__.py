"""OpenAI-compatible servers (OpenRouter, llama.cpp, vLLM, Ollama, ...).

They speak Chat Completions, so they share OpenAI's adapter and profile; what differs is
declared here: the names settings accept, a base URL is required (there is no default
endpoint), they publish no retention facts and offer no model catalogue of ours.
"""

from __future__ import annotations

from dataclasses import replace

from agent.providers.cache_model import CacheModel
from agent.providers.openai import SPEC as OPENAI
from agent.providers.openai import cache_controls
from agent.providers.openai.cache import openai_cache
from agent.providers.spec import ProviderSpec


def cache_model(model: str, wire: str) -> CacheModel:
    """OpenAI's cache models without OpenAI's cache controls or retention facts; their
    usage reports writes where they cache them."""
    return openai_cache(model, wire, controls=False, retention=lambda model: None,
                        described=lambda model: "automatic", marks=cache_controls,
                        reports_writes=True)


SPEC: ProviderSpec = replace(
    OPENAI,
    name="openai-compatible",
    names=("openai-compatible", "openrouter", "llamacpp", "vllm", "ollama"),
    label="OpenAI-compatible server",
    cache_model=cache_model,  # unknown retention: these servers publish no retention facts
    needs_url=True,
    setup_hint="",
    price_ids=(),
    cache_prices=None,
    price_note="",
    models=(),
    default_model=None,
)
