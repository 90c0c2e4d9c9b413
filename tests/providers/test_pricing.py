"""Model catalogue and cost arithmetic: prices from genai-prices' bundled data.

Every expected dollar figure is worked out by hand from the published $/Mtok rates
(written next to it), never by calling the library.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.cost import pricing
from agent.providers import models, price_source
from agent.usage import Usage

ROOT = Path(__file__).resolve().parents[2]
M = 1_000_000


def test_lookup_exact_and_dated_suffix_only():
    assert models.lookup("claude-sonnet-5-5").provider == "anthropic"
    assert models.lookup("claude-haiku-4-5-20251001").id == "claude-haiku-4-5"
    assert models.lookup("gpt-5-2025-08-07").id == "gpt-5"
    assert models.lookup("gpt-5.5-turbo") is None
    assert models.lookup("anthropic/claude-sonnet-5-5") is None
    assert models.lookup("claude-sonnet-4-5") is None  # deprecated: not offered


def test_catalogue_matches_sdk_models():
    from anthropic._data.deprecated_models import DEPRECATED_MODELS
    from anthropic.types.model_param import ModelParam

    listed = set(ModelParam.__args__[0].__args__)
    current = {m for m in listed if m not in DEPRECATED_MODELS}
    assert {m for m in current if models.lookup(m) is None} == set()
    assert not set(DEPRECATED_MODELS) & set(models.CATALOGUE)
    assert models.default_model("anthropic") in current


def test_defaults_minimums_and_windows():
    assert models.default_model("openai") in models.CATALOGUE
    assert models.min_cache_tokens("claude-opus-5-5") == 512
    assert models.min_cache_tokens("claude-haiku-4-5") == 4096
    assert models.min_cache_tokens("unknown-local-model") == 1024
    assert models.context_window("unknown-local-model") == 128_000
    assert models.known_context_window("unknown-local-model") is None
    assert models.context_window("claude-opus-5", override=50_000) == 50_000
    # windows from the data: Haiku 5.5 has 1M (our old table said 200k)
    assert models.context_window("claude-haiku-5-5") == 1_000_000
    assert models.CATALOGUE["claude-haiku-4-5"].context_window == 200_000
    assert models.context_window("gpt-4o") == 128_000
    # offered, but not in the data: no window known (and no price)
    assert models.known_context_window("claude-mythos-5") is None


def test_cost_formula_flat_anthropic_prices():
    usage = Usage(uncached=M, write_5m=M, write_1h=M, cache_read=M, output=M)
    # Sonnet 5.5 $2/$10, 5m write 2.50, 1h write 4, read 0.10: 2 + 2.5 + 4 + 0.1 + 10
    assert pricing.cost(usage, "claude-sonnet-5-5") == pytest.approx(18.6)
    # Opus 5.5 $4/$20, writes 5 / 8, reads 0.20: 4 + 5 + 8 + 0.2 + 20
    assert pricing.cost(usage, "claude-opus-5-5") == pytest.approx(37.2)
    # Fable 5.1 is priced now ($10/$50), reads 0.25 (0.025x)
    assert pricing.cost(Usage(cache_read=M), "claude-fable-5-1") == pytest.approx(0.25)


def test_haiku_5_5_long_context_tier_at_100k():
    # 20,000 + 30,000 + 10,000 + 40,000 = 100,000 prompt tokens: not above 100k, base
    # tier $0.10 in, 0.125 5m write, 0.20 1h write, 0.01 read, $0.50 out
    at = Usage(uncached=20_000, write_5m=30_000, write_1h=10_000, cache_read=40_000,
               output=2_000)
    expected = (20_000 * 0.1 + 30_000 * 0.125 + 10_000 * 0.2 + 40_000 * 0.01
                + 2_000 * 0.5) / M
    assert expected == pytest.approx(0.00915)
    assert pricing.cost(at, "claude-haiku-5-5") == pytest.approx(0.00915)
    # one token more: every token at the long tier, $0.50 in, 0.625, 1, 0.05, $2.50 out
    above = Usage(uncached=20_001, write_5m=30_000, write_1h=10_000, cache_read=40_000,
                  output=2_000)
    assert pricing.cost(above, "claude-haiku-5-5") == pytest.approx(
        (20_001 * 0.5 + 30_000 * 0.625 + 10_000 * 1.0 + 40_000 * 0.05 + 2_000 * 2.5) / M)
    assert pricing.cost(above, "claude-haiku-5-5") == pytest.approx(0.0457505)


def test_gpt_5_5_long_context_tier_at_272k():
    # 72,000 + 200,000 = 272,000: base tier $5 in, $0.50 cached, $30 out
    at = Usage(uncached=72_000, cache_read=200_000, output=1_000)
    assert pricing.cost(at, "gpt-5.5") == pytest.approx(0.49)  # 0.36 + 0.10 + 0.03
    # 272,001: $10 in, $1 cached, $45 out for the whole call
    above = Usage(uncached=72_001, cache_read=200_000, output=1_000)
    assert pricing.cost(above, "gpt-5.5") == pytest.approx(0.96501)  # 0.72001 + 0.2 + 0.045
    assert pricing.uncached_cost(above, "gpt-5.5") == pytest.approx(2.76501)  # 2.72001 + 0.045


def test_still_served_model_outside_the_catalogue_is_priced():
    # Sonnet 4.5: $3/$15, and $6/$22.50 above 200k prompt tokens
    assert pricing.cost(Usage(uncached=M, output=M), "claude-sonnet-4-5") is not None
    assert pricing.cost(Usage(uncached=100_000, output=1_000), "claude-sonnet-4-5") == \
        pytest.approx(0.315)  # 0.3 + 0.015
    assert pricing.cost(Usage(uncached=200_001, output=1_000), "claude-sonnet-4-5") == \
        pytest.approx(1.222506)  # 1.200006 + 0.0225
    assert models.context_window("claude-sonnet-4-5") == 200_000


def test_openai_reads_from_data_and_writes_at_input_price():
    read = Usage(cache_read=M)
    assert pricing.cost(read, "gpt-5") == pytest.approx(0.125)
    assert pricing.cost(read, "gpt-4.1") == pytest.approx(0.5)
    assert pricing.cost(read, "gpt-4o-2024-11-20") == pytest.approx(1.25)
    # the data has no write price for OpenAI: the provider rule bills writes as input
    write = Usage(write_5m=100_000, write_1h=100_000)  # 200k: base tier, $5
    assert pricing.cost(write, "gpt-5.5") == pytest.approx(1.0)  # 0.5 + 0.5


def test_unknown_model_is_none_never_a_guess():
    usage = Usage(uncached=10, output=10)
    for model in ("llama-3-8b", "claude-mythos-5", "anthropic/claude-sonnet-5-5"):
        assert pricing.cost(usage, model) is None
        assert pricing.uncached_cost(usage, model) is None
        assert pricing.savings(usage, model) is None
        assert pricing.source(model) is None


def test_overrides_win_in_every_tier():
    usage = Usage(uncached=M, cache_read=M, output=M)
    cheaper = {"claude-sonnet-5-5": {"input": 1.0, "cache_read_multiplier": 0.5}}
    assert pricing.cost(usage, "claude-sonnet-5-5", cheaper) == pytest.approx(1 + 0.5 + 10)
    assert pricing.source("claude-sonnet-5-5", cheaper) == "config.yaml prices:"
    flat = {"claude-haiku-5-5": {"input": 1.0, "output": 2.0}}
    long_call = Usage(uncached=150_000, output=1_000)
    assert pricing.cost(long_call, "claude-haiku-5-5", flat) == pytest.approx(0.152)
    assert pricing.cost(usage, "odd-model", {"odd-model": {"input": 1.0}}) is None


def test_provider_rules_fill_only_missing_cache_prices():
    # no data: Anthropic rules 1.25x / 2x / 0.1x of $10 input
    claude = {"claude-local": {"input": 10, "output": 20}}
    usage = Usage(write_5m=M, write_1h=M, cache_read=M)
    assert pricing.cost(usage, "claude-local", claude) == pytest.approx(12.5 + 20 + 1)
    # an OpenAI-compatible model: writes and (unpriced) reads at the input price
    local = {"llama-3-8b": {"input": 0.1, "output": 0.2}}
    every = Usage(uncached=M, write_5m=M, cache_read=M, output=M)
    assert pricing.cost(every, "llama-3-8b", local) == pytest.approx(0.1 + 0.1 + 0.1 + 0.2)
    given = {"llama-3-8b": {"input": 0.1, "output": 0.2, "cache_read": 0.01}}
    assert pricing.cost(every, "llama-3-8b", given) == pytest.approx(0.1 + 0.1 + 0.01 + 0.2)


def test_uncached_cost_and_savings():
    usage = Usage(uncached=100_000, write_5m=200_000, cache_read=700_000, output=10_000)
    baseline = pricing.uncached_cost(usage, "claude-sonnet-5-5")
    assert baseline == pytest.approx((1_000_000 * 2 + 10_000 * 10) / 1e6)
    actual = pricing.cost(usage, "claude-sonnet-5-5")
    assert actual == pytest.approx((100_000 * 2 + 200_000 * 2.5 + 700_000 * 0.1
                                    + 10_000 * 10) / 1e6)
    assert pricing.savings(usage, "claude-sonnet-5-5") == pytest.approx(baseline - actual)


def test_source_names_the_package_version_and_date():
    from importlib.metadata import version

    assert pricing.source("gpt-5.5") == f"genai-prices {version('genai-prices')} (data of 2026-11)"


def test_prices_come_from_the_bundled_data_never_the_updater():
    from genai_prices import data_snapshot, update_prices
    from genai_prices.data_snapshot import DataSnapshot

    # a snapshot installed process-wide (what UpdatePrices would do) is ignored
    data_snapshot.set_custom_snapshot(DataSnapshot(providers=[], from_auto_update=True))
    try:
        price_source.entry.cache_clear()
        assert pricing.cost(Usage(uncached=M), "claude-sonnet-5-5") == pytest.approx(2.0)
    finally:
        data_snapshot.set_custom_snapshot(None)
    assert update_prices._shared_updater.thread is None
    for path in [*ROOT.glob("agent/**/*.py"), *ROOT.glob("hermes_cli/**/*.py"),
                 *ROOT.glob("gateway/**/*.py"), *ROOT.glob("bench/*.py")]:
        text = path.read_text()
        for name in ("UpdatePrices(", "import UpdatePrices", "wait_prices_updated",
                     "set_custom_snapshot(", "calc_price(", "get_snapshot("):
            assert name not in text, f"{path} uses genai_prices.{name} (may fetch)"
