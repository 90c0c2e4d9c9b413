"""The cache-model room (agent/providers/cache_model.py): what each registered provider's
cache model says, and the parts a named-resource cache (Gemini's) builds on."""

from __future__ import annotations

import pytest

from agent.cost import pricing
from agent.messages import Message, Request, SystemBlock
from agent.providers.cache_model import CachedPrefix, CacheHints, CacheResources, HintFacts
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


def test_a_refresh_is_a_one_token_read_or_a_prewarm() -> None:
    read = cache_model("anthropic", "claude-sonnet-5").refresh(_request())
    assert isinstance(read, Request) and read.max_tokens == 1 and not read.cache.refresh
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


class _Resources:
    """The shape of a resource cache's adapter (what Gemini's implements)."""

    name = "resources"

    def create(self, request: Request, seconds: float) -> CachedPrefix:
        return CachedPrefix("cachedContents/1", request.model, 5000, seconds)

    def extend(self, name: str, seconds: float) -> CachedPrefix:
        return CachedPrefix(name, "m", 5000, seconds)

    def delete(self, name: str) -> None:
        return None


def test_a_resource_cache_is_named_extended_and_deleted_through_its_adapter() -> None:
    resources = _Resources()
    assert isinstance(resources, CacheResources)
    made = resources.create(_request(), 600.0)
    request = _request(cache=CacheHints(key="k", resource=made.name))
    assert request.cache.resource == "cachedContents/1"
    assert not isinstance(object(), CacheResources)
