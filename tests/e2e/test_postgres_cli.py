"""The real CLI on a PostgreSQL store (HERMES_DATABASE_URL): a one-shot stores its
session there (no state.db), concurrent `--resume --wait-lock` runs are serialised by
the advisory lock, and `hermes sessions list` reads it back."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from memory import open_store
from tests.fakes import Reply
from tests.helpers import anthropic_env, hermes


def test_one_shot_resume_and_list_on_postgres(fake_provider, hermes_home, tmp_path,
                                               postgres_server):
    url = postgres_server.new_database()
    env = {**anthropic_env(hermes_home, fake_provider), "HERMES_DATABASE_URL": url}
    fake_provider.script(Reply(text="first"))
    started = hermes(["-q", "start on postgres"], env, cwd=tmp_path)
    assert started.returncode == 0, started.stderr
    assert not (hermes_home / "state.db").exists()
    with open_store(hermes_home, url) as store:
        sid = store.latest_session()["id"]
    fake_provider.responder = lambda rec: Reply(text="answer", delay=0.05, chunks=4)
    runs = 3
    with ThreadPoolExecutor(runs) as pool:
        results = list(pool.map(
            lambda i: hermes(["--resume", sid, "--wait-lock", "-q", f"question {i}"], env,
                             cwd=tmp_path, timeout=120), range(runs)))
    for result in results:
        assert result.returncode == 0, result.stderr
    with open_store(hermes_home, url) as store:
        rows = store.messages(sid)
        usage = store.usage_rows(sid)
        locks = store.handle.rows("SELECT * FROM session_locks")
    assert [r["role"] for r in rows] == ["user", "assistant"] * (runs + 1)
    assert sorted(r["content"] for r in rows[2::2]) == [f"question {i}" for i in range(runs)]
    assert len(usage) == runs + 1 and usage[-1]["cache_read"] > 0  # the prefix was read
    assert locks == []  # every run released its lock
    listed = hermes(["sessions", "list"], env, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert sid[:8] in listed.stdout and "start on postgres" in listed.stdout
