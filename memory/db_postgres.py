"""The PostgreSQL implementation of `memory.db.Handle` (psycopg 3).

Imported only when a PostgreSQL URL is configured (start-up time is measured: psycopg
is not loaded for SQLite users). One autocommit connection shared by threads under an
`RLock`; `transaction()` is a PostgreSQL transaction. `?` / `?N` placeholders are
translated to psycopg's `%s`. A connection the server dropped is reopened on the next
call. PostgreSQL text cannot hold NUL, so a NUL character is stored as the visible
escape `\\x00` (as lone surrogates are on both backends, memory/text.py).
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from urllib.parse import urlsplit

import psycopg
from psycopg.rows import DictRow, dict_row

from memory.db import Row, insert_sql, is_postgres_url
from memory.errors import StoreError
from memory.redact import redact_url
from memory.text import storable_value

CONNECT_TIMEOUT_S = 5
MAX_IDLE = 8  # spare connections kept for session locks
_MARK = re.compile(r"\?(\d*)")


def check_url(url: str) -> None:
    """Raise StoreError unless `url` looks like postgresql://[user[:pw]@]host[:port]/db."""
    shown = redact_url(url)
    fix = "write it as postgresql://USER:PASSWORD@HOST:5432/DATABASE"
    if not is_postgres_url(url):
        raise StoreError(f"database URL {shown} is not a PostgreSQL URL", f"{fix}.")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as exc:
        raise StoreError(f"database URL {shown} is malformed ({exc})", f"{fix}.") from None
    if not parts.path.strip("/"):
        raise StoreError(f"database URL {shown} names no database", f"{fix}.")


def translate(sql: str, params: Iterable[object]) -> tuple[str, list[object]]:
    """SQL with `?` / `?N` marks -> psycopg's `%s` and the parameters in mark order."""
    given = list(params)
    out: list[object] = []

    def mark(match: re.Match[str]) -> str:
        out.append(given[int(match.group(1)) - 1] if match.group(1) else given[len(out)])
        return "%s"

    text = _MARK.sub(mark, sql.replace("%", "%%"))
    return text, [_storable(v) for v in out]


def _storable(value: object) -> object:
    value = storable_value(value)
    if isinstance(value, str) and "\x00" in value:
        return value.replace("\x00", "\\x00")
    return value


def lock_key(name: str) -> int:
    """A signed 64-bit advisory-lock key for a name (stable across processes)."""
    digest = hashlib.blake2b(name.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def connection_error(exc: BaseException, url: str) -> StoreError:
    """One clear line for a connection that failed: unreachable, auth, no database."""
    shown = redact_url(url)
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    reason = first.rsplit(" failed: ", 1)[-1].removeprefix("FATAL:").strip()
    low = reason.lower()
    if "password" in low or "authentication" in low:
        hint = "check the user name and password in the database URL"
    elif "does not exist" in low:
        hint = "create that database (createdb NAME) or name an existing one in the URL"
    else:
        hint = "start PostgreSQL or fix the host and port in the database URL"
    return StoreError(f"cannot use the PostgreSQL database {shown}: {reason}",
                      f"{hint[0].upper()}{hint[1:]}.")


def connect(url: str) -> psycopg.Connection[DictRow]:
    """An autocommit connection returning dict rows; errors -> StoreError."""
    try:
        return psycopg.connect(url, autocommit=True, row_factory=dict_row,
                               connect_timeout=CONNECT_TIMEOUT_S)
    except (psycopg.Error, ValueError) as exc:
        raise connection_error(exc, url) from None


class PostgresHandle:
    """A PostgreSQL database; see the module docstring."""

    kind = "postgres"

    def __init__(self, url: str, *, read_only: bool = False) -> None:
        self.url = url
        self.where = str(redact_url(url))
        self.read_only = read_only
        self._lock = threading.RLock()
        self._depth = 0
        self._idle: list[psycopg.Connection[DictRow]] = []  # spare connections for session locks
        self._conn = self._open()

    def _open(self) -> psycopg.Connection[DictRow]:
        conn = connect(self.url)
        if self.read_only:
            conn.execute("SET default_transaction_read_only = on")
        return conn

    @contextmanager
    def _translated(self) -> Iterator[psycopg.Connection[DictRow]]:
        if self._conn.closed and not self._depth:
            self._conn = self._open()
        try:
            yield self._conn
        except psycopg.OperationalError as exc:
            raise connection_error(exc, self.url) from exc
        except psycopg.Error as exc:
            line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise StoreError(f"session store {self.where}: {line}",
                             "Check the database; `hermes sessions list` tells whether "
                             "the store can be read at all.") from exc

    def rows(self, sql: str, params: Iterable[object] = ()) -> list[Row]:
        text, values = translate(sql, params)
        with self._lock:
            try:
                return self._fetch(text, values)
            except StoreError:
                # a read on a connection the server dropped (a restart, a terminated
                # backend) is tried once more on a new one; a write never is
                if not (self._conn.closed and not self._depth
                        and text.lstrip()[:6].upper() == "SELECT"):
                    raise
            return self._fetch(text, values)

    def _fetch(self, text: str, values: list[object]) -> list[Row]:
        with self._translated() as conn:
            cursor = conn.execute(text, values)
            return list(cursor.fetchall()) if cursor.description else []

    def execute(self, sql: str, params: Iterable[object] = ()) -> int:
        text, values = translate(sql, params)
        with self._lock, self._translated() as conn:
            return conn.execute(text, values).rowcount

    def insert(self, table: str, row: Mapping[str, object]) -> int:
        return int(self.rows(*insert_sql(table, row))[0]["id"])

    @contextmanager
    def transaction(self) -> Iterator[PostgresHandle]:
        with self._lock:
            if self._depth:
                yield self
                return
            with self._translated() as conn, conn.transaction():
                self._depth += 1
                try:
                    yield self
                finally:
                    self._depth -= 1

    def ensure_schema(self, statements: Sequence[str]) -> None:
        with self.transaction():
            self.execute("SELECT pg_advisory_xact_lock(?)", [lock_key("hermes-schema")])
            for statement in statements:
                self.execute(statement)

    def spare_connection(self) -> psycopg.Connection[DictRow]:
        """A connection of its own (for a session lock's life): an idle one given back
        earlier, else a new one - connecting costs more than the lock itself."""
        with self._lock:
            while self._idle:
                conn = self._idle.pop()
                if not conn.closed:
                    return conn
        return connect(self.url)

    def give_back(self, conn: psycopg.Connection[DictRow]) -> None:
        """Keep a spare connection (holding no lock) for the next one, or close it."""
        with self._lock:
            if conn.closed or self._conn.closed or len(self._idle) >= MAX_IDLE:
                conn.close()
            else:
                self._idle.append(conn)

    def close(self) -> None:
        with self._lock:
            for conn in self._idle:
                conn.close()
            self._idle.clear()
            self._conn.close()
