"""Per-key rate limits of the gateway, summed across the workers through the store.

config.yaml:
    gateway:
      rate_limit: {requests_per_minute: 60, tokens_per_minute: 200000}   # every key
      api_keys:
        - a-plain-key                                   # the gateway-wide limits
        - {key: a-busy-key, rate_limit: {requests_per_minute: 600}}   # its own (per field)

A request is one chat completion or one chat message - a built-in slash command that
calls no model too: it counts against `requests_per_minute` (so thirty `/new` in a row
are refused like thirty questions, and store no thirty sessions), not against tokens or
the daily limit, which it does not spend. Requests are counted in the store's sliding
log (memory/rates.py): the Nth+1 in any 60 s is refused, whichever worker took the
others. Tokens are read from the usage rows of the last 60 s (the store is the truth,
as for the daily spend): uncached input + cache writes + output - cache reads, which
providers bill at a tenth and do not count against their own input limits, are left
out. A key over either gets HTTP 429 with `Retry-After` (a chat: one short reply) and
nothing is sent to the provider. A chat's owner has the gateway-wide limits.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from agent.errors import ConfigError
from gateway.auth import owner_id
from gateway.spend import OverLimit

WINDOW = 60.0
FIELDS = ("requests_per_minute", "tokens_per_minute")
ENTRY_FIELDS = ("key", "rate_limit")


@dataclass(frozen=True)
class Rate:
    """Limits per minute (None: none)."""

    requests_per_minute: int | None = None
    tokens_per_minute: int | None = None

    @property
    def any(self) -> bool:
        return self.requests_per_minute is not None or self.tokens_per_minute is not None


def parse_rate(value: Any, where: str, base: Rate = Rate()) -> Rate:
    """A `rate_limit` mapping over `base` (fields it leaves out keep base's); ConfigError
    naming `where` for anything else."""
    fix = ("write it as `rate_limit: {requests_per_minute: N, tokens_per_minute: M}` "
           "(whole numbers > 0; either may be left out)")
    if value is None:
        return base
    if not isinstance(value, dict):
        raise ConfigError(f"config.yaml: {where} must be a mapping, got {value!r:.60}", fix)
    unknown = sorted(str(k) for k in value if k not in FIELDS)
    if unknown:
        raise ConfigError(f"config.yaml: {where} has unknown field `{unknown[0]}`", fix)
    out = base
    for name in FIELDS:
        if name not in value:
            continue
        number = value[name]
        if isinstance(number, bool) or not isinstance(number, int) or number < 1:
            raise ConfigError(f"config.yaml: {where}.{name} must be a whole number > 0, "
                              f"got {number!r:.60}", fix)
        out = replace(out, **{name: number})
    return out


def configured_rates(settings: Any) -> tuple[Rate, dict[str, Rate]]:
    """(the gateway-wide Rate, {owner id: Rate} of keys listed with their own)."""
    default = parse_rate(settings.get("gateway.rate_limit"), "`gateway.rate_limit`")
    per_owner: dict[str, Rate] = {}
    for index, entry in enumerate(settings.get("gateway.api_keys", [], kind=list)):
        if not isinstance(entry, dict):
            continue
        where = f"`gateway.api_keys[{index}]`"
        unknown = sorted(str(k) for k in entry if k not in ENTRY_FIELDS)
        if unknown:
            raise ConfigError(f"config.yaml: {where} has unknown field `{unknown[0]}`",
                              "an entry is a key string or `{key: ..., rate_limit: {...}}`")
        key = entry.get("key")
        if isinstance(key, str) and key.strip():
            per_owner[owner_id(key.strip())] = parse_rate(entry.get("rate_limit"),
                                                          f"{where}.rate_limit", default)
    return default, per_owner


class RateLimits:
    """`over(owner)`: None when the request may run (then it is counted), else why not."""

    def __init__(self, store: Any, default: Rate = Rate(), per_owner: dict[str, Rate] | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.default = default
        self.per_owner = dict(per_owner or {})
        self.clock = clock
        self.refused: dict[tuple[str, str], int] = {}  # (owner, limit) -> count (/metrics)

    @property
    def any(self) -> bool:
        return self.default.any or any(r.any for r in self.per_owner.values())

    def rate_of(self, owner: str) -> Rate:
        return self.per_owner.get(owner, self.default)

    def over(self, owner: str, *, tokens: bool = True) -> OverLimit | None:
        """`tokens=False`: the request rate only (a command that calls no model)."""
        rate = self.rate_of(owner)
        if tokens and rate.tokens_per_minute is not None:
            wait = self._token_wait(owner, rate.tokens_per_minute)
            if wait:
                return self._refuse(owner, "tokens", wait,
                                    _per_minute(rate.tokens_per_minute, "token"))
        if rate.requests_per_minute is not None:
            wait = self.store.rate_take(f"requests:{owner}", rate.requests_per_minute, WINDOW)
            if wait:
                return self._refuse(owner, "requests", wait,
                                    _per_minute(rate.requests_per_minute, "request"))
        return None

    def _token_wait(self, owner: str, limit: int) -> float:
        """Seconds until the key's tokens of the last minute drop below `limit` (0: now)."""
        now = self.clock()
        since = datetime.fromtimestamp(now - WINDOW, UTC).isoformat(timespec="microseconds")
        rows = self.store.owner_tokens(owner, since)
        return token_wait(rows, limit, now)

    def _refuse(self, owner: str, limit: str, wait: float, what: str) -> OverLimit:
        seconds = max(1, math.ceil(wait))
        self.refused[(owner, limit)] = self.refused.get((owner, limit), 0) + 1
        return OverLimit(f"the rate limit of {what} for this API key is reached; "
                         f"try again in {seconds} s", seconds, "rate_limit_exceeded")


def _per_minute(count: int, what: str) -> str:
    return f"{count:,} {what}{'' if count == 1 else 's'} per minute"


def admission(gateway: Any, owner: str) -> OverLimit | None:
    """Why `owner` may not start a request now (its daily spend, then its rates), else
    None - and then the request is counted. Runs in a worker thread (store reads)."""
    return gateway.daily.over(owner) or gateway.rates.over(owner)


def command_admission(gateway: Any, owner: str) -> OverLimit | None:
    """Why `owner` may not run a built-in command that calls no model now: its request
    rate only (no spend, no tokens), else None - and then it is counted."""
    return gateway.rates.over(owner, tokens=False) if gateway.rates.any else None


def token_wait(rows: list[tuple[str, int]], limit: int, now: float) -> float:
    """Given (created ISO, tokens) of the last minute, oldest first: 0 when their sum
    is under `limit`, else the seconds until enough of them are a minute old."""
    total = sum(tokens for _, tokens in rows)
    if total < limit:
        return 0.0
    for created, tokens in rows:
        total -= tokens
        if total < limit:
            return max(0.001, datetime.fromisoformat(created).timestamp() + WINDOW - now)
    return WINDOW
