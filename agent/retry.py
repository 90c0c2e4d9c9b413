"""Bounded retries with jittered exponential backoff for transient provider errors."""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class RetryPolicy:
    """`attempts` total tries per call; delays grow from `base` to at most `cap` seconds."""

    attempts: int = 4
    base: float = 1.0
    cap: float = 30.0
    max_retry_after: float = 60.0

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random | None = None) -> float:
        """Seconds to wait before try number `attempt + 1` (attempt counts from 1)."""
        if retry_after is not None and retry_after >= 0:
            return min(retry_after, self.max_retry_after)
        ceiling = min(self.cap, self.base * (2 ** (attempt - 1)))
        return (rng or random).uniform(ceiling / 2, ceiling)
