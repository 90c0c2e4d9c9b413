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

    def execute(self, sql: str, parameters: Any = (), /) -> sqlite3.Cursor:  # type: ignore[override]
        return super().execute(sql, storable_params(parameters))

    def executemany(self, sql: str, seq: Any, /) -> sqlite3.Cursor:  # type: ignore[override]
        return super().executemany(sql, (storable_params(p) for p in seq))
