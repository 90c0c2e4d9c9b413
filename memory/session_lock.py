"""One process drives a session at a time: a lock row per session in state.db.

(This is the SQLite lock; `memory.lock_pg` is PostgreSQL's. Take either through the
store: `store.session_lock(...)` / `store.lock_session(...)`.)

`session_lock(path, session_id)` is a context manager holding the row
`session_locks(session_id, token, pid, host, purpose, started, heartbeat)` for its
body. Taking it is one `BEGIN IMMEDIATE` transaction (so two processes, or two gateway
workers on one database, cannot both win), and a held lock is refreshed by a heartbeat
thread - one per process for every held lock, so a gateway turn starts no thread. The
locks of a process share one connection per database file (opening one, and SQLite
reading the schema on its first statement, cost more than the lock itself). A row is stale - and is taken over in that same transaction - when its pid is
gone on this host, or its heartbeat is older than `stale_after` (a frozen process, or
one on another host). Release deletes the row only if our token still owns it.

A held lock raises `SessionLocked` naming the holder, unless `wait` allows waiting.
"""

from __future__ import annotations

import os
import secrets
import socket
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from memory.errors import HermesMemoryError, store_error

HEARTBEAT_S = 5.0
STALE_AFTER_S = 30.0
_POLL_S = (0.02, 0.5)  # first and largest pause between tries while waiting


@dataclass(frozen=True)
class Holder:
    """Who holds a session's lock."""

    pid: int
    host: str
    purpose: str
    started: float
    heartbeat: float

    def describe(self, now: float | None = None) -> str:
        """`pid 123 on host h (hermes -q, for 4 s)`."""
        age = max(0.0, (now or time.time()) - self.started)
        what = f", {self.purpose}" if self.purpose else ""
        return f"pid {self.pid} on {self.host}{what}, for {age:.0f} s"


class SessionLocked(HermesMemoryError):
    """Another live process drives this session."""

    def __init__(self, session_id: str, holder: Holder) -> None:
        super().__init__(
            f"session {session_id} is in use by another hermes ({holder.describe()})",
            "wait for it to finish, or pass --wait-lock to wait for it; a lock left by a "
            "killed process is taken over by itself",
        )
        self.session_id = session_id
        self.holder = holder


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), timeout=5.0, isolation_level=None,
                           check_same_thread=False)
    conn.execute("PRAGMA busy_timeout = 5000")
    # no fsync per take/release (the store's own setting, WAL): a lock row lost to a
    # power cut is a free lock, which is what the holder's death means anyway
    conn.execute("PRAGMA synchronous = NORMAL")
    return conn


class _Shared:
    """The connections the locks of this process use, one per database file (the few
    used last kept open), each used by one thread at a time (`use`)."""

    KEEP = 4

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.mutex = threading.Lock()
        self.open: OrderedDict[tuple[str, int], sqlite3.Connection] = OrderedDict()
        self.inherited: list[sqlite3.Connection] = []

    @contextmanager
    def use(self, path: Path) -> Iterator[sqlite3.Connection]:
        """The connection to `path`, held for the body; a failed statement rolls back
        and drops it (the next use opens a fresh one)."""
        try:
            key = (str(path), os.stat(path).st_ino)  # a file replaced at the path: new key
        except OSError:
            key = (str(path), -1)
        if self.pid != os.getpid():
            self.forked()
        with self.mutex:
            conn = self.open.pop(key, None) or _connect(path)
            try:
                yield conn
            except BaseException:
                try:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    self.open[key] = conn
                except sqlite3.Error:
                    conn.close()
                raise
            self.open[key] = conn  # the most recently used last
            while len(self.open) > self.KEEP:
                self.open.popitem(last=False)[1].close()

    def forked(self) -> None:
        """In a forked child: never use (nor close) the parent's connections."""
        self.pid = os.getpid()
        self.mutex = threading.Lock()
        self.inherited.extend(self.open.values())
        self.open = OrderedDict()


class _Heart:
    """The heartbeat thread of this process: refreshes every held lock at least every
    `heartbeat_every` seconds; it ends when it wakes up to no held lock."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.cond = threading.Condition()
        self.held: dict[int, SessionLock] = {}
        self.thread: threading.Thread | None = None
        self.period = HEARTBEAT_S

    def add(self, lock: SessionLock) -> None:
        if self.pid != os.getpid():
            self.forked()
        with self.cond:
            self.held[id(lock)] = lock
            if self.thread is None:
                self.period = lock.heartbeat_every
                self.thread = threading.Thread(target=self._run, name="hermes-session-lock",
                                               daemon=True)
                self.thread.start()
            elif lock.heartbeat_every < self.period:
                self.period = lock.heartbeat_every
                self.cond.notify()

    def remove(self, lock: SessionLock) -> None:
        if self.pid != os.getpid():
            self.forked()
        with self.cond:
            self.held.pop(id(lock), None)

    def _run(self) -> None:
        while True:
            with self.cond:
                self.cond.wait(self.period)
                locks = list(self.held.values())
                if not locks:
                    self.thread = None
                    return
                self.period = min(lock.heartbeat_every for lock in locks)
            for lock in locks:
                lock.beat()

    def forked(self) -> None:
        """In a forked child: no thread runs and no lock is held."""
        self.pid = os.getpid()
        self.cond = threading.Condition()
        self.held = {}
        self.thread = None


# A forked child finds out on first use (a pid check), never in an at-fork handler: one
# would run Python code in every command's pre-exec child of this multi-threaded process.
_SHARED = _Shared()
_HEART = _Heart()


class WaitingLock:
    """The waiting part every session lock shares: `acquire(wait)` retries
    `try_acquire()` (None = taken, else the holder) with a growing pause until the
    deadline, then raises SessionLocked naming the holder."""

    session_id: str

    def try_acquire(self) -> Holder | None:
        raise NotImplementedError

    def _held(self) -> None:
        """Called once the lock is taken."""

    def release(self) -> None:
        raise NotImplementedError

    def acquire(self, wait: float | None = 0) -> None:
        """Take the lock; `wait` seconds at most (None: forever, 0: not at all)."""
        deadline = None if wait is None else time.monotonic() + wait
        pause = _POLL_S[0]
        while True:
            holder = self.try_acquire()
            if holder is None:
                self._held()
                return
            if deadline is not None and time.monotonic() >= deadline:
                raise SessionLocked(self.session_id, holder)
            left = pause if deadline is None else min(pause, max(0.0, deadline - time.monotonic()))
            time.sleep(left)
            pause = min(_POLL_S[1], pause * 2)


class SessionLock(WaitingLock):
    """A held (or not yet taken) lock on one session in SQLite; see the module doc."""

    def __init__(self, path: Path, session_id: str, *, purpose: str = "",
                 stale_after: float = STALE_AFTER_S, heartbeat: float = HEARTBEAT_S) -> None:
        self.path = Path(path)
        self.session_id = session_id
        self.purpose = purpose
        self.stale_after = stale_after
        self.heartbeat_every = heartbeat
        self.token = secrets.token_hex(16)
        self.pid = os.getpid()
        self.host = socket.gethostname()

    def _stale(self, row: tuple[str, int, str, str, float, float], now: float) -> bool:
        _token, pid, host, _purpose, _started, beat = row
        if host == self.host and not _pid_alive(pid):
            return True
        return now - beat > self.stale_after

    def try_acquire(self) -> Holder | None:
        """Take the lock if free or stale; return None on success, else its holder."""
        now = time.time()
        try:
            with _SHARED.use(self.path) as conn:
                conn.execute("BEGIN IMMEDIATE")
                row = conn.execute(
                    "SELECT token, pid, host, purpose, started, heartbeat FROM session_locks"
                    " WHERE session_id = ?", [self.session_id]).fetchone()
                if row is not None and row[0] != self.token and not self._stale(row, now):
                    conn.execute("ROLLBACK")
                    return Holder(row[1], row[2], row[3], row[4], row[5])
                conn.execute(
                    "INSERT OR REPLACE INTO session_locks (session_id, token, pid, host, purpose,"
                    " started, heartbeat) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [self.session_id, self.token, self.pid, self.host, self.purpose, now, now])
                conn.execute("COMMIT")
                return None
        except sqlite3.Error as exc:
            raise store_error(exc, self.path) from exc

    def _held(self) -> None:
        _HEART.add(self)

    def beat(self) -> None:
        """Refresh the heartbeat of our row (none once released or taken over)."""
        try:
            with _SHARED.use(self.path) as conn:
                conn.execute("UPDATE session_locks SET heartbeat = ? WHERE session_id = ?"
                             " AND token = ?", [time.time(), self.session_id, self.token])
        except sqlite3.Error:
            return  # a busy database: the next beat tries again

    def release(self) -> None:
        """Drop the lock if we still own it (a takeover by another process is respected)."""
        _HEART.remove(self)
        try:
            with _SHARED.use(self.path) as conn:
                conn.execute("DELETE FROM session_locks WHERE session_id = ? AND token = ?",
                             [self.session_id, self.token])
        except sqlite3.Error as exc:
            raise store_error(exc, self.path) from exc


@contextmanager
def session_lock(path: Path, session_id: str, *, wait: float | None = 0, purpose: str = "",
                 stale_after: float = STALE_AFTER_S) -> Iterator[SessionLock]:
    """Hold `session_id`'s lock in the store at `path` for the body (see module doc)."""
    lock = SessionLock(path, session_id, purpose=purpose, stale_after=stale_after)
    lock.acquire(wait)
    try:
        yield lock
    finally:
        lock.release()
