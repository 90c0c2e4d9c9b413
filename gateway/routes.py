"""The gateway's route table (HERMES_HOME/gateway.db): (owner, client session name) ->
stored session id, plus the per-session choices a client made (model, system text,
personality, reasoning settings) so that after a restart the session is rebuilt with the same settings and
therefore the same prompt bytes.

Kept apart from the session store on purpose: it is the gateway's own bookkeeping;
the sessions, messages and usage themselves live in the store like any other session.
On PostgreSQL (HERMES_DATABASE_URL) the table lives in the same database, shared by
every gateway worker; on SQLite in its own HERMES_HOME/gateway.db
(`RouteTable.open(home, url)`).
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
    model TEXT,
    system TEXT,
    personality TEXT,
    reasoning TEXT,
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
    reasoning: str | None = None  # agent.reasoning.Reasoning.as_text(), set by /reasoning


class RouteTable:
    """Thread-safe table of routes on a database handle; every write commits at once."""

    def __init__(self, where: Path | Handle) -> None:
        """On a handle, or (tests, old callers) on the SQLite file at a path."""
        self.handle = with_schema(where, [_SCHEMA])
        _add_reasoning_column(self.handle)

    @classmethod
    def open(cls, home: Path, database_url: str | None = None) -> RouteTable:
        """HERMES_HOME/gateway.db, or the PostgreSQL database of `database_url`."""
        return cls(open_handle(home, database_url, "gateway.db"))

    def get(self, owner: str, name: str) -> Route:
        """The route (a blank one when the client never used this name)."""
        rows = self.handle.rows(
            "SELECT session_id, model, system, personality, reasoning FROM routes"
            " WHERE owner = ? AND name = ?", (owner, name))
        if not rows:
            return Route(owner, name)
        row = rows[0]
        return Route(owner, name, row["session_id"], row["model"], row["system"],
                     row["personality"], row["reasoning"])

    def put(self, route: Route) -> None:
        """Insert or replace the route."""
        stamp = datetime.now(UTC).isoformat(timespec="seconds")
        self.handle.execute(
            "INSERT INTO routes (owner, name, session_id, model, system, personality,"
            " reasoning, updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (owner, name)"
            " DO UPDATE SET session_id = excluded.session_id, model = excluded.model,"
            " system = excluded.system, personality = excluded.personality,"
            " reasoning = excluded.reasoning, updated = excluded.updated",
            (route.owner, route.name, route.session_id, route.model, route.system,
             route.personality, route.reasoning, stamp))

    def close(self) -> None:
        self.handle.close()


def _add_reasoning_column(handle: Handle) -> None:
    """A routes table made before the `reasoning` column gets it (in one transaction, so
    workers starting together add it once)."""
    if handle.kind == "sqlite":
        columns = "SELECT name FROM pragma_table_info('routes')"
    else:
        columns = ("SELECT column_name AS name FROM information_schema.columns"
                   " WHERE table_name = 'routes' AND table_schema = current_schema()")
    with handle.transaction() as tx:
        if "reasoning" not in {row["name"] for row in tx.rows(columns)}:
            tx.execute("ALTER TABLE routes ADD COLUMN reasoning TEXT")
