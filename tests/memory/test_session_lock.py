"""The store-level session lock: one holder at a time, holder named, stale rows from a
dead pid or a silent host taken over, release only by the owner."""

from __future__ import annotations

import os
import socket
import threading
import time

import pytest

from memory.session_lock import SessionLock, SessionLocked, session_lock
from memory.store import SessionStore

DEAD_PID = 2**22 + 12345  # above Linux's pid_max: never a live process


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "state.db"
    SessionStore(path).close()  # migrations create session_locks
    return path


def _plant(db, sid, pid, host, beat):
    import sqlite3

    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO session_locks VALUES (?, 'tok', ?, ?, 'old', ?, ?)",
                     [sid, pid, host, beat, beat])


def test_second_holder_is_refused_with_the_holder_named(db):
    with session_lock(db, "s1", purpose="hermes -q"):
        with pytest.raises(SessionLocked) as caught:
            SessionLock(db, "s1").acquire(0)
        assert f"pid {os.getpid()} on {socket.gethostname()}" in caught.value.message
        assert "--wait-lock" in caught.value.hint
        with session_lock(db, "s2"):  # other sessions are independent
            pass
    with session_lock(db, "s1"):  # released: free again
        pass


def test_waiting_holder_gets_it_when_released(db):
    first = SessionLock(db, "s1")
    first.acquire(0)
    got = threading.Event()

    def second():
        with session_lock(db, "s1", wait=30):
            got.set()

    thread = threading.Thread(target=second)
    thread.start()
    assert not got.wait(0.2)
    first.release()
    thread.join(30)
    assert got.is_set()


def test_wait_has_a_deadline(db):
    with session_lock(db, "s1"):
        started = time.monotonic()
        with pytest.raises(SessionLocked):
            SessionLock(db, "s1").acquire(0.3)
        assert time.monotonic() - started < 10


def test_stale_lock_of_a_dead_pid_is_taken_over(db):
    _plant(db, "s1", DEAD_PID, socket.gethostname(), time.time())
    with session_lock(db, "s1") as lock:
        assert lock.try_acquire() is None  # re-entrant for its own token


def test_live_pid_on_this_host_with_fresh_heartbeat_is_respected(db):
    _plant(db, "s1", os.getppid(), socket.gethostname(), time.time())
    with pytest.raises(SessionLocked):
        SessionLock(db, "s1").acquire(0)


def test_other_host_is_stale_only_after_its_heartbeat_stops(db):
    _plant(db, "fresh", 1, "elsewhere", time.time())
    _plant(db, "silent", 1, "elsewhere", time.time() - 3600)
    with pytest.raises(SessionLocked):
        SessionLock(db, "fresh").acquire(0)
    with session_lock(db, "silent"):
        pass


def test_release_after_a_takeover_keeps_the_new_owner(db):
    old = SessionLock(db, "s1")
    old.acquire(0)
    new = SessionLock(db, "s1", stale_after=-1.0)  # sees old's heartbeat as stale
    new.acquire(0)
    old.release()
    with pytest.raises(SessionLocked):
        SessionLock(db, "s1").acquire(0)
    new.release()


# -- through the store, on both backends ---------------------------------------------


@pytest.fixture
def store(any_store):
    return any_store


def test_store_lock_refuses_a_second_holder_naming_the_first(store):
    with store.session_lock("s1", purpose="gateway turn") as held:
        assert held.session_id == "s1"
        with pytest.raises(SessionLocked) as caught:
            store.lock_session("s1").acquire(0)
        assert f"pid {os.getpid()} on {socket.gethostname()}, gateway turn" in caught.value.message
        with store.session_lock("s2"):  # other sessions are independent
            pass
    with store.session_lock("s1"):  # released: free again
        pass


def test_store_lock_waiter_gets_it_when_released(store):
    first = store.lock_session("s1")
    first.acquire(0)
    got = threading.Event()

    def second():
        with store.session_lock("s1", wait=30):
            got.set()

    thread = threading.Thread(target=second)
    thread.start()
    with pytest.raises(SessionLocked):  # still held: a second try fails at once
        store.lock_session("s1").acquire(0)
    assert not got.is_set()
    first.release()
    thread.join(30)
    assert got.is_set()


def test_store_lock_wait_has_a_deadline(store):
    with store.session_lock("s1"):
        started = time.monotonic()
        with pytest.raises(SessionLocked):
            store.lock_session("s1").acquire(0.3)
        assert 0.3 <= time.monotonic() - started < 10


@pytest.mark.wire
def test_postgres_lock_is_released_when_its_connection_dies(tmp_path, postgres_server):
    """A crashed worker's lock: the server frees the advisory lock with its connection."""
    import psycopg

    from memory import open_store

    url = postgres_server.new_database()
    with open_store(tmp_path, url) as store:
        dead = store.lock_session("s1", purpose="killed worker")
        dead.acquire(0)
        with pytest.raises(SessionLocked) as caught:
            store.lock_session("s1").acquire(0)
        assert "killed worker" in caught.value.message
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", [dead.backend_pid])
        with store.session_lock("s1", wait=10, purpose="survivor"):
            row = store.handle.rows("SELECT purpose FROM session_locks WHERE session_id = ?",
                                    ["s1"])
            assert row == [{"purpose": "survivor"}]
        dead.release()  # its connection is gone: releasing is harmless
        with store.session_lock("s1"):
            pass


def _heartbeat(db, sid):
    import sqlite3

    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT heartbeat FROM session_locks WHERE session_id = ?",
                           [sid]).fetchone()
    return None if row is None else row[0]


def test_held_locks_are_kept_fresh_by_one_heartbeat_thread(db):
    from tests.helpers import wait_until

    first, second = SessionLock(db, "s1", heartbeat=0.05), SessionLock(db, "s2", heartbeat=0.05)
    first.acquire(0)
    second.acquire(0)
    try:
        taken = {sid: _heartbeat(db, sid) for sid in ("s1", "s2")}
        wait_until(lambda: all(_heartbeat(db, sid) > taken[sid] for sid in taken),
                   what="both heartbeats refreshed")
        beating = [t for t in threading.enumerate() if t.name == "hermes-session-lock"]
        assert len(beating) == 1  # one thread for every held lock, none per turn
    finally:
        first.release()
        second.release()
    assert _heartbeat(db, "s1") is None and _heartbeat(db, "s2") is None
