"""Cost of a Usage with the model's own prices (CACHING.md section 4).

cost = (uncached x in + write_5m x in x w5 + write_1h x in x w1h + read x in x r
        + output x out) / 1e6
`overrides` is config.yaml's `prices:` mapping, e.g.
  {"my-model": {"input": 3.0, "output": 15.0, "cache_read_multiplier": 0.1,
                "cache_write_5m_multiplier": 1.25, "cache_write_1h_multiplier": 2.0}}
keyed by model id; its keys win over the catalogue. Unknown model, no override -> None.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent.models import ModelInfo, base_model_id, lookup
from agent.usage import Usage

_PER = 1_000_000


@dataclass(frozen=True)
class Prices:
    """Resolved prices for one model ($ per million tokens, multipliers on input)."""

    input: float
    output: float
    cache_read_multiplier: float = 0.1
    cache_write_5m_multiplier: float = 1.25
    cache_write_1h_multiplier: float = 2.0


def _from_info(info: ModelInfo) -> dict[str, float]:
    known = {"input": info.input_price, "output": info.output_price}
    return {
        **{k: v for k, v in known.items() if v is not None},
        "cache_read_multiplier": info.cache_read_multiplier,
        "cache_write_5m_multiplier": info.write_5m_multiplier,
        "cache_write_1h_multiplier": info.write_1h_multiplier,
    }


def prices(model: str, overrides: dict[str, Any] | None = None) -> Prices | None:
    """Prices for `model`: catalogue values with config overrides on top; None if unknown."""
    info = lookup(model)
    values: dict[str, float] = _from_info(info) if info else {}
    overrides = overrides or {}
    override = overrides.get(model) or overrides.get(base_model_id(model)) or {}
    for key in Prices.__dataclass_fields__:
        if override.get(key) is not None:
            values[key] = float(override[key])
    if "input" not in values or "output" not in values:
        return None
    return Prices(**values)


def cost(usage: Usage, model: str, overrides: dict[str, Any] | None = None) -> float | None:
    """USD cost of `usage` on `model`; None when the model's prices are unknown."""
    price = prices(model, overrides)
    if price is None:
        return None
    total = (
        usage.uncached * price.input
        + usage.write_5m * price.input * price.cache_write_5m_multiplier
        + usage.write_1h * price.input * price.cache_write_1h_multiplier
        + usage.cache_read * price.input * price.cache_read_multiplier
        + usage.output * price.output
    )
    return total / _PER


def uncached_cost(usage: Usage, model: str, overrides: dict[str, Any] | None = None) -> float | None:
    """What the same tokens would cost with no caching at all (for "savings")."""
    price = prices(model, overrides)
    if price is None:
        return None
    return (usage.prompt_tokens * price.input + usage.output * price.output) / _PER


def savings(usage: Usage, model: str, overrides: dict[str, Any] | None = None) -> float | None:
    """uncached_cost - cost (negative when writes cost more than reads saved)."""
    actual = cost(usage, model, overrides)
    baseline = uncached_cost(usage, model, overrides)
    if actual is None or baseline is None:
        return None
    return baseline - actual
