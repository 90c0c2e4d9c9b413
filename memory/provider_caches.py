"""Explicit provider caches every process of an installation shares (migration 0014).

A provider whose cache is a named resource with a lifetime (Gemini's `cachedContents`)
records each cache here: its name, the key of the frozen prefix it holds, the model,
its size, expiry, how far its storage has been billed (the API's time, epoch seconds),
how many sessions use it (and ever used it) and whether it was deleted. A session with the same prefix in
another process finds it (`find`) instead of creating a second one; storage is billed
once, by whichever session moves `billed_until` (`put` is a plain upsert: the row is
the cache model's, agent/providers/gemini/cache_store.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memory.db import Handle, Row

COLUMNS = ("name", "key", "model", "tokens", "created", "expires", "billed_until",
           "stored_token_hours", "sessions", "deleted", "uses")
_UPSERT = (f"INSERT INTO provider_caches ({', '.join(COLUMNS)}) VALUES "
           f"({', '.join('?' for _ in COLUMNS)}) ON CONFLICT (name) DO UPDATE SET "
           + ", ".join(f"{c} = excluded.{c}" for c in COLUMNS[1:]))


def find(handle: Handle, key: str, now: float) -> Row | None:
    """The live cache (not deleted, expiring after `now`) of prefix `key`, the one
    living longest; None when there is none."""
    rows = handle.rows("SELECT * FROM provider_caches WHERE key = ? AND deleted = 0 AND "
                       "expires > ? ORDER BY expires DESC LIMIT 1", [key, now])
    return rows[0] if rows else None


def get(handle: Handle, name: str) -> Row | None:
    rows = handle.rows("SELECT * FROM provider_caches WHERE name = ?", [name])
    return rows[0] if rows else None


def put(handle: Handle, row: dict[str, object]) -> None:
    """Record a cache, or its new state, by name."""
    handle.execute(_UPSERT, [row[c] for c in COLUMNS])


def every(handle: Handle) -> list[Row]:
    return handle.rows("SELECT * FROM provider_caches ORDER BY created")
