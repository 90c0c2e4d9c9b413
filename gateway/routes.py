"""The gateway's route table (HERMES_HOME/gateway.db): (owner, client session name) ->
stored session id. Nothing else: a session's choices (model, system text, personality,
reasoning settings) are stored with the session itself (agent/sessions/choices.py), so a rebuilt
agent - after an eviction, a restart or on another worker - restores them from its row.

Kept apart from the session store on purpose: it is the gateway's own bookkeeping;
the sessions, messages and usage themselves live in the store like any other session.
On PostgreSQL (HERMES_DATABASE_URL) the table lives in the same database, shared by
every gateway worker; on SQLite in its own HERMES_HOME/gateway.db
(`RouteTable.open(home, url)`). A table made by an earlier version keeps its former
choice columns (model, system, personality, reasoning), unused.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from memory.db import Handle
from memory.handles import open_handle, with_schema

_SCHEMA = """
CREATE TABLE IF NOT EXISTS routes (
    owner TEXT NOT NULL,
    name TEXT NOT NULL,
    session_id TEXT,
    updated TEXT NOT NULL,
    PRIMARY KEY (owner, name)
)
"""


@dataclass(frozen=True)
class Route:
    """One client session name and the stored session it continues (None: none yet)."""

    owner: str
    name: str
    session_id: str | None = None


class RouteTable:
    """Thread-safe table of routes on a database handle; every write commits at once."""

    def __init__(self, where: Path | Handle) -> None:
        """On a handle, or (tests, old callers) on the SQLite file at a path."""
        self.handle = with_schema(where, [_SCHEMA])

    @classmethod
    def open(cls, home: Path, database_url: str | None = None) -> RouteTable:
        """HERMES_HOME/gateway.db, or the PostgreSQL database of `database_url`."""
        return cls(open_handle(home, database_url, "gateway.db"))

    def get(self, owner: str, name: str) -> Route:
        """The route (a blank one when the client never used this name)."""
        rows = self.handle.rows(
            "SELECT session_id FROM routes WHERE owner = ? AND name = ?", (owner, name))
        return Route(owner, name, rows[0]["session_id"] if rows else None)

    def put(self, route: Route) -> None:
        """Insert or replace the route."""
        stamp = datetime.now(UTC).isoformat(timespec="seconds")
        self.handle.execute(
            "INSERT INTO routes (owner, name, session_id, updated) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (owner, name) DO UPDATE SET session_id = excluded.session_id,"
            " updated = excluded.updated",
            (route.owner, route.name, route.session_id, stamp))

    def close(self) -> None:
        self.handle.close()
