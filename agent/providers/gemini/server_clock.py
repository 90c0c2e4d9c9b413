"""The Gemini API's clock as its cache resources report it: storage is billed in the
API's time, so the cache model (cache_model.py) reads "now" from the last
`update_time`/`create_time` a resource carried (or a response's `Date` header) plus what
passed here since.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any


def _epoch(value: Any) -> float | None:
    return value.timestamp() if isinstance(value, datetime) else None


def _http_date(text: str) -> float | None:
    try:
        return email.utils.parsedate_to_datetime(text).timestamp()
    except (TypeError, ValueError):
        return None


class ServerClock:
    """The API's clock: its last reported time plus what passed here since (storage is
    billed in the API's time; a cache resource reports it on every create and update)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._anchor: tuple[float, float] | None = None  # (server epoch, local clock)

    def now(self) -> float:
        if self._anchor is None:
            return time.time()
        server, local = self._anchor
        return server + (self.clock() - local)

    def saw(self, cache: Any) -> None:
        """A cache resource's `update_time` (or `create_time`); else the response's
        `Date` header (a deletion returns nothing else; whole seconds)."""
        stamp = _epoch(getattr(cache, "update_time", None)) or _epoch(getattr(cache, "create_time", None))
        if stamp is None:
            headers = getattr(getattr(cache, "sdk_http_response", None), "headers", None) or {}
            date = {k.lower(): v for k, v in headers.items()}.get("date")
            stamp = _http_date(date) if date else None
        if stamp is not None:
            self._anchor = (stamp, self.clock())
