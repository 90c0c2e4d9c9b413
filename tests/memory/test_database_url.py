"""Choosing and checking the store's database: bad URLs are one clear StoreError /
ConfigError with the password masked (fast tier: nothing connects), PostgreSQL down or
a missing database (wire tier: a real server), and psycopg stays unloaded for SQLite."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from agent.errors import ConfigError
from frontend.config.settings import Settings
from frontend.config.store_setup import database_url
from memory import open_store
from memory.db_postgres import check_url, translate
from memory.errors import StoreError


@pytest.mark.parametrize(("url", "said"), [
    ("mysql://u:hunter2@h/db", "not a PostgreSQL URL"),
    ("postgresql://u:hunter2@h:99999/db", "malformed"),
    ("postgresql://u:hunter2@h:5432", "names no database"),
    ("postgresql://u:hunter2@h:5432/", "names no database"),
])
def test_bad_urls_are_one_clear_store_error_without_the_password(tmp_path, url, said):
    with pytest.raises(StoreError) as caught:
        open_store(tmp_path, url) if url.startswith("postgres") else check_url(url)
    assert said in caught.value.message and "hunter2" not in caught.value.message
    assert "\n" not in caught.value.message
    assert "postgresql://USER:PASSWORD@HOST:5432/DATABASE" in caught.value.hint


def test_env_wins_over_config_and_blank_means_sqlite(tmp_path):
    settings = Settings(home=tmp_path, raw={"database_url": "postgresql://c@h/config"})
    assert database_url(settings, {}) == "postgresql://c@h/config"
    assert database_url(settings, {"HERMES_DATABASE_URL": "postgres://e@h/env"}) == \
        "postgres://e@h/env"
    assert database_url(Settings(home=tmp_path), {"HERMES_DATABASE_URL": "  "}) is None
    assert database_url(Settings(home=tmp_path), {}) is None


def test_bad_setting_names_its_source(tmp_path):
    with pytest.raises(ConfigError) as env_bad:
        database_url(Settings(home=tmp_path), {"HERMES_DATABASE_URL": "sqlite:///x.db"})
    assert env_bad.value.args[0].startswith("HERMES_DATABASE_URL must be a postgresql:// URL")
    with pytest.raises(ConfigError) as config_bad:
        database_url(Settings(home=tmp_path, raw={"database_url": "postgresql://u:pw@h"}), {})
    assert "config.yaml: `database_url`" in str(config_bad.value)
    assert "names no database" in str(config_bad.value) and ":pw@" not in str(config_bad.value)
    with pytest.raises(ConfigError):  # not text at all
        database_url(Settings(home=tmp_path, raw={"database_url": 5432}), {})


def test_placeholders_translate_for_psycopg():
    assert translate("SELECT ?, ?", [1, 2]) == ("SELECT %s, %s", [1, 2])
    assert translate("x = ?2 OR y = ?1 OR z LIKE '5%'", ["a", "b"]) == \
        ("x = %s OR y = %s OR z LIKE '5%%'", ["b", "a"])
    assert translate("?", ["nul\x00here"])[1] == ["nul\\x00here"]  # PostgreSQL text has no NUL


@pytest.mark.wire
def test_server_down_and_missing_database_are_one_line(tmp_path, postgres_server):
    closed = f"postgresql://u:hunter2@127.0.0.1:{_closed_port()}/db"
    with pytest.raises(StoreError) as down:
        open_store(tmp_path, closed)
    assert "cannot use the PostgreSQL database postgresql://***@127.0.0.1" in down.value.message
    assert "Connection refused" in down.value.message and "hunter2" not in down.value.message
    assert "\n" not in down.value.message and "Start PostgreSQL" in down.value.hint
    missing = postgres_server.admin_url.rsplit("/", 1)[0] + "/no_such_db"
    with pytest.raises(StoreError) as absent:
        open_store(tmp_path, missing)
    assert 'database "no_such_db" does not exist' in absent.value.message
    assert "createdb" in absent.value.hint


@pytest.mark.wire
def test_sqlite_users_never_load_psycopg(tmp_path):
    code = ("import sys; from pathlib import Path; from memory import open_store\n"
            "open_store(Path(sys.argv[1])).close(); print('psycopg' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.stdout.strip() == "False", done.stderr


def _closed_port() -> int:
    import socket

    with socket.socket() as sock:  # a port nobody listens on once closed: refused
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.wire
def test_a_dropped_connection_is_reopened(tmp_path, postgres_server):
    """The server cut the store's connection (a restart, pg_terminate_backend): the next
    read works on a new connection; a write in that moment fails with one line and the
    one after it works."""
    import psycopg

    url = postgres_server.new_database()
    with open_store(tmp_path, url) as store, psycopg.connect(url, autocommit=True) as admin:
        store.create_session("s1", model="m", provider="p", system_prompt="sys")

        def cut() -> None:
            admin.execute("SELECT pg_terminate_backend(%s)",
                          [store.handle._conn.info.backend_pid])

        cut()
        assert store.get_session("s1")["system_prompt"] == "sys"
        cut()
        with pytest.raises(StoreError) as caught:
            store.append_message("s1", role="user", content="lost in the cut")
        assert "\n" not in caught.value.message
        store.append_message("s1", role="user", content="after the cut")
        assert [m["content"] for m in store.messages("s1")] == ["after the cut"]


def test_a_dotenv_url_is_a_setting_never_an_environment_variable(tmp_path, monkeypatch):
    from frontend.config.settings import load_settings

    monkeypatch.delenv("HERMES_DATABASE_URL", raising=False)
    monkeypatch.delenv("OTHER_SETTING", raising=False)  # restored (unset) afterwards
    (tmp_path / ".env").write_text("HERMES_DATABASE_URL=postgresql://u:pw-from-env@h/db\n"
                                   "OTHER_SETTING=1\n")
    settings = load_settings(tmp_path)
    assert "HERMES_DATABASE_URL" not in os.environ and os.environ["OTHER_SETTING"] == "1"
    assert database_url(settings, {}) == "postgresql://u:pw-from-env@h/db"
    # the shell's variable wins over .env; a gateway flag wins over both
    assert database_url(settings, {"HERMES_DATABASE_URL": "postgresql://s@h/shell"}) == \
        "postgresql://s@h/shell"
    settings.database_url = ("postgresql://f@h/flag", "--database-url-file x")
    assert database_url(settings, {"HERMES_DATABASE_URL": "postgresql://s@h/shell"}) == \
        "postgresql://f@h/flag"


def test_the_gateway_flags_keep_passwords_off_the_command_line(tmp_path):
    from gateway.fleet import flagged_database_url

    assert flagged_database_url(None, None) is None
    assert flagged_database_url("postgresql://hermes@db/h", None) == \
        ("postgresql://hermes@db/h", "--database-url")
    for url in ("postgresql://hermes:hunter2@db/h", "postgresql://db/h?password=hunter2"):
        with pytest.raises(ConfigError) as refused:
            flagged_database_url(url, None)
        assert "--database-url-file" in refused.value.hint
        assert "hunter2" not in refused.value.args[0] + refused.value.hint
    secret = tmp_path / "db-url"
    secret.write_text("# the store\npostgresql://hermes:hunter2@db/h\n")
    assert flagged_database_url(None, str(secret))[0] == "postgresql://hermes:hunter2@db/h"
    with pytest.raises(ConfigError, match="cannot read it"):
        flagged_database_url(None, str(tmp_path / "missing"))
    secret.write_text("mysql://u:hunter2@h/db\n")
    with pytest.raises(ConfigError) as wrong:
        flagged_database_url(None, str(secret))
    assert "hunter2" not in wrong.value.args[0]
