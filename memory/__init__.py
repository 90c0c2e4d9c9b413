"""Persistent state of hermes: the session store (SQLite or PostgreSQL) and the
MEMORY.md/USER.md notes.

Import the submodules directly (`memory.store`, `memory.notes`, `memory.threats`,
`memory.errors`); this package imports nothing and does nothing at import time.
`open_store` is the one way to open the session store.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memory.store import SessionStore


def open_store(home: Path, database_url: str | None = None, *,
               read_only: bool = False) -> SessionStore:
    """The session store: SQLite at `home/state.db` when there is no URL, else the
    PostgreSQL database the URL names (psycopg is imported only then)."""
    from memory.handles import open_handle
    from memory.store import SessionStore

    handle = open_handle(home, database_url, "state.db", read_only=read_only)
    return SessionStore(handle=handle, read_only=read_only)
