"""The Gemini cache planner: implicit caching only, or an explicit cache of the frozen
prefix - and for how long - decided in expected dollars. Pure and clock-free.

Per pause between two requests of a session (the pause model is the idle policy's
`GapModel`, read through `Pauses`: the session's own gaps over a weak prior, some sessions never coming back),
with a prefix of `P` tokens (tools + system instruction), `H` tokens of history after
it, input price `i`, read price `r` and storage `s` per token-hour:

- implicit only: a request within the implicit window (`IMPLICIT_WINDOW`) reads the
  prefix and history with probability `IMPLICIT_HIT` (Google promises no hit: a
  best-effort cache), else pays input for them; later requests pay input.
- explicit, TTL `T`: storage `s * P * E[min(gap, T)]` (a session that never comes back
  pays the whole `T`, unless it is deleted first), then a read `r * P` if the user is
  back within `T`, else a re-creation `i * P` plus the read; the history is input.

The cache pays when the expected saving per pause, over the expected number of pauses
before the user leaves (`1 / P(abandon)`), exceeds what creating it adds to the first
request (one read of the prefix). The same arithmetic picks the TTL after every turn (a
TTL update is the keep-warm here: it costs storage, not a read) and decides whether a
cache outlives the process (`keep_after_exit`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

from agent.usage import usd

ABANDONED = math.inf  # a pause that never ends: the user did not come back (idle_policy's)


class Pauses(Protocol):
    """The pause model the planner reads: `agent.cache.idle_policy.GapModel` (the cache
    room is above the providers room, so the agent hands its adapters a factory of them:
    `GeminiCaches.pauses`)."""

    def survival(self, t: float, given: float = 0.0) -> tuple[float, float]: ...

    def observe(self, seconds: float) -> None: ...


IMPLICIT_WINDOW = 300.0  # seconds an implicit-cache entry is assumed to live
IMPLICIT_HIT = 0.5  # assumed chance an implicit read happens within the window
TTL_CHOICES = (60.0, 120.0, 300.0, 600.0, 900.0, 1200.0, 1800.0, 2700.0, 3600.0,
               5400.0, 7200.0)
MAX_PAUSES = 200.0  # the expected number of pauses is capped (a prior with no abandon)
_STEPS = 64  # trapezoid steps of E[min(gap, T)]


@dataclass(frozen=True)
class Prices:
    """$ per token (input, cached read) and per token-hour (storage)."""

    input: float
    read: float
    storage_hour: float

    @classmethod
    def per_million(cls, input_mtok: float, read_mtok: float, storage_mtok_hour: float) -> Prices:
        return cls(input_mtok / 1e6, read_mtok / 1e6, storage_mtok_hour / 1e6)


@dataclass(frozen=True)
class Plan:
    """`kind` "implicit" or "explicit"; `ttl` seconds (explicit); the expected costs
    ($) of one pause each way and the expected number of pauses; `why` for logs."""

    kind: str
    ttl: float = 0.0
    implicit: float = 0.0
    explicit: float = 0.0
    pauses: float = 0.0
    why: str = ""


def survival(model: Pauses, t: float) -> float:
    """P(the pause lasts longer than t), the user not coming back included."""
    return model.survival(t)[0]


def abandon(model: Pauses) -> float:
    """P(the user does not come back after a turn)."""
    return model.survival(ABANDONED)[0]


def alive_seconds(model: Pauses, ttl: float) -> float:
    """E[min(gap, ttl)]: how long a cache of TTL `ttl` set now is expected to be stored
    before the next request (or its expiry)."""
    step = ttl / _STEPS
    values = [survival(model, k * step) for k in range(_STEPS + 1)]
    return step * (sum(values) - (values[0] + values[-1]) / 2)


def implicit_pause(model: Pauses, prefix: int, history: int, prices: Prices) -> float:
    """Expected cost of the next request's prefix + history with implicit caching only."""
    a = abandon(model)
    soon = 1.0 - survival(model, IMPLICIT_WINDOW)
    late = max(0.0, survival(model, IMPLICIT_WINDOW) - a)
    tokens = prefix + history
    hit = IMPLICIT_HIT * prices.read + (1 - IMPLICIT_HIT) * prices.input
    return soon * tokens * hit + late * tokens * prices.input


def explicit_pause(model: Pauses, prefix: int, history: int, prices: Prices, ttl: float) -> float:
    """Expected cost of keeping an explicit cache `ttl` seconds over the next pause, plus
    the next request's prefix (read, or re-created and read) and history (input)."""
    a = abandon(model)
    gone = survival(model, ttl)
    storage = prices.storage_hour * prefix * alive_seconds(model, ttl) / 3600.0
    back_in_time = 1.0 - gone
    back_late = max(0.0, gone - a)
    reads = (back_in_time + back_late) * prefix * prices.read
    recreate = back_late * prefix * prices.input
    return storage + reads + recreate + (1.0 - a) * history * prices.input


def best_ttl(model: Pauses, prefix: int, history: int, prices: Prices) -> tuple[float, float]:
    """The TTL (seconds) with the least expected cost over the next pause, and that cost."""
    costs = [(explicit_pause(model, prefix, history, prices, ttl), ttl) for ttl in TTL_CHOICES]
    cost, ttl = min(costs)
    return ttl, cost


def pauses(model: Pauses) -> float:
    """The expected number of pauses before the user leaves (the last one included)."""
    a = abandon(model)
    return MAX_PAUSES if a <= 1.0 / MAX_PAUSES else 1.0 / a


def choose(model: Pauses, prefix: int, history: int, floor: int, prices: Prices) -> Plan:
    """Implicit only, or an explicit cache of the `prefix` tokens (and its TTL)."""
    if prefix < floor:
        return Plan("implicit", why=f"prefix {prefix:,} tokens is under the {floor:,}-token floor")
    ttl, explicit = best_ttl(model, prefix, history, prices)
    implicit = implicit_pause(model, prefix, history, prices)
    n = pauses(model)
    saving = (implicit - explicit) * n
    extra = prefix * prices.read  # the first request reads what it just created
    if saving > extra:
        return Plan("explicit", ttl, implicit, explicit, n,
                    why=f"expected saving {usd(saving)} over {n:.1f} pauses > {usd(extra)}")
    return Plan("implicit", 0.0, implicit, explicit, n,
                why=f"expected saving {usd(saving)} does not pay the extra read {usd(extra)}")


def keep_after_exit(prefix: int, remaining_seconds: float, prices: Prices,
                    back_rate_per_hour: float, own_back: float = 0.0) -> bool:
    """Whether a cache should outlive the session that leaves it: the re-creation it
    saves a session expected back before it expires (a Poisson rate of same-prefix
    session starts, or the session itself resumed: `own_back`, the chance its pause
    model gives) beats the storage still to pay."""
    if remaining_seconds <= 0:
        return False
    hours = remaining_seconds / 3600.0
    others = 1.0 - math.exp(-back_rate_per_hour * hours)
    p_back = 1.0 - (1.0 - others) * (1.0 - min(1.0, max(0.0, own_back)))
    saved = p_back * prefix * (prices.input - prices.read)
    return saved > prefix * prices.storage_hour * hours
