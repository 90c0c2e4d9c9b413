"""The gateway's route table (HERMES_HOME/gateway.db): (owner, client session name) ->
stored session id, plus the per-session choices a client made (model, system text,
personality) so that after a restart the session is rebuilt with the same settings and
therefore the same prompt bytes.

Kept apart from the session store on purpose: it is the gateway's own bookkeeping;
the sessions, messages and usage themselves live in state.db like any other session.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from memory.errors import store_error
from memory.private import private_file

_SCHEMA = """
CREATE TABLE IF NOT EXISTS routes (
    owner TEXT NOT NULL,
    name TEXT NOT NULL,
    session_id TEXT,
    model TEXT,
    system TEXT,
    personality TEXT,
    updated TEXT NOT NULL,
    PRIMARY KEY (owner, name)
)
"""


@dataclass(frozen=True)
class Route:
    """One client session. None fields = not chosen (server defaults apply)."""

    owner: str
    name: str
    session_id: str | None = None
    model: str | None = None
    system: str | None = None
    personality: str | None = None


class RouteTable:
    """Thread-safe SQLite table of routes; every write is committed at once."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        private_file(self.path)
        self._lock = threading.Lock()
        with self._guard():
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._conn = sqlite3.connect(str(self.path), timeout=5.0, check_same_thread=False)
            try:
                self._conn.execute("PRAGMA journal_mode = WAL")
                self._conn.execute("PRAGMA synchronous = NORMAL")
                self._conn.execute(_SCHEMA)
                self._conn.commit()
            except BaseException:
                self._conn.close()
                raise

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """Hold the lock; a corrupt, locked or unwritable gateway.db becomes a StoreError
        saying what is wrong and how to fix it (never an sqlite3 traceback)."""
        with self._lock:
            try:
                yield
            except (sqlite3.Error, OSError) as exc:
                raise store_error(exc, self.path) from exc

    def get(self, owner: str, name: str) -> Route:
        """The route (a blank one when the client never used this name)."""
        with self._guard():
            row = self._conn.execute(
                "SELECT session_id, model, system, personality FROM routes"
                " WHERE owner = ? AND name = ?", (owner, name)).fetchone()
        if row is None:
            return Route(owner, name)
        return Route(owner, name, *row)

    def put(self, route: Route) -> None:
        """Insert or replace the route."""
        stamp = datetime.now(UTC).isoformat(timespec="seconds")
        with self._guard():
            self._conn.execute(
                "INSERT OR REPLACE INTO routes (owner, name, session_id, model, system,"
                " personality, updated) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (route.owner, route.name, route.session_id, route.model, route.system,
                 route.personality, stamp))
            self._conn.commit()

    def close(self) -> None:
        with self._lock:
            self._conn.close()
