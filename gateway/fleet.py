"""Many `hermes gateway` workers on one database (docs/SCALEOUT.md).

A worker keeps no state another worker needs: sessions, messages, usage, routes and
the stored prompt bytes live in the database. What the fleet shares through it:

- **one writer per session**: a turn holds the session's store lock
  (gateway/turn_lock.py); `hold_session` is that lock for any store - the store's own
  `session_lock` where it has one (PostgreSQL advisory lock), else the SQLite lock row;
- **keep-warm reads by the serving worker only**: `keeper_guard` is held around each
  idle-gap read; it refuses (and the keeper stops watching) once the stored history
  moved or the session's lock is held elsewhere - another worker serves it now;
- **leases** (`Leases`): a named, expiring hold for one worker - the Telegram poller's
  leader election (gateway/chat/leader.py). The store's `lease`/`release_lease` where it
  has them, else a table in HERMES_HOME/gateway.db (the workers of one host).
"""

from __future__ import annotations

import os
import secrets
import socket
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from memory.errors import store_error
from memory.private import private_file
from memory.session_lock import SessionLocked

#: the response header naming the worker that answered (affinity, debugging)
WORKER_HEADER = "X-Hermes-Worker"


def new_worker_id() -> str:
    """`host:pid:random` - unique across the fleet, readable in /health and logs."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


def hold_session(store: Any, session_id: str, *, wait: float | None,
                 purpose: str) -> AbstractContextManager[Any]:
    """The session's store lock (raises SessionLocked when `wait` runs out)."""
    own = getattr(store, "session_lock", None)
    if callable(own):
        return own(session_id, wait=wait, purpose=purpose)
    from memory.session_lock import session_lock

    return session_lock(store.path, session_id, wait=wait, purpose=purpose)


def keeper_guard(store: Any, agent: Any) -> Callable[[], AbstractContextManager[str]]:
    """For the cache keeper: a hold around one keep-warm read of `agent`'s session that
    yields "" when this worker still serves it, else why not (then nothing is sent)."""
    @contextmanager
    def guard() -> Iterator[str]:
        sid = agent.session_id
        try:
            with hold_session(store, sid, wait=0, purpose="keep-warm read"):
                if store.message_count(sid) != len(agent.conversation.messages):
                    yield "the stored history moved: another worker serves the session"
                    return
                yield ""
        except SessionLocked:
            yield "the session is held by another worker or process"
    return guard


_LEASES = """
CREATE TABLE IF NOT EXISTS fleet_leases (
    name TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    expires REAL NOT NULL
)
"""


class Leases:
    """Named expiring leases: the store's when it has them, else gateway.db's table."""

    def __init__(self, store: Any, path: Path, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.path = Path(path)
        self.clock = clock
        self._own = callable(getattr(store, "lease", None))
        self._lock = threading.Lock()
        self._made = False

    def lease(self, name: str, holder: str, ttl_s: float) -> bool:
        """Take or renew `name` for `holder` for `ttl_s` seconds; False while another
        holder's lease is unexpired."""
        if self._own:
            return bool(self.store.lease(name, holder, ttl_s))
        now = self.clock()
        with self._conn() as conn:
            conn.execute("BEGIN IMMEDIATE")
            row = conn.execute("SELECT holder, expires FROM fleet_leases WHERE name = ?",
                               [name]).fetchone()
            if row is not None and row[0] != holder and row[1] > now:
                conn.execute("ROLLBACK")
                return False
            conn.execute("INSERT OR REPLACE INTO fleet_leases (name, holder, expires)"
                         " VALUES (?, ?, ?)", [name, holder, now + ttl_s])
            conn.execute("COMMIT")
            return True

    def release(self, name: str, holder: str) -> None:
        """Drop `name` if `holder` still has it (a standby takes over at once)."""
        if self._own:
            self.store.release_lease(name, holder)
            return
        with self._conn() as conn:
            conn.execute("DELETE FROM fleet_leases WHERE name = ? AND holder = ?", [name, holder])

    @contextmanager
    def _conn(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                if not self._made:
                    private_file(self.path)
                conn = sqlite3.connect(str(self.path), timeout=5.0, isolation_level=None)
                try:
                    if not self._made:
                        conn.execute(_LEASES)
                        self._made = True
                    yield conn
                finally:
                    conn.close()
            except sqlite3.Error as exc:
                raise store_error(exc, self.path) from exc


class Fleet:
    """This worker's identity and its handles on what the workers share."""

    def __init__(self, store: Any, home: Path, worker_id: str | None = None) -> None:
        self.worker_id = worker_id or new_worker_id()
        self.store = store
        self.leases = Leases(store, Path(home) / "gateway.db")


class WorkerHeader:
    """ASGI middleware: every response names the worker that answered (`X-Hermes-Worker`),
    so a client or a load balancer's log shows where a session was served."""

    def __init__(self, app: Any, worker_id: str) -> None:
        self.app = app
        self.value = worker_id.encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def named(message: Any) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []),
                                                  (b"x-hermes-worker", self.value)]}
            await send(message)
        await self.app(scope, receive, named)


def use_database_url(url: str | None) -> None:
    """`hermes gateway --database-url URL`: the store opener (frontend/setup.py) reads
    HERMES_DATABASE_URL, so the flag sets it for this process (it wins over the
    environment and config.yaml). A URL this build cannot open is one clear line."""
    if url is None:
        return
    from agent.errors import ConfigError

    scheme = url.partition(":")[0].lower()
    if scheme not in ("postgresql", "postgres", "sqlite") or ":" not in url:
        raise ConfigError(f"--database-url {url!r} is not a database URL",
                          "give postgresql://user@host:port/dbname (or drop it for SQLite "
                          "in HERMES_HOME)")
    import memory

    if scheme != "sqlite" and not hasattr(memory, "open_store"):  # no PostgreSQL backend
        raise ConfigError("this build keeps sessions in SQLite only; --database-url "
                          f"{scheme}://... needs the PostgreSQL store",
                          "drop --database-url: workers on one host share HERMES_HOME's "
                          "SQLite files")
    os.environ["HERMES_DATABASE_URL"] = url
