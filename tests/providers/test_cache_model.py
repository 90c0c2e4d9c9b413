"""The cache-model room (agent/providers/cache_model.py): what each registered provider's
cache model says, and what keeping it warm means."""

from __future__ import annotations

import pytest

from agent.cost import pricing
from agent.messages import Message, Request, SystemBlock
from agent.providers.cache_model import CacheHints, HintFacts
from agent.providers.registry import SPECS, cache_model, maker_cache
from agent.usage import Usage

FACTS = HintFacts(key="hermes-k", ttl="1h", extended=True, previous="resp_1")


def _request(**changes: object) -> Request:
    return Request(model="m", system=[SystemBlock("s")], messages=[Message("user", "hi")],
                   **changes)  # type: ignore[arg-type]


@pytest.mark.parametrize(("provider", "model", "wire", "style", "short", "long"), [
    ("anthropic", "claude-sonnet-5", None, "markers", 300, 3600),
    ("openai", "gpt-5.2", "chat-completions", "automatic", 300, 3600),
    ("openrouter", "anthropic/claude-sonnet-5", "chat-completions", "markers", 300, 3600),
    ("openai", "gpt-5.6-sol", "responses", "markers", 1800, 43200),
    ("openai", "gpt-5.5", "responses", "automatic", 1800, 43200),
    ("vllm", "gpt-5.6-sol", "responses", "automatic", 1800, 43200),
])
def test_each_wire_has_one_cache_model(provider, model, wire, style, short, long) -> None:
    cache = cache_model(provider, model, wire)
    assert (cache.style, cache.lifetime("5m"), cache.lifetime("1h")) == (style, short, long)
    assert cache.read_step == (0 if style == "markers" else 128)


def test_hints_carry_the_key_the_chain_and_only_the_lifetimes_the_wire_names() -> None:
    assert cache_model("anthropic", "claude-sonnet-5").hints(FACTS) == CacheHints(
        key="hermes-k", previous="resp_1")
    assert cache_model("openai", "gpt-5.6-sol", "responses").hints(FACTS) == CacheHints(
        key="hermes-k", lifetime="12h", previous="resp_1")
    assert cache_model("openai", "gpt-5.5", "responses").hints(FACTS).retention == "24h"


def test_a_refresh_is_a_zero_output_read_or_a_prewarm() -> None:
    anthropic = cache_model("anthropic", "claude-sonnet-5")
    read = anthropic.refresh(_request())  # max_tokens 0: the cache populated, nothing said
    assert isinstance(read, Request) and read.max_tokens == 0 and not read.cache.refresh
    assert not anthropic.refresh_generates
    warm = cache_model("openai", "gpt-5.6-sol", "responses").refresh(_request())
    assert isinstance(warm, Request) and warm.cache.refresh and warm.max_tokens == 8192
    assert not cache_model("openai", "gpt-5.6-sol", "responses").refresh_generates


def test_every_provider_declares_a_cache_model_and_the_catalogue_reads_its_makers() -> None:
    for spec in SPECS:
        assert spec.cache_model("x", spec.profile("x").api_mode).style in (
            "markers", "automatic", "resource")
    assert maker_cache("openai", "gpt-5.6-sol").write_lifetimes() == ("30m", "12h")
    assert maker_cache("anthropic", "claude-sonnet-5").write_lifetimes() == ("5m", "1h")
    assert not maker_cache("openai", "gpt-5.2").reports_writes


def test_storage_is_priced_per_token_hour_and_adds_up() -> None:
    prices = {"m": {"input": 1.0, "output": 2.0, "storage_hour": 4.5}}
    stored = Usage(stored_token_hours=2_000_000.0, calls=0) + Usage(stored_token_hours=1_000_000.0)
    assert stored.stored_token_hours == 3_000_000.0
    assert pricing.cost(stored, "m", prices) == pytest.approx(13.5)
    assert pricing.cost(Usage(uncached=1_000_000), "m", prices) == pytest.approx(1.0)


@pytest.mark.parametrize(("provider", "model", "wire", "meaning"), [
    ("anthropic", "claude-sonnet-5", None, "replay"),  # a max_tokens 0 read
    ("openai", "gpt-5.6-sol", "responses", "replay"),  # a prewarm
    ("openai", "gpt-5.2", "chat-completions", "none"),  # the provider's own cache
    ("gemini", "gemini-3.5-flash", None, "provider"),  # the adapter's TTL update
])
def test_each_cache_model_says_what_keeping_it_warm_means(provider, model, wire, meaning) -> None:
    assert cache_model(provider, model, wire).keep_warm == meaning
