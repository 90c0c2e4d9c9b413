"""Open the database a home and an optional URL name (`memory.db.Handle`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from memory.db import Handle


def open_handle(home: Path, database_url: str | None, sqlite_name: str, *,
                read_only: bool = False) -> Handle:
    """`home/sqlite_name` when there is no URL, else the PostgreSQL database of the URL
    (psycopg is imported only then)."""
    if not database_url:
        from memory.db_sqlite import SqliteHandle

        return SqliteHandle(Path(home) / sqlite_name, read_only=read_only)
    from memory.db_postgres import PostgresHandle, check_url

    check_url(database_url)
    return PostgresHandle(database_url, read_only=read_only)


def with_schema(where: Path | Handle, statements: Sequence[str]) -> Handle:
    """A handle (or the SQLite file at a path) with idempotent DDL applied; closed again
    when that fails. For tables outside the store's migrations (the gateway's own)."""
    handle = open_handle(Path(where).parent, None, Path(where).name) \
        if isinstance(where, (str, Path)) else where
    try:
        handle.ensure_schema(statements)
    except BaseException:
        handle.close()
        raise
    return handle
