"""What processes sharing one store coordinate through it: session locks (one driver
per session) and leases (one leader per job). `SessionStore` inherits these methods;
the backend's mechanism is in `memory.locks` / `memory.lock_pg` and `memory.leases`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import memory.leases as leases
import memory.locks as locks
import memory.rates as rates
from memory.db import Handle


class Coordination:
    """Session locks and leases on `self.handle` (see the module docstring)."""

    handle: Handle

    def lock_session(self, session_id: str, *, purpose: str = "") -> locks.SessionLock:
        """A (not yet taken) lock on one session: `acquire(wait)`, `release()`."""
        return locks.lock_for(self.handle, session_id, purpose=purpose)

    @contextmanager
    def session_lock(self, session_id: str, *, wait: float | None = 0,
                     purpose: str = "") -> Iterator[locks.SessionLock]:
        """Hold `session_id`'s lock for the body; `SessionLocked` names the holder."""
        lock = self.lock_session(session_id, purpose=purpose)
        lock.acquire(wait)
        try:
            yield lock
        finally:
            lock.release()

    def lease(self, name: str, holder: str, ttl_s: float) -> bool:
        """Take lease `name` if free or expired, or renew it if `holder` has it, for
        `ttl_s` seconds; True when `holder` holds it afterwards (one atomic statement)."""
        return leases.take(self.handle, name, holder, ttl_s)

    def release_lease(self, name: str, holder: str) -> None:
        """Give lease `name` up if `holder` holds it."""
        leases.release(self.handle, name, holder)

    def rate_take(self, name: str, limit: int, window: float = 60.0) -> float:
        """Count one request of `name` against `limit` per `window` seconds, shared by
        every process on the store: 0 when admitted, else seconds until one would be."""
        return rates.take(self.handle, name, limit, window)
