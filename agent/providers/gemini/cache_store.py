"""Which Gemini explicit caches exist: one per frozen prefix, not per session.

A session (or gateway chat, or sub-agent) whose frozen prefix - model, tools, tool
config, system instruction - hashes to a key with a live cache uses that cache; nothing
creates a second one. The ledger also holds each cache's expiry and how far its storage
has been billed (`billed_until`, server time), so storage accrues once, to whichever
session reports it first, however many share the cache.

`Ledger` is what the cache model asks; `MemoryLedger` serves one process (the default:
every session of a gateway shares it); `StoreLedger` (memory/provider_caches.py, the
session store's `provider_caches` table, migration 0014) serves every process of an
installation.
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass, replace
from typing import Any, Protocol

from memory import provider_caches


@dataclass(frozen=True)
class CacheRow:
    """One explicit cache: its resource `name` ("cachedContents/..."), prefix `key`,
    model, size, expiry and storage billed so far (server epoch seconds)."""

    name: str
    key: str
    model: str
    tokens: int
    created: float
    expires: float
    billed_until: float
    stored_token_hours: float = 0.0
    sessions: int = 1  # sessions using it now
    deleted: bool = False
    uses: int = 1  # sessions that ever used it (how often one comes back: keep_after_exit)


class Ledger(Protocol):
    def find(self, key: str, now: float) -> CacheRow | None:
        """The live cache of prefix `key` at server time `now` (None: none)."""
        ...

    def put(self, row: CacheRow) -> None:
        """Record a new cache or a changed one (by name)."""
        ...

    def get(self, name: str) -> CacheRow | None: ...

    def rows(self) -> list[CacheRow]: ...


class MemoryLedger:
    """The caches one process knows (thread-safe)."""

    def __init__(self) -> None:
        self._rows: dict[str, CacheRow] = {}
        self._lock = threading.Lock()

    def find(self, key: str, now: float) -> CacheRow | None:
        with self._lock:
            live = [r for r in self._rows.values()
                    if r.key == key and not r.deleted and r.expires > now]
        return max(live, key=lambda r: r.expires, default=None)

    def put(self, row: CacheRow) -> None:
        with self._lock:
            self._rows[row.name] = row

    def get(self, name: str) -> CacheRow | None:
        with self._lock:
            return self._rows.get(name)

    def rows(self) -> list[CacheRow]:
        with self._lock:
            return list(self._rows.values())


def accrue(row: CacheRow, now: float) -> tuple[CacheRow, float]:
    """Storage of `row` from what was billed up to `now` (never past its expiry):
    (the row billed up to there, the token-hours added)."""
    until = min(now, row.expires)
    if until <= row.billed_until:
        return row, 0.0
    hours = row.tokens * (until - row.billed_until) / 3600.0
    return replace(row, billed_until=until, stored_token_hours=row.stored_token_hours + hours), hours


def refund_after(row: CacheRow, now: float) -> tuple[CacheRow, float]:
    """A cache deleted at `now` before the time its storage was billed to: (the row
    billed to `now`, the token-hours to give back)."""
    if now >= row.billed_until:
        return row, 0.0
    hours = row.tokens * (row.billed_until - max(now, row.created)) / 3600.0
    return replace(row, billed_until=now, stored_token_hours=row.stored_token_hours - hours), hours


PROCESS_LEDGER = MemoryLedger()  # every session of this process shares it


class StoreLedger:
    """The caches of every process on one session store (memory/provider_caches.py)."""

    def __init__(self, handle: Any) -> None:
        self.handle = handle  # memory.db.Handle

    def find(self, key: str, now: float) -> CacheRow | None:
        row = provider_caches.find(self.handle, key, now)
        return None if row is None else _row(row)

    def put(self, row: CacheRow) -> None:
        provider_caches.put(self.handle, {**asdict(row), "deleted": int(row.deleted)})

    def get(self, name: str) -> CacheRow | None:
        row = provider_caches.get(self.handle, name)
        return None if row is None else _row(row)

    def rows(self) -> list[CacheRow]:
        return [_row(r) for r in provider_caches.every(self.handle)]


def _row(row: Any) -> CacheRow:
    return CacheRow(name=row["name"], key=row["key"], model=row["model"], tokens=int(row["tokens"]),
                    created=float(row["created"]), expires=float(row["expires"]),
                    billed_until=float(row["billed_until"]),
                    stored_token_hours=float(row["stored_token_hours"]),
                    sessions=int(row["sessions"]), deleted=bool(row["deleted"]),
                    uses=int(row["uses"]))
