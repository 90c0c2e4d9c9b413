"""The store's sqlite3 connection: every str parameter is made storable first.

This is the one chokepoint between Python text and SQLite: a path, argv word or tool
output carrying a lone surrogate is stored with visible escapes (memory/text.py)
instead of failing the write with UnicodeEncodeError and losing the turn.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from memory.text import storable_params


class StorableConnection(sqlite3.Connection):
    """`sqlite3.Connection` whose execute/executemany escape lone surrogates."""

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:
        return super().execute(sql, storable_params(parameters))

    def executemany(self, sql: str, seq: Any, /) -> sqlite3.Cursor:
        return super().executemany(sql, (storable_params(p) for p in seq))


def connect_read_only(path: str, busy_timeout: float) -> sqlite3.Connection:
    """A read-only connection to an existing database, for a read-only HERMES_HOME.

    `mode=ro` first (sees the WAL when its -shm can be used); when SQLite cannot even
    do that (no -shm on a read-only mount), `immutable=1`: the main file as it is."""
    from urllib.parse import quote

    last: sqlite3.Error | None = None
    for flags in ("mode=ro", "mode=ro&immutable=1"):
        conn = sqlite3.connect(f"file:{quote(path)}?{flags}", uri=True, timeout=busy_timeout,
                               check_same_thread=False, factory=StorableConnection)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.Error as exc:
            conn.close()
            last = exc
    assert last is not None
    raise last
