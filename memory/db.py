"""The portable database handle the store, locks, leases and the gateway's tables use.

Two implementations: `memory.db_sqlite.SqliteHandle` (a file, through sqlite-utils) and
`memory.db_postgres.PostgresHandle` (a URL, through psycopg 3, imported only when a
PostgreSQL URL is used). SQL is written once with `?` placeholders (`?N` numbered ones
too); the PostgreSQL handle translates them. Where the dialects must differ (DDL,
full-text search, aggregates over booleans, rowid ordering) the caller asks `kind`.

Every method holds the handle's lock, so one handle may be shared by threads; outside
`transaction()` each statement commits at once. Errors become `StoreError` (one line:
what is wrong, and the fix).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

#: one row as `rows` returns it: column name -> value (whatever type the column holds)
Row = dict[str, Any]


class Handle(Protocol):
    """A connection to the store's database (see the module docstring)."""

    kind: str  # "sqlite" | "postgres"
    where: str  # a path, or the URL with its password masked: for messages

    def rows(self, sql: str, params: Iterable[object] = ()) -> list[Row]:
        """Run a query; its rows as dicts."""

    def execute(self, sql: str, params: Iterable[object] = ()) -> int:
        """Run a statement; the number of rows it changed."""

    def insert(self, table: str, row: Mapping[str, object]) -> int:
        """Insert one row into a table with an `id` key; return the new id."""

    def transaction(self) -> AbstractContextManager[Handle]:
        """Hold a write transaction (SQLite `BEGIN IMMEDIATE`) for the body; commit on
        success, roll back on an exception."""

    def ensure_schema(self, statements: Sequence[str]) -> None:
        """Run idempotent DDL (`CREATE ... IF NOT EXISTS`), safe against other
        processes running it at the same moment."""

    def close(self) -> None:
        """Close the connection."""


def insert_sql(table: str, row: Mapping[str, object]) -> tuple[str, list[object]]:
    """`INSERT INTO table (cols) VALUES (?, ...) RETURNING id` and its parameters.
    Column names come from our own code, never from input."""
    cols = list(row)
    marks = ", ".join("?" * len(cols))
    return (f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({marks}) RETURNING id",  # noqa: S608
            [row[c] for c in cols])


def is_postgres_url(url: str | None) -> bool:
    """True for a postgresql:// (or postgres://) URL."""
    return url is not None and url.split(":", 1)[0].lower() in ("postgresql", "postgres")
