"""Model catalogue and cost arithmetic."""

from __future__ import annotations

import pytest

from agent import models, pricing
from agent.usage import Usage


def test_lookup_exact_and_dated_suffix_only():
    assert models.lookup("claude-sonnet-5-5").provider == "anthropic"
    assert models.lookup("claude-haiku-4-5-20251001").id == "claude-haiku-4-5"
    assert models.lookup("gpt-5-2025-08-07").id == "gpt-5"
    assert models.lookup("gpt-5.5-turbo") is None
    assert models.lookup("anthropic/claude-sonnet-5-5") is None
    assert models.lookup("claude-sonnet-4-5") is None  # deprecated: not catalogued


def test_catalogue_matches_sdk_models():
    from anthropic._data.deprecated_models import DEPRECATED_MODELS
    from anthropic.types.model_param import ModelParam

    listed = set(ModelParam.__args__[0].__args__)
    current = {m for m in listed if m not in DEPRECATED_MODELS}
    assert {m for m in current if models.lookup(m) is None} == set()
    assert not set(DEPRECATED_MODELS) & set(models.CATALOGUE)
    assert models.default_model("anthropic") in current


def test_defaults_and_minimums():
    assert models.default_model("openai") in models.CATALOGUE
    assert models.min_cache_tokens("claude-opus-5-5") == 512
    assert models.min_cache_tokens("claude-haiku-4-5") == 4096
    assert models.min_cache_tokens("unknown-local-model") == 1024
    assert models.context_window("unknown-local-model") == 128_000
    assert models.context_window("claude-opus-5", override=50_000) == 50_000


def test_cost_formula():
    usage = Usage(uncached=1_000_000, write_5m=1_000_000, write_1h=1_000_000,
                  cache_read=1_000_000, output=1_000_000)
    # Sonnet $3/$15: 3 + 3.75 + 6 + 0.3 + 15
    assert pricing.cost(usage, "claude-sonnet-5-5") == pytest.approx(28.05)
    # Opus 5.5 reads at 0.05x: 5 + 6.25 + 10 + 0.25 + 25
    assert pricing.cost(usage, "claude-opus-5-5") == pytest.approx(46.5)
    # Fable has no confirmed price: unknown, never guessed - until config gives one,
    # then its own 0.025x read rate applies
    assert pricing.cost(Usage(cache_read=1_000_000), "claude-fable-5-1") is None
    fable = {"claude-fable-5-1": {"input": 15, "output": 75}}
    assert pricing.cost(Usage(cache_read=1_000_000), "claude-fable-5-1", fable) == pytest.approx(15 * 0.025)


def test_openai_read_rates():
    read = Usage(cache_read=1_000_000)
    assert pricing.cost(read, "gpt-5") == pytest.approx(0.125)
    assert pricing.cost(read, "gpt-4.1") == pytest.approx(0.5)
    assert pricing.cost(read, "gpt-4o-2024-11-20") == pytest.approx(1.25)


def test_unknown_model_is_none_never_a_guess():
    usage = Usage(uncached=10, output=10)
    assert pricing.cost(usage, "llama-3-8b") is None
    assert pricing.uncached_cost(usage, "llama-3-8b") is None
    assert pricing.savings(usage, "llama-3-8b") is None


def test_overrides_win():
    usage = Usage(uncached=1_000_000, cache_read=1_000_000, output=1_000_000)
    local = {"llama-3-8b": {"input": 0.1, "output": 0.2}}
    assert pricing.cost(usage, "llama-3-8b", local) == pytest.approx(0.1 + 0.01 + 0.2)
    cheaper = {"claude-sonnet-5-5": {"input": 1.0, "cache_read_multiplier": 0.5}}
    assert pricing.cost(usage, "claude-sonnet-5-5", cheaper) == pytest.approx(1 + 0.5 + 15)
    assert pricing.cost(usage, "odd-model", {"odd-model": {"input": 1.0}}) is None


def test_uncached_cost_and_savings():
    usage = Usage(uncached=100_000, write_5m=200_000, cache_read=700_000, output=10_000)
    baseline = pricing.uncached_cost(usage, "claude-sonnet-5-5")
    assert baseline == pytest.approx((1_000_000 * 3 + 10_000 * 15) / 1e6)
    actual = pricing.cost(usage, "claude-sonnet-5-5")
    assert pricing.savings(usage, "claude-sonnet-5-5") == pytest.approx(baseline - actual)
