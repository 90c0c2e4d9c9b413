"""Named leases for leader election (e.g. one Telegram poller per bot across workers).

A lease row (name, holder, expires) is taken or renewed by ONE statement on both
backends: an upsert whose update applies only when the holder already has it or it
has expired; `RETURNING` tells whether this holder has it afterwards. SQLite runs it in
a `BEGIN IMMEDIATE` transaction, PostgreSQL's `ON CONFLICT DO UPDATE` locks the row, so
concurrent takers cannot both win. Times are the workers' wall clocks (epoch seconds):
keep hosts in NTP sync and ttl well above their skew.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memory.db import Handle

_TAKE = (
    "INSERT INTO leases (name, holder, expires) VALUES (?1, ?2, ?3)"
    " ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires = excluded.expires"
    " WHERE leases.holder = excluded.holder OR leases.expires <= ?4"
    " RETURNING holder"
)


def take(handle: Handle, name: str, holder: str, ttl_s: float) -> bool:
    """True when `holder` holds lease `name` for the next `ttl_s` seconds."""
    if ttl_s <= 0:
        raise ValueError("a lease's ttl_s must be positive")
    now = time.time()
    with handle.transaction():
        got = handle.rows(_TAKE, [name, holder, now + ttl_s, now])
    return bool(got) and got[0]["holder"] == holder


def release(handle: Handle, name: str, holder: str) -> None:
    """Delete lease `name` if `holder` holds it."""
    handle.execute("DELETE FROM leases WHERE name = ? AND holder = ?", [name, holder])


def holder_of(handle: Handle, name: str) -> str | None:
    """Who holds lease `name` now (None: nobody, or expired)."""
    rows = handle.rows("SELECT holder FROM leases WHERE name = ? AND expires > ?",
                       [name, time.time()])
    return rows[0]["holder"] if rows else None
