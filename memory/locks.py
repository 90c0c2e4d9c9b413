"""Which session lock a store's backend uses (see `SessionStore.session_lock`).

SQLite: `memory.session_lock.SessionLock` (a row + heartbeat in the file).
PostgreSQL: `memory.lock_pg.PgSessionLock` (an advisory lock held by a connection).
Both: `acquire(wait)`, `try_acquire()`, `release()`, `session_id`; `SessionLocked`
names the holder.
"""

from __future__ import annotations

from typing import Any

from memory.session_lock import SessionLocked, WaitingLock

SessionLock = WaitingLock  # the type both backends' locks share

__all__ = ["SessionLock", "SessionLocked", "lock_for"]


def lock_for(handle: Any, session_id: str, *, purpose: str = "") -> WaitingLock:
    """A not yet taken lock on `session_id` in the handle's database."""
    if handle.kind == "postgres":
        from memory.lock_pg import PgSessionLock

        return PgSessionLock(handle, session_id, purpose=purpose)
    from memory.session_lock import SessionLock as SqliteLock

    return SqliteLock(handle.path, session_id, purpose=purpose)
