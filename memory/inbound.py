"""Messages already taken: the first worker to see a platform's message id answers it, a
second delivery of the same id (a webhook retried, or delivered twice - to this worker
after a restart, or to another worker behind the same address) is dropped. Table
`chat_inbound` (migration 0017_chat_inbound), claimed by ONE statement:
`INSERT ... ON CONFLICT DO NOTHING` changes one row for exactly one caller, on SQLite
and PostgreSQL alike. Ids older than KEPT are pruned (the platforms retry for less).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memory.db import Handle

KEPT = 8 * 86400.0  # s: WhatsApp retries an unacknowledged webhook for up to 7 days

# migration 0017_chat_inbound (memory/migrations.py, migrations_pg.py): never edit
INBOUND_DDL = ("CREATE TABLE chat_inbound (platform TEXT NOT NULL, message TEXT NOT NULL,"
               " seen {real} NOT NULL, PRIMARY KEY (platform, message))")
INBOUND_INDEX = "CREATE INDEX chat_inbound_seen ON chat_inbound (seen)"


class Taken:
    """The claims on one store handle (see the module docstring)."""

    def __init__(self, handle: Handle) -> None:
        self.handle = handle

    def first(self, platform: str, message: str, now: float | None = None) -> bool:
        """True for exactly one caller per (platform, message id), across workers."""
        return self.handle.execute(
            "INSERT INTO chat_inbound (platform, message, seen) VALUES (?, ?, ?)"
            " ON CONFLICT DO NOTHING", [platform, message, time.time() if now is None else now]) == 1

    def prune(self, now: float | None = None) -> int:
        """Forget ids seen more than KEPT ago; how many."""
        return self.handle.execute("DELETE FROM chat_inbound WHERE seen < ?",
                                   [(time.time() if now is None else now) - KEPT])
