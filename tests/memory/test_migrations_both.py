"""The two backends' migrations stay one schema: the same names in the same order, and
(against a real PostgreSQL) the same tables with the same columns."""

from __future__ import annotations

import pytest

from memory import migrations, migrations_pg, open_store
from tests.helpers import at_once

TABLES = ("sessions", "messages", "usage", "session_locks", "leases", "chat_outbox", "chat_inbound",
          "_migrations")


def test_same_migration_names_in_the_same_order():
    assert [n for n, _ in migrations.MIGRATIONS] == [n for n, _ in migrations_pg.MIGRATIONS]


@pytest.mark.wire
def test_same_tables_and_columns(tmp_path, postgres_server):
    url = postgres_server.new_database()
    with open_store(tmp_path, None) as lite, open_store(tmp_path, url) as pg:
        for table in TABLES:
            lite_cols = [r["name"] for r in lite.handle.rows(f"PRAGMA table_info({table})")]
            pg_cols = [r["column_name"] for r in pg.handle.rows(
                "SELECT column_name FROM information_schema.columns WHERE table_name = ?"
                " ORDER BY ordinal_position", [table])]
            if table == "sessions":  # PostgreSQL's stand-in for SQLite's implicit rowid
                pg_cols.remove("rowid")
            assert sorted(pg_cols) == sorted(lite_cols), table
        assert pg.migrate() == [] and lite.migrate() == []
        names = [n for n, _ in migrations.MIGRATIONS]
        assert migrations_pg.applied_names(pg.handle) == names


def test_workers_opening_a_fresh_database_at_once_migrate_it_once(tmp_path, database_url):
    errors = at_once(lambda _i: open_store(tmp_path, database_url).close(), 4)
    assert errors == []
    with open_store(tmp_path, database_url) as store:
        rows = store.handle.rows("SELECT name, COUNT(*) AS n FROM _migrations GROUP BY name")
    assert sorted(r["name"] for r in rows) == sorted(n for n, _ in migrations.MIGRATIONS)
    assert {r["n"] for r in rows} == {1}
