"""`hermes models`: the models we know per provider, and why each cost is what it is.

One line per model: context window, minimum cacheable prefix, $/Mtok input / output /
cache read / 5m write / 1h write (one line per long-context tier; on GPT-5.6 the 30m and
12h writes), the cache options the model takes, and where the figures come from (genai-prices' bundled data, config.yaml, the provider rules).
Unknown figures print "unknown", never a guess.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any, TypedDict

import typer

from frontend.config.settings import load_settings

if TYPE_CHECKING:
    from agent.cost.pricing import Prices

UNKNOWN = "unknown"


class TierFacts(TypedDict):
    """The prices ($/Mtok) of prompts above `above_tokens` (0: the base tier)."""

    above_tokens: int
    input: float
    output: float
    cache_read: float
    cache_write_5m: float
    cache_write_1h: float


class ModelFacts(TypedDict):
    """One model in `hermes models` (its --json shape)."""

    model: str
    provider: str
    context_window: int | None
    context_source: str | None
    min_cache_tokens: int
    cache_options: str
    write_lifetimes: list[str]
    prices: list[TierFacts]
    price_source: str | None


def _money(value: float) -> str:
    return f"{value:g}"


def _tokens(value: int | None) -> str:
    return UNKNOWN if value is None else f"{value:,}"


def _tier_rows(model: str, prices: dict[str, Any]) -> list[tuple[int, Prices | None]]:
    """(tier start in prompt tokens, Prices or None) per long-context tier of `model`."""
    from agent.cost import pricing
    from agent.providers import price_source

    found = price_source.entry(model)
    starts = [start for start, _ in found.tiers] if found else [0]
    return [(start, pricing.prices(model, prices, start + 1)) for start in starts]


def facts(model: str, prices: dict[str, Any], windows: dict[str, int]) -> ModelFacts:
    """Everything `hermes models` says about one model (JSON-friendly)."""
    from agent.cost import pricing
    from agent.providers import models, price_source, registry

    info = models.lookup(model)
    owner = info.provider if info else pricing.provider_of(model)
    window = windows.get(model) or models.known_context_window(model)
    tiers: list[TierFacts] = []
    for start, price in _tier_rows(model, prices):
        if price is not None:
            tiers.append({
                "above_tokens": start, "input": price.input, "output": price.output,
                "cache_read": price.cache_read, "cache_write_5m": price.cache_write_5m,
                "cache_write_1h": price.cache_write_1h})
    return {
        "model": model,
        "provider": owner,
        "context_window": window,
        "context_source": "config.yaml context_windows:" if windows.get(model) else
                          (price_source.source() if window else None),
        "min_cache_tokens": models.min_cache_tokens(model),
        "cache_options": registry.cache_options(owner, model),
        "write_lifetimes": list(registry.write_lifetimes(owner, model)),
        "prices": tiers,
        "price_source": pricing.source(model, prices),
    }


def _line(item: ModelFacts) -> list[str]:
    head = f"  {item['model']:<20} {_tokens(item['context_window']):>10} ctx  " \
           f"cache min {_tokens(item['min_cache_tokens']):>5}  "
    if not item["prices"]:
        return [head + f"price {UNKNOWN}"]
    lines = []
    short, long_ = item["write_lifetimes"]
    for tier in item["prices"]:
        text = (f"${_money(tier['input'])} / ${_money(tier['output'])}, "
                f"read ${_money(tier['cache_read'])}, write {short} "
                f"${_money(tier['cache_write_5m'])} {long_} ${_money(tier['cache_write_1h'])}")
        if tier["above_tokens"]:
            lines.append(" " * len(head) + f"{text} (prompts above {tier['above_tokens']:,})")
        else:
            lines.append(head + text)
    return lines


def run(names: list[str], json_out: bool) -> None:
    """List the catalogue's models per provider (or only `names`, catalogued or not)."""
    from agent.providers import models, price_source, registry

    settings = load_settings()
    prices = settings.get("prices", {}, kind=dict)
    windows = settings.get("context_windows", {}, kind=dict)
    chosen = names or list(models.CATALOGUE)
    items = [facts(name, prices, windows) for name in chosen]
    if json_out:
        sys.stdout.write(json.dumps(items, indent=2) + "\n")
        return
    typer.echo(f"$ per million tokens: input / output; from {price_source.source()} "
               "unless marked; config.yaml prices: and context_windows: override. Cache "
               "prices the data lacks follow the provider rules: "
               + "; ".join(s.price_note for s in registry.SPECS if s.price_note) + ".")
    for provider in (spec.name for spec in registry.catalogued()):
        group = [item for item in items if item["provider"] == provider]
        if not group:
            continue
        typer.echo(f"{provider}:")
        for item in group:
            lines = _line(item)
            if item["price_source"] and item["price_source"] != price_source.source():
                lines[0] += f"  [{item['price_source']}]"
            lines[0] += f"  cache: {item['cache_options']}"
            for line in lines:
                typer.echo(line)
