"""The session lock on PostgreSQL: a session-level advisory lock plus the holder row.

`pg_try_advisory_lock(key)` on a connection of the lock's own, held for the lock's
life: only one connection in the whole database can hold the key, and when the holding
process dies (or its connection is cut) PostgreSQL releases it at once - no heartbeat,
no staleness rule. The `session_locks` row beside it (pid, host, purpose, since when)
is only there to name the holder in `SessionLocked`; a new holder overwrites the row a
crashed one left. Connections come from the store handle's spares and go back there
after an unlock (a new connection costs more than the lock).
"""

from __future__ import annotations

import os
import secrets
import socket
import time
from typing import TYPE_CHECKING

import psycopg

from memory.db_postgres import PostgresHandle, connection_error, lock_key
from memory.session_lock import Holder, WaitingLock

if TYPE_CHECKING:
    from psycopg.rows import DictRow

_UPSERT = (
    "INSERT INTO session_locks (session_id, token, pid, host, purpose, started, heartbeat)"
    " VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (session_id) DO UPDATE SET"
    " token = excluded.token, pid = excluded.pid, host = excluded.host,"
    " purpose = excluded.purpose, started = excluded.started, heartbeat = excluded.heartbeat"
)
_HOLDER = ("SELECT pid, host, purpose, started, heartbeat FROM session_locks"
           " WHERE session_id = %s")


class PgSessionLock(WaitingLock):
    """A held (or not yet taken) lock on one session in PostgreSQL."""

    def __init__(self, handle: PostgresHandle, session_id: str, *, purpose: str = "") -> None:
        self.handle = handle
        self.session_id = session_id
        self.purpose = purpose
        self.key = lock_key(f"hermes-session:{session_id}")
        self.token = secrets.token_hex(16)
        self.pid = os.getpid()
        self.host = socket.gethostname()
        self._conn: psycopg.Connection[DictRow] | None = None  # holds the advisory lock

    def try_acquire(self) -> Holder | None:
        """Take the lock if no connection holds it; None on success, else its holder."""
        if self._conn is not None:
            return None  # held already (re-entrant for this lock object)
        conn = self.handle.spare_connection()
        try:
            try:
                got = conn.execute("SELECT pg_try_advisory_lock(%s) AS got", [self.key])
            except psycopg.OperationalError:  # a spare the server dropped: one fresh try
                conn.close()
                conn = self.handle.spare_connection()
                got = conn.execute("SELECT pg_try_advisory_lock(%s) AS got", [self.key])
            row = got.fetchone()
            if row is not None and row["got"]:
                now = time.time()
                conn.execute(_UPSERT, [self.session_id, self.token, self.pid, self.host,
                                       self.purpose, now, now])
                self._conn = conn
                return None
            row = conn.execute(_HOLDER, [self.session_id]).fetchone()
        except psycopg.Error as exc:
            conn.close()
            raise connection_error(exc, self.handle.url) from exc
        self.handle.give_back(conn)
        if row is None:  # taken a moment ago, its row not written yet
            return Holder(0, "?", "", time.time(), time.time())
        return Holder(row["pid"], row["host"], row["purpose"], row["started"], row["heartbeat"])

    def release(self) -> None:
        """Drop the holder row (if still ours) and the advisory lock."""
        conn, self._conn = self._conn, None
        if conn is None:
            return
        try:
            conn.execute("DELETE FROM session_locks WHERE session_id = %s AND token = %s",
                         [self.session_id, self.token])
            conn.execute("SELECT pg_advisory_unlock(%s)", [self.key])
        except psycopg.Error:
            conn.close()  # a dropped connection released the lock already
            return
        self.handle.give_back(conn)

    @property
    def backend_pid(self) -> int | None:
        """The server process id of the holding connection (None when not held)."""
        return self._conn.info.backend_pid if self._conn is not None else None
