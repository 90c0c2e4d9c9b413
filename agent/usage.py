"""One Usage type for every provider, and the arithmetic over it.

Convention (every adapter normalises to it):
  prompt tokens = uncached + write_5m + write_1h + cache_read      (disjoint buckets)
- Anthropic reports `input_tokens` AFTER the last breakpoint (= uncached) and the cache
  buckets apart from it: map directly.
- OpenAI reports `prompt_tokens` INCLUDING `cached_tokens`: uncached = prompt - cached
  - cache_write_tokens.
- `prompt_cache_hit_tokens`/`prompt_cache_miss_tokens` servers: read = hit, uncached = miss.
- Gemini reports `promptTokenCount` INCLUDING `cachedContentTokenCount`: uncached =
  prompt - cached. An explicit cache's creation is `write_1h` (billed as input there).
- A provider that reports no cache data: `cache_known` is False; its tokens go to
  `uncached` and the hit rate is unknown (None), never 0%.

The buckets are the cache model's (agent/providers/cache_model.py), not one provider's:
read, written with the short or the long lifetime (`write_5m`, `write_1h`: our names of
the two lifetimes - on GPT-5.6 they mean 30m/12h, see `CacheModel.write_lifetimes`; the
names stay because they are the store's columns and `--json`'s keys), and
`stored_token_hours`: a named cache resource's storage, billed per token per hour while
it lives (Gemini's cachedContents), outside the prompt.

Beyond those buckets a call's usage is an open set of priced meters (`Meter`): what a
provider bills that no bucket names - a quantity, its unit and its unit price, set by
the provider where it measures it and priced once where the call is recorded
(`Meter.cost`, summed into the call's cost by agent/cost/pricing.py). Every reader sums
meters it does not know by name (the store keeps them as JSON beside the buckets, /usage
shows one line per meter, `--json` and `sessions usage --json` list them beside the
documented fields): a new kind of charge is its provider's code only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any


@dataclass(frozen=True)
class Meter:
    """One priced quantity a provider bills outside the token buckets (module docstring):
    `name` what is metered ("web_search"), `unit` what one of it is ("search",
    "token-hour"), `usd_per_unit` its price when it was measured."""

    name: str
    quantity: float
    unit: str
    usd_per_unit: float

    @property
    def cost(self) -> float:
        return self.quantity * self.usd_per_unit

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "quantity": self.quantity, "unit": self.unit,
                "usd_per_unit": self.usd_per_unit, "cost_usd": self.cost}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Meter:
        return cls(str(data["name"]), float(data["quantity"]), str(data["unit"]),
                   float(data["usd_per_unit"]))


def merged(meters: tuple[Meter, ...]) -> tuple[Meter, ...]:
    """Meters of one name, unit and price summed into one (first-seen order)."""
    out: dict[tuple[str, str, float], Meter] = {}
    for meter in meters:
        key = (meter.name, meter.unit, meter.usd_per_unit)
        found = out.get(key)
        out[key] = meter if found is None else replace(found, quantity=found.quantity + meter.quantity)
    return tuple(out.values())


@dataclass(frozen=True)
class Usage:
    """Token accounting of one or more API calls (see module docstring)."""

    uncached: int = 0
    write_5m: int = 0
    write_1h: int = 0
    cache_read: int = 0
    output: int = 0
    cache_known: bool = True
    calls: int = 1
    stored_token_hours: float = 0.0  # storage of a cache resource (module docstring)
    meters: tuple[Meter, ...] = ()  # what else the provider billed, priced (module docstring)

    @property
    def cache_write(self) -> int:
        return self.write_5m + self.write_1h

    @property
    def prompt_tokens(self) -> int:
        return self.uncached + self.write_5m + self.write_1h + self.cache_read

    @property
    def hit_rate(self) -> float | None:
        """cache_read / prompt tokens; None when unknown or nothing was sent."""
        if not self.cache_known or self.prompt_tokens == 0:
            return None
        return self.cache_read / self.prompt_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            uncached=self.uncached + other.uncached,
            write_5m=self.write_5m + other.write_5m,
            write_1h=self.write_1h + other.write_1h,
            cache_read=self.cache_read + other.cache_read,
            output=self.output + other.output,
            cache_known=self.cache_known and other.cache_known,
            calls=self.calls + other.calls,
            stored_token_hours=self.stored_token_hours + other.stored_token_hours,
            meters=merged(self.meters + other.meters),
        )

    @property
    def meters_cost(self) -> float:
        """$ of the meters (each priced when it was measured)."""
        return sum(meter.cost for meter in self.meters)

    def meters_list(self) -> list[dict[str, Any]]:
        """The meters as JSON-ready dicts (what `--json` and the store show)."""
        return [meter.as_dict() for meter in self.meters]

    def written(self) -> dict[str, int]:
        """Tokens written by lifetime ("5m": short, "1h": long)."""
        return {"5m": self.write_5m, "1h": self.write_1h}

    def as_dict(self) -> dict[str, float]:  # (cache_known: a bool, an int too)
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "meters"}


ZERO = Usage(calls=0)

#: the usage row kind of a charge outside any call: what a provider bills for a resource
#: it holds for the session (a cache's creation, its storage), priced like a call's
#: tokens but no call - readers count calls with `is_call`
CHARGE_KIND = "cache_storage"


def is_call(row: Mapping[str, Any]) -> bool:
    """Whether a stored usage row is a model call (not a charge outside calls)."""
    return row.get("kind") != CHARGE_KIND


def usd(value: float) -> str:
    """Money as every front end shows it: 2 to 4 decimals, more below a hundredth of a
    cent, so a nonzero amount (a $0.004 limit) never reads $0.00."""
    places = 4 if value == 0 or abs(value) >= 0.0001 else 8
    whole, _, cents = f"{value:,.{places}f}".partition(".")
    cents = cents.rstrip("0").ljust(2, "0")
    return f"${whole}.{cents}"



def total(usages: list[Usage]) -> Usage:
    """Sum a list of usages (ZERO for an empty list)."""
    result = ZERO
    for item in usages:
        result = result + item
    return result
