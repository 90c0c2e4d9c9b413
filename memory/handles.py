"""Open the database a home and an optional URL name (`memory.db.Handle`)."""

from __future__ import annotations

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
