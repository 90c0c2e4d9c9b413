"""The gateway's per-key daily spend limit (config `gateway.daily_usd_per_key`).

Spend is summed from the usage rows of the key's sessions since 00:00 UTC (the store is
the truth, so it counts every call billed: turns, summaries, sub-agents, keep-warm
reads). A key at or over its limit gets HTTP 429 with a clear body and `Retry-After`
until the next reset; slash commands (/usage) still answer. Calls with no known price
cannot be counted: the status says so.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from agent.usage import usd
from memory.store import SessionStore


@dataclass(frozen=True)
class OverLimit:
    """The key's limit is spent: the message for the client and seconds to the reset."""

    message: str
    retry_after: int
    code: str = "daily_budget_exceeded"  # the 429's error code (gateway/ratelimit.py: its own)


class DailyLimit:
    """Per-key daily USD limit over the store (None: no limit)."""

    def __init__(self, store: SessionStore, limit_usd: float | None,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.limit_usd = limit_usd
        self.clock = clock

    def _day(self) -> tuple[datetime, datetime]:
        now = datetime.fromtimestamp(self.clock(), UTC)
        start = now.replace(hour=0, minute=0, second=0, microsecond=0)
        return start, start + timedelta(days=1)

    def status(self, owner: str) -> dict[str, Any]:
        """What the key spent today against its limit, and when the day resets."""
        start, reset = self._day()
        spent, unpriced = self.store.owner_spend(owner, start.isoformat(timespec="microseconds"))
        limit = self.limit_usd
        return {"daily_usd": limit, "spent_today_usd": round(spent, 8),
                "remaining_today_usd": None if limit is None else round(max(0.0, limit - spent), 8),
                "unpriced_calls_today": unpriced, "resets_at": reset.isoformat()}

    def over(self, owner: str) -> OverLimit | None:
        """None while the key may spend; else why not and until when."""
        if self.limit_usd is None:
            return None
        status = self.status(owner)
        if status["spent_today_usd"] < self.limit_usd:
            return None
        _, reset = self._day()
        wait = max(1, math.ceil(reset.timestamp() - self.clock()))
        return OverLimit(
            f"the daily spend limit of {usd(self.limit_usd)} for this API key is reached "
            f"({usd(status['spent_today_usd'])} spent today); it resets at "
            f"{reset.strftime('%H:%M')} UTC, in {wait // 3600} h {wait % 3600 // 60} min",
            wait)
