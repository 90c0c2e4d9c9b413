"""Cost of one call's Usage with the model's own prices (docs/CACHING.md section 5).

cost = (uncached x input + write_5m x cache_write_5m + write_1h x cache_write_1h
        + cache_read x cache_read + output x output
        + stored_token_hours x storage_hour) / 1e6     ($ per million tokens / token-hours)
       + the usage's meters (each priced by its provider when measured: agent/usage.py)

Prices come from genai-prices' bundled data (agent/providers/price_source.py), in force at
the time of the call (a price can depend on the hour: peak hours), in the
long-context tier the call falls in: a tier applies to every token of a call whose prompt (uncached +
writes + reads) exceeds its start. `overrides` is config.yaml's `prices:` mapping, keyed
by model id, e.g.
  {"my-model": {"input": 3.0, "output": 15.0, "cache_read": 0.3,
                "cache_write_5m": 3.75, "cache_write_1h": 6.0}}
(`cache_read_multiplier`, `cache_write_5m_multiplier`, `cache_write_1h_multiplier` are
also accepted, as multiples of the input price; `storage_hour` is a cache resource's
storage, $ per million token-hours); its keys win over the data in every
tier. A model with neither data nor an input and output override -> None ("unknown").
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from agent.providers import price_source, registry
from agent.providers.models import base_model_id, lookup
from agent.usage import Usage

_PER = 1_000_000
CONFIG_SOURCE = "config.yaml prices:"


@dataclass(frozen=True)
class Prices:
    """Resolved prices for one call ($ per million tokens) and where they came from."""

    input: float
    output: float
    cache_read: float
    cache_write_5m: float
    cache_write_1h: float
    source: str
    storage_hour: float = 0.0  # a cache resource's storage, $ per million token-hours


def provider_of(model: str) -> str:
    """The provider whose cache billing rules apply to `model` (the one that makes it:
    our catalogue, then the price data, then its id's look)."""
    info = lookup(model)
    if info is not None:
        return info.provider
    found = price_source.entry(model)
    if found is not None:
        return registry.owner_named(found.provider).name
    return registry.claimed_by(model).name


def provider_cache_prices(provider: str, input_price: float, model: str = "") -> dict[str, float]:
    """The provider's rules (its spec's `cache_prices`, per model: OpenAI's GPT-5.6+ bills
    writes), used only for a cache price the data (or config) lacks."""
    rules = registry.owner_named(provider).cache_prices or registry.FALLBACK_OWNER.cache_prices
    assert rules is not None  # the fallback owner has rules
    return rules(input_price, model)


def _override(model: str, overrides: dict[str, Any] | None) -> dict[str, Any]:
    overrides = overrides or {}
    return overrides.get(model) or overrides.get(base_model_id(model)) or {}


def _apply(values: dict[str, float | None], override: dict[str, Any]) -> None:
    for key in ("input", "output", "cache_read", "cache_write_5m", "cache_write_1h",
                "storage_hour"):
        if override.get(key) is not None:
            values[key] = float(override[key])
    for key in ("cache_read", "cache_write_5m", "cache_write_1h"):
        multiplier = override.get(f"{key}_multiplier")
        base = values.get("input")
        if multiplier is not None and base is not None:
            values[key] = float(multiplier) * base


def prices(model: str, overrides: dict[str, Any] | None = None,
           prompt_tokens: int = 0, at: datetime | None = None) -> Prices | None:
    """Prices of a call to `model` with `prompt_tokens` prompt tokens made at `at` (None:
    now): the data's tier, config overrides on top, provider rules for missing cache
    prices; None if unknown."""
    rates = price_source.rates(model, prompt_tokens, at)
    values: dict[str, float | None] = {} if rates is None else {
        f.name: getattr(rates, f.name) for f in fields(rates)}
    override = _override(model, overrides)
    _apply(values, override)
    inp, out = values.get("input"), values.get("output")
    if inp is None or out is None:
        return None
    rules = provider_cache_prices(provider_of(model), inp, model)
    filled = {key: value if (value := values.get(key)) is not None else rules[key]
              for key in ("cache_read", "cache_write_5m", "cache_write_1h")}
    source = CONFIG_SOURCE if override else price_source.source()
    return Prices(inp, out, filled["cache_read"], filled["cache_write_5m"],
                  filled["cache_write_1h"], source,
                  values.get("storage_hour") or rules.get("storage_hour", 0.0))


def _per_call_prompt(usage: Usage) -> int:
    """The prompt size that picks the tier: the call's own (the mean for an aggregate)."""
    return usage.prompt_tokens // max(usage.calls, 1)


def cost(usage: Usage, model: str, overrides: dict[str, Any] | None = None,
         at: datetime | None = None) -> float | None:
    """USD cost of `usage` (one call) on `model`, made at `at` (None: now); None when the
    model's prices are unknown."""
    price = prices(model, overrides, _per_call_prompt(usage), at)
    if price is None:
        return None
    total = (
        usage.uncached * price.input
        + usage.write_5m * price.cache_write_5m
        + usage.write_1h * price.cache_write_1h
        + usage.cache_read * price.cache_read
        + usage.output * price.output
        + usage.stored_token_hours * price.storage_hour
    )
    return total / _PER + usage.meters_cost  # meters carry their own price


def uncached_cost(usage: Usage, model: str, overrides: dict[str, Any] | None = None) -> float | None:
    """What the same tokens would cost with no caching at all (for "savings")."""
    price = prices(model, overrides, _per_call_prompt(usage))
    if price is None:
        return None
    # the meters are billed with or without a cache: the same on both sides of "savings"
    return (usage.prompt_tokens * price.input + usage.output * price.output) / _PER \
        + usage.meters_cost


def savings(usage: Usage, model: str, overrides: dict[str, Any] | None = None) -> float | None:
    """uncached_cost - cost (negative when writes cost more than reads saved)."""
    actual = cost(usage, model, overrides)
    baseline = uncached_cost(usage, model, overrides)
    if actual is None or baseline is None:
        return None
    return baseline - actual


def source(model: str, overrides: dict[str, Any] | None = None) -> str | None:
    """Where `model`'s prices come from; None when it has none."""
    found = prices(model, overrides)
    return None if found is None else found.source
