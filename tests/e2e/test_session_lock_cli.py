"""One process per session through the real CLI: concurrent `hermes --resume SID -q`
runs never interleave, a second one without --wait-lock names the holder, and the lock
of a killed process is taken over."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

from memory import open_store
from tests.fakes import Reply
from tests.helpers import HERMES, anthropic_env, hermes


def _first_session(env, fake_provider, hermes_home, cwd, url=None):
    fake_provider.script(Reply(text="first"))
    assert hermes(["-q", "start"], env, cwd=cwd).returncode == 0
    with open_store(hermes_home, url) as store:
        return store.latest_session()["id"]


def test_concurrent_resumes_with_wait_lock_never_interleave(fake_provider, hermes_home, tmp_path,
                                                            database_url):
    """On SQLite (row + heartbeat) and PostgreSQL (advisory lock) alike."""
    env = anthropic_env(hermes_home, fake_provider)
    if database_url:
        env["HERMES_DATABASE_URL"] = database_url
    sid = _first_session(env, fake_provider, hermes_home, tmp_path, database_url)
    fake_provider.responder = lambda rec: Reply(text="answer", delay=0.05, chunks=4)
    runs = 5
    with ThreadPoolExecutor(runs) as pool:
        results = list(pool.map(
            lambda i: hermes(["--resume", sid, "--wait-lock", "-q", f"question {i}"], env,
                             cwd=tmp_path, timeout=120), range(runs)))
    for result in results:
        assert result.returncode == 0, result.stderr
    with open_store(hermes_home, database_url) as store:
        rows = store.messages(sid)
        assert store.handle.rows("SELECT * FROM session_locks") == []  # all released
    roles = [r["role"] for r in rows]
    assert roles == ["user", "assistant"] * (runs + 1)
    assert not [r for r in rows if r["kind"] == "interrupted"]
    assert sorted(r["content"] for r in rows[2::2]) == [f"question {i}" for i in range(runs)]


def test_second_process_is_told_who_holds_the_session(fake_provider, hermes_home, tmp_path):
    env = anthropic_env(hermes_home, fake_provider)
    sid = _first_session(env, fake_provider, hermes_home, tmp_path)
    fake_provider.responder = lambda rec: Reply(text="slow", delay=0.5, chunks=8)
    first = subprocess.Popen([*HERMES, "--resume", sid, "-q", "long one"], env=env, cwd=tmp_path,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for_lock(hermes_home, sid, first.pid)
        second = hermes(["--resume", sid, "-q", "me too"], env, cwd=tmp_path)
        assert second.returncode == 1
        assert "Traceback" not in second.stderr
        assert f"is in use by another hermes (pid {first.pid}" in second.stderr
    finally:
        first.wait(60)
    assert first.returncode == 0


def test_lock_of_a_killed_process_is_taken_over(fake_provider, hermes_home, tmp_path):
    env = anthropic_env(hermes_home, fake_provider)
    sid = _first_session(env, fake_provider, hermes_home, tmp_path)
    fake_provider.responder = lambda rec: Reply(text="never finished", delay=2.0, chunks=20)
    victim = subprocess.Popen([*HERMES, "--resume", sid, "-q", "doomed"], env=env, cwd=tmp_path,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _wait_for_lock(hermes_home, sid, victim.pid)
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait(30)
    fake_provider.responder = lambda rec: Reply(text="after the kill")
    result = hermes(["--resume", sid, "-q", "again"], env, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "after the kill" in result.stdout


def _wait_for_lock(home, sid, pid, deadline_s=30.0):
    deadline = time.monotonic() + deadline_s
    while time.monotonic() < deadline:
        with sqlite3.connect(home / "state.db") as conn:
            row = conn.execute("SELECT pid FROM session_locks WHERE session_id = ?",
                               [sid]).fetchone()
        if row and row[0] == pid:
            return
        time.sleep(0.02)
    raise AssertionError(f"process {pid} never took the lock of {sid}")
