"""Sliding-window request counts shared by processes on one store (the gateway's
per-key `requests_per_minute`, summed across workers).

One row per admitted request in `rate_events` (name, at: epoch seconds), kept for one
window. `take` runs in one transaction: an upsert of the name's row in `rate_heads`
first - SQLite's `BEGIN IMMEDIATE` and PostgreSQL's row lock on that upsert make racing
takers of one name wait for each other, so the count they read next includes every
committed request - then it drops the events older than the window, counts the rest
and records this one only when it fits. Exact (a log, not a fixed window): the Nth
request in any `window` seconds is admitted, the N+1th is not. Times are the workers'
wall clocks, as for leases.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memory.db import Handle

_HEAD = ("INSERT INTO rate_heads (name, touched) VALUES (?1, ?2)"
         " ON CONFLICT (name) DO UPDATE SET touched = excluded.touched")


def take(handle: Handle, name: str, limit: int, window: float = 60.0,
         now: float | None = None) -> float:
    """Record one request of `name` if fewer than `limit` were recorded in the last
    `window` seconds and return 0; else record nothing and return the seconds until
    the oldest of them leaves the window (> 0)."""
    if limit < 1 or window <= 0:
        raise ValueError("a rate needs limit >= 1 and window > 0")
    now = time.time() if now is None else now
    with handle.transaction():
        handle.execute(_HEAD, [name, now])
        handle.execute("DELETE FROM rate_events WHERE name = ? AND at <= ?", [name, now - window])
        rows = handle.rows("SELECT at FROM rate_events WHERE name = ? ORDER BY at", [name])
        if len(rows) >= limit:
            return max(1e-3, float(rows[len(rows) - limit]["at"]) + window - now)
        handle.execute("INSERT INTO rate_events (name, at) VALUES (?, ?)", [name, now])
    return 0.0
