"""The chat delivery ledger: replies and job answers a chat platform did not accept,
kept in the store (table `chat_outbox`, migration 0016_chat_outbox) until they are sent.

A row is one message for one chat (`platform`, `chat`, and the thread it answers in,
when there is one). It is sent again after the platform reconnects or the gateway
restarts (gateway/chat/kit/ledger.py), exactly once across every worker: a sender
claims it by ONE statement, `UPDATE chat_outbox SET attempts = attempts + 1, claimed =
:now WHERE id = :id AND attempts = :seen AND sent = 0` (like a cron fire's claim), and
only the worker whose update changed the row sends it; it is marked sent, or released
for a later attempt with its error. A claim older than STALE seconds (its worker died
mid-send) may be taken again.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memory.db import Handle, Row

STALE = 300.0  # s after which a claim of a worker that never finished is taken again
MAX_ATTEMPTS = 50  # then the row stays, unsent, with its error (never silently dropped)

# part of migration 0016_chat_outbox (memory/migrations.py, migrations_pg.py): never edit
OUTBOX_DDL = (
    "CREATE TABLE chat_outbox (id {id}, platform TEXT NOT NULL, chat TEXT NOT NULL,"
    " thread TEXT, text TEXT NOT NULL, kind TEXT NOT NULL DEFAULT 'reply',"
    " created {real} NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, claimed {real},"
    " sent INTEGER NOT NULL DEFAULT 0, error TEXT)")
OUTBOX_INDEX = "CREATE INDEX chat_outbox_due ON chat_outbox (platform, sent, id)"


class Outbox:
    """The ledger's rows on one store handle (see the module docstring)."""

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def keep(self, platform: str, chat: str, text: str, *, thread: str | None = None,
             kind: str = "reply", error: str | None = None) -> None:
        """A message the platform refused: kept until sent."""
        self.handle.execute(
            "INSERT INTO chat_outbox (platform, chat, thread, text, kind, created, error)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)", [platform, chat, thread, text, kind, time.time(), error])

    def waiting(self, platform: str, now: float | None = None) -> list[Row]:
        """The platform's unsent rows nobody holds a live claim on, oldest first."""
        now = time.time() if now is None else now
        return self.handle.rows(
            "SELECT * FROM chat_outbox WHERE platform = ? AND sent = 0 AND attempts < ?"
            " AND (claimed IS NULL OR claimed < ?) ORDER BY id",
            [platform, MAX_ATTEMPTS, now - STALE])

    def claim(self, row: Row, now: float | None = None) -> bool:
        """Take `row` for sending (False: another worker took it first)."""
        return self.handle.execute(
            "UPDATE chat_outbox SET attempts = attempts + 1, claimed = ? WHERE id = ?"
            " AND attempts = ? AND sent = 0",
            [time.time() if now is None else now, row["id"], row["attempts"]]) == 1

    def sent(self, row_id: int) -> None:
        self.handle.execute("UPDATE chat_outbox SET sent = 1, error = NULL WHERE id = ?", [row_id])

    def failed(self, row_id: int, error: str, rest: str | None = None) -> None:
        """Not accepted again: released for the next reconnect or restart. `rest`: the
        platform took the first pieces - only the rest is kept."""
        if rest is None:
            self.handle.execute("UPDATE chat_outbox SET claimed = NULL, error = ? WHERE id = ?",
                                [error[:500], row_id])
        else:
            self.handle.execute("UPDATE chat_outbox SET claimed = NULL, error = ?, text = ?"
                                " WHERE id = ?", [error[:500], rest, row_id])
