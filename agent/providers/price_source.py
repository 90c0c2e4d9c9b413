"""Model prices and context windows from genai-prices' bundled data, offline.

genai-prices can refresh its data from the network (its `UpdatePrices` background
thread); hermes never starts it and never reads the library's process-wide snapshot
(which that thread would replace): it looks models up in the data shipped inside the
installed package (`genai_prices.data`), so a price is the same on every run of one
installed version and no price look-up leaves the machine.

The library costs ~0.2 s to import, so it is imported on first use, never at start-up.
Only the entries of the providers hermes talks to are used (each spec's `price_ids`), without
its cross-provider fallbacks: a model id it does not list there is unknown (None).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from agent.providers import registry

if TYPE_CHECKING:
    from decimal import Decimal

    from genai_prices.types import ModelInfo, ModelPrice, Provider, TieredPrices

PACKAGE = "genai-prices"
PROVIDERS = registry.price_ids()  # the data's entries for the providers hermes talks to
#: Release month on PyPI of each version we pin (pyproject.toml): the date of its data.
DATA_DATES = {"0.2.3": "2026-11"}


@dataclass(frozen=True)
class Rates:
    """$ per million tokens in one long-context tier; None = the data has no such price."""

    input: float
    output: float
    cache_read: float | None
    cache_write_5m: float | None
    cache_write_1h: float | None


@dataclass(frozen=True)
class Entry:
    """One model in the data: its provider, context window and priced tiers."""

    id: str
    provider: str
    context_window: int | None
    tiers: tuple[tuple[int, Rates], ...]  # (applies above this many prompt tokens, rates)


@functools.cache
def version() -> str:
    """The installed genai-prices version (read from its metadata once: no import; the
    metadata lookup costs ~2 ms, which every priced call used to pay)."""
    from importlib import metadata

    return metadata.version(PACKAGE)


def source() -> str:
    """"genai-prices 0.2.3 (data of 2026-11)": what a cost was priced with."""
    ver = version()
    return f"{PACKAGE} {ver} (data of {DATA_DATES.get(ver, 'unknown date')})"


@functools.cache
def _providers() -> tuple[Provider, ...]:
    from genai_prices.data import providers  # the bundled data; nothing is fetched

    return tuple(p for p in providers if p.id in PROVIDERS)


def find(model: str) -> ModelInfo | None:
    """The data's model info for `model` (all its dated and hourly prices); None: unlisted."""
    found = _find(model.lower())
    return None if found is None else found[1]


@functools.cache
def _find(model: str) -> tuple[str, ModelInfo] | None:
    for provider in _providers():
        if _claimed_elsewhere(provider.id, model):
            continue  # Google's data lists Claude on Vertex: an Anthropic model is Anthropic's
        info = provider.find_model(model)  # no all_providers: no fallback to others
        if info is not None:
            return provider.id, info
    return None


def _claimed_elsewhere(provider_id: str, model: str) -> bool:
    """A model id another provider claims (a Claude id in Google's data)."""
    claimant = registry.claimed_by(model)
    return claimant.claims(model) and claimant is not registry.owner_named(provider_id)


def _rate(price: Decimal | TieredPrices | None, above: int) -> float | None:
    """One price at `above` prompt tokens (a TieredPrices' highest tier it exceeds)."""
    from genai_prices.types import TieredPrices  # loaded with the data: see the docstring

    if price is None:
        return None
    if not isinstance(price, TieredPrices):
        return float(price)
    chosen = price.base
    for tier in price.tiers:
        if above > tier.start:
            chosen = tier.price
    return float(chosen)


def _starts(model_price: ModelPrice) -> list[int]:
    starts = {0}
    for value in vars(model_price).values():
        starts.update(tier.start for tier in getattr(value, "tiers", None) or ())
    return sorted(starts)


def _rates(model_price: ModelPrice, above: int) -> Rates | None:
    get = functools.partial(getattr, model_price)
    values = {
        "input": _rate(get("input_mtok"), above),
        "output": _rate(get("output_mtok"), above),
        "cache_read": _rate(get("cache_read_mtok"), above),
        "cache_write_5m": _rate(get("cache_write_5m_mtok") or get("cache_write_mtok"), above),
        "cache_write_1h": _rate(get("cache_write_1h_mtok"), above),
    }
    inp, out = values["input"], values["output"]
    if inp is None or out is None:
        return None
    return Rates(inp, out, values["cache_read"],
                 values["cache_write_5m"], values["cache_write_1h"])


@functools.lru_cache(maxsize=1024)
def entry(model: str, day: str = "") -> Entry | None:
    """The data's entry for `model` (its ids, aliases and dated snapshots), prices in
    force at `day` (ISO date, or date and time UTC: a price can depend on the hour -
    peak hours; "" = now); None when the data does not list it."""
    found = _find(model.lower())
    if found is None:
        return None
    provider, info = found
    when = datetime.fromisoformat(day).replace(tzinfo=UTC) if day else datetime.now(UTC)
    model_price = info.get_prices(when)
    tiers = []
    for start in _starts(model_price):
        rates = _rates(model_price, start + 1 if start else 0)
        if rates is not None:
            tiers.append((start, rates))
    return Entry(info.id, provider, info.context_window, tuple(tiers))


def rates(model: str, prompt_tokens: int = 0, at: datetime | None = None) -> Rates | None:
    """The rates a call with `prompt_tokens` prompt tokens made at `at` (None: now) pays,
    to the minute; None if unknown/unpriced."""
    moment = (at or datetime.now(UTC)).astimezone(UTC)
    found = entry(model, moment.replace(tzinfo=None).isoformat(timespec="minutes"))
    if found is None or not found.tiers:
        return None
    chosen = found.tiers[0][1]
    for start, tier_rates in found.tiers:
        if prompt_tokens > start:
            chosen = tier_rates
    return chosen


def context_window(model: str) -> int | None:
    """The data's context window for `model`; None when unknown."""
    found = entry(model)
    return found.context_window if found else None
