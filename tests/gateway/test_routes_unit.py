"""The gateway's route table on its handle: SQLite's HERMES_HOME/gateway.db (fast tier)
and the shared PostgreSQL database (wire tier), through `RouteTable.open`."""

from __future__ import annotations

from gateway.routes import Route, RouteTable
from gateway.transcripts import TranscriptIndex


def test_routes_round_trip_replace_and_blank(tmp_path, database_url):
    table = RouteTable.open(tmp_path, database_url)
    assert table.get("o", "n") == Route("o", "n")
    table.put(Route("o", "n", session_id="s1"))
    table.put(Route("o", "other", session_id="s2"))
    assert table.get("o", "n") == Route("o", "n", "s1")
    table.put(Route("o", "n", session_id="s3"))  # replaced
    assert table.get("o", "n") == Route("o", "n", session_id="s3")
    assert table.get("someone", "n") == Route("someone", "n")
    table.close()
    if database_url is None:
        assert (tmp_path / "gateway.db").is_file()  # SQLite keeps its own file


def test_a_routes_table_with_the_former_choice_columns_still_works(tmp_path, database_url):
    """A table made when routes also held the session's choices keeps them, unused: the
    choices are the session row's now (agent/sessions/choices.py)."""
    old = ("CREATE TABLE routes (owner TEXT NOT NULL, name TEXT NOT NULL, session_id TEXT,"
           " model TEXT, system TEXT, personality TEXT, reasoning TEXT, updated TEXT NOT NULL,"
           " PRIMARY KEY (owner, name))")
    first = RouteTable.open(tmp_path, database_url)
    first.handle.execute("DROP TABLE routes")
    first.handle.execute(old)
    first.handle.execute("INSERT INTO routes VALUES ('o', 'n', 's1', 'm', NULL, NULL, NULL, 'x')")
    first.close()
    table = RouteTable.open(tmp_path, database_url)
    assert table.get("o", "n") == Route("o", "n", "s1")
    table.put(Route("o", "n", "s2"))
    assert table.get("o", "n") == Route("o", "n", "s2")
    table.close()


def test_two_workers_share_routes_and_transcripts(tmp_path, database_url):
    """Two handles on one database (two gateway workers) see each other's writes."""
    first, second = RouteTable.open(tmp_path, database_url), RouteTable.open(tmp_path, database_url)
    first.put(Route("o", "n", session_id="s1"))
    assert second.get("o", "n").session_id == "s1"
    one, two = TranscriptIndex.open(tmp_path, database_url), TranscriptIndex.open(tmp_path, database_url)
    history = [("user", "hi"), ("assistant", "hello")]
    one.record("o", "n", "s1", history)
    found = two.longest("o", tuple(history))
    assert found is not None and (found.session_id, found.tip) == ("s1", True)
    for closable in (first, second, one, two):
        closable.close()
