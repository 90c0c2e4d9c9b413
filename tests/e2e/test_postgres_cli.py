"""The real CLI on a PostgreSQL store (HERMES_DATABASE_URL): a one-shot stores its
session there (no state.db in HERMES_HOME), `--resume` continues it with the prefix
read from the cache, and `hermes sessions list` reads it back. (Concurrent resumes on
PostgreSQL: tests/e2e/test_session_lock_cli.py.)"""

from __future__ import annotations

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
    fake_provider.script(Reply(text="second"))
    resumed = hermes(["--resume", sid, "-q", "and again"], env, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    with open_store(hermes_home, url) as store:
        rows = store.messages(sid)
        usage = store.usage_rows(sid)
    assert [r["content"] for r in rows] == ["start on postgres", "first", "and again", "second"]
    assert len(usage) == 2 and usage[-1]["cache_read"] > 0  # the stored prefix was read
    listed = hermes(["sessions", "list"], env, cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert sid[:8] in listed.stdout and "start on postgres" in listed.stdout
