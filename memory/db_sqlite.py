"""The SQLite implementation of `memory.db.Handle` (sqlite-utils on one file).

WAL mode, `synchronous=NORMAL`, a busy timeout for other processes' write locks, text
made storable on the way in (`memory._connection`). One connection shared by threads
under an `RLock`; a transaction is `BEGIN IMMEDIATE` ... `COMMIT`.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from sqlite_utils import Database

from memory._connection import StorableConnection, connect_read_only
from memory.db import Row, insert_sql
from memory.errors import store_error
from memory.private import private_file

BUSY_TIMEOUT_S = 5.0


def _enable_wal(db: Database, timeout: float) -> None:
    """Switch the file to WAL. SQLite refuses the switch at once ("database is locked",
    no busy handler) while another connection holds the file, which happens when several
    processes open a new database together: retried with a short backoff until `timeout`."""
    deadline = time.monotonic() + timeout
    delay = 0.005
    while True:
        try:
            db.enable_wal()
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() + delay > deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.1)


class SqliteHandle:
    """A database file; see the module docstring."""

    kind = "sqlite"

    def __init__(self, path: Path, *, busy_timeout: float = BUSY_TIMEOUT_S,
                 read_only: bool = False) -> None:
        self.path = Path(path)
        self.where = str(self.path)
        self.busy_timeout = busy_timeout
        self._lock = threading.RLock()
        self._depth = 0
        with self._translated():
            if read_only:
                self.db = Database(connect_read_only(str(self.path), busy_timeout),
                                   execute_plugins=False)
                return
            private_file(self.path)
            conn = sqlite3.connect(str(self.path), timeout=busy_timeout,
                                   check_same_thread=False, factory=StorableConnection)
            try:
                self.db = Database(conn, execute_plugins=False)
                self.db.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
                _enable_wal(self.db, busy_timeout)
                self.db.execute("PRAGMA synchronous = NORMAL")
            except BaseException:
                conn.close()
                raise

    @contextmanager
    def guarded(self) -> Iterator[Database]:
        """Hold the lock with errors translated, for code that drives sqlite-utils
        itself (the migrations)."""
        with self._lock, self._translated():
            yield self.db

    @contextmanager
    def _translated(self) -> Iterator[None]:
        """sqlite3 / OS errors -> a StoreError naming the file and the fix."""
        try:
            yield
        except (sqlite3.Error, OSError) as exc:
            raise store_error(exc, self.path, self.busy_timeout) from exc

    def rows(self, sql: str, params: Iterable[object] = ()) -> list[Row]:
        with self._lock, self._translated():
            return list(self.db.query(sql, list(params)))

    def execute(self, sql: str, params: Iterable[object] = ()) -> int:
        with self.transaction():  # a write outside one commits at once
            return self.db.execute(sql, list(params)).rowcount

    def insert(self, table: str, row: Mapping[str, object]) -> int:
        sql, params = insert_sql(table, row)
        with self.transaction():
            return int(self.db.execute(sql, params).fetchone()[0])

    @contextmanager
    def transaction(self) -> Iterator[SqliteHandle]:
        with self._lock, self._translated():
            if self._depth:  # already inside one: it is the same transaction
                yield self
                return
            conn = self.db.conn
            conn.execute("BEGIN IMMEDIATE")
            self._depth += 1
            try:
                yield self
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            finally:
                self._depth -= 1
            conn.execute("COMMIT")

    def ensure_schema(self, statements: Sequence[str]) -> None:
        with self.transaction():
            for statement in statements:
                self.db.execute(statement)

    def close(self) -> None:
        with self._lock:
            self.db.close()
