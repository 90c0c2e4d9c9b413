"""Tests of memory.store.SessionStore against a real SQLite file and (the wire tier's
`database_url` variant) a real PostgreSQL database."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from memory import migrations, open_store
from memory.errors import AmbiguousSession, SessionNotFound
from memory.store import SessionStore
from tests.helpers import at_once

ROOT = Path(__file__).resolve().parents[2]
SYSTEM = "You are hermes.\n\nStable  layer — with ünïcode and trailing spaces   \n"


@pytest.fixture
def store(any_store):
    return any_store


def _session(store: SessionStore, sid: str, **kw) -> dict:
    kw.setdefault("model", "claude-sonnet-5")
    kw.setdefault("provider", "anthropic")
    kw.setdefault("system_prompt", SYSTEM)
    return store.create_session(sid, **kw)


def test_open_creates_parent_dirs_wal_and_pragmas(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "state.db"
    with SessionStore(path) as s:
        assert path.exists()
        assert s.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert s.db.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
        assert s.db.execute("PRAGMA busy_timeout").fetchone()[0] == 5000


def test_migrate_twice_is_noop(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    with SessionStore(path) as s:
        names = [name for name, _ in migrations.MIGRATIONS]
        assert migrations.applied_names(s.db) == names
        assert s.migrate() == []
        assert s.migrate() == []
        count = s.db.execute("SELECT COUNT(*) FROM _migrations").fetchone()[0]
        assert count == len(names)
    with SessionStore(path) as s:
        assert s.db.execute("SELECT COUNT(*) FROM _migrations").fetchone()[0] == count


def test_session_round_trip_keeps_system_prompt_exact(store: SessionStore) -> None:
    row = _session(
        store,
        "s1",
        tools=["terminal", "memory"],
        toolsets=["core"],
        cwd="/tmp/x",
        personality="pirate",
        base_url="http://127.0.0.1:9",
        owner="h4sh",
        source="gateway",
    )
    assert row["system_prompt"] == SYSTEM
    assert row["tools"] == ["terminal", "memory"]
    assert row["toolsets"] == ["core"]
    assert row["ended"] is False
    assert row["created"] == row["updated"] and row["created"].endswith("+00:00")
    assert store.get_session("nope") is None
    with pytest.raises(ValueError):
        _session(store, "s1")


def test_update_session_sets_fields_and_updated(store: SessionStore) -> None:
    before = _session(store, "s1")
    after = store.update_session("s1", title="Fix bug", ended=True, tools=["a"])
    assert after["title"] == "Fix bug" and after["ended"] is True and after["tools"] == ["a"]
    assert after["updated"] > before["updated"]
    with pytest.raises(ValueError):
        store.update_session("s1", created="x")
    with pytest.raises(SessionNotFound):
        store.update_session("missing", title="x")


def test_messages_round_trip_with_tool_calls_and_wire_suffix(store: SessionStore) -> None:
    _session(store, "s1")
    calls = [
        {"id": "call_1", "name": "terminal", "arguments": '{"command":"ls"}'},
        {"id": "call_2", "name": "read", "arguments": {"z": 1, "a": [1, 2]}},
    ]
    store.append_message(
        "s1", role="user", content="list files", wire_suffix="\n\n<recall>x</recall>"
    )
    store.append_message("s1", role="assistant", content="", tool_calls=calls)
    store.append_message(
        "s1", role="tool", content="a.txt", tool_call_id="call_1", tool_name="terminal"
    )
    store.append_message(
        "s1",
        role="tool",
        content="interrupted",
        tool_call_id="call_2",
        tool_name="read",
        kind="interrupted",
        is_error=True,
    )
    msgs = store.messages("s1")
    assert [m["seq"] for m in msgs] == [0, 1, 2, 3]
    assert msgs[0]["content"] == "list files"
    assert msgs[0]["wire_suffix"] == "\n\n<recall>x</recall>"
    assert msgs[0]["tool_calls"] is None
    assert msgs[1]["tool_calls"] == [
        {"id": "call_1", "name": "terminal", "arguments": '{"command":"ls"}'},
        {"id": "call_2", "name": "read", "arguments": '{"a":[1,2],"z":1}'},
    ]
    assert msgs[2]["tool_call_id"] == "call_1" and msgs[2]["tool_name"] == "terminal"
    assert msgs[3]["kind"] == "interrupted" and msgs[3]["is_error"] is True


def test_append_message_validates(store: SessionStore) -> None:
    _session(store, "s1")
    with pytest.raises(ValueError):
        store.append_message("s1", role="system", content="x")
    with pytest.raises(ValueError):
        store.append_message("s1", role="assistant", tool_calls=[{"id": "x"}])
    with pytest.raises(SessionNotFound):
        store.append_message("ghost", role="user", content="x")
    assert store.messages("s1") == []


def test_delete_messages_from_then_append_continues_seq(store: SessionStore) -> None:
    _session(store, "s1")
    for i in range(4):
        store.append_message("s1", role="user" if i % 2 == 0 else "assistant", content=f"m{i}")
    assert store.delete_messages_from("s1", 2) == 2
    assert [m["content"] for m in store.messages("s1")] == ["m0", "m1"]
    store.append_message("s1", role="user", content="again")
    assert [m["seq"] for m in store.messages("s1")] == [0, 1, 2]
    assert store.search("m3") == []


def test_resolve_session_id_prefix_ambiguous_and_missing(store: SessionStore) -> None:
    for sid in ("20260101-aaaa", "20260101-aabb", "20260202-cccc"):
        _session(store, sid, owner="o1" if sid.endswith("cccc") else None)
    assert store.resolve_session_id("20260202") == "20260202-cccc"
    assert store.resolve_session_id("20260101-aaaa") == "20260101-aaaa"
    with pytest.raises(AmbiguousSession) as ambiguous:
        store.resolve_session_id("20260101-aa")
    assert set(ambiguous.value.candidates) == {"20260101-aaaa", "20260101-aabb"}
    assert "20260101-aabb" in ambiguous.value.message
    with pytest.raises(SessionNotFound) as missing:
        store.resolve_session_id("zzz")
    assert "zzz" in missing.value.message and missing.value.hint
    with pytest.raises(SessionNotFound):
        store.resolve_session_id("")
    with pytest.raises(SessionNotFound):
        store.resolve_session_id("20260202", owner="someone-else")
    assert store.resolve_session_id("2026020", owner="o1") == "20260202-cccc"


def test_latest_and_list_sessions(store: SessionStore) -> None:
    _session(store, "old", source="cli")
    _session(store, "gw", source="gateway", owner="k1")
    _session(store, "new", source="cli")
    store.append_message("old", role="user", content="  first   question about " + "x" * 80)
    store.append_message("old", role="assistant", content="answer")
    store.add_usage("old", uncached=100, write_5m=50, cache_read=850, output=20, cost_usd=0.01)
    store.add_usage("old", uncached=10, output=5)  # unknown cache and price
    assert store.latest_session()["id"] == "old"
    assert store.latest_session(source="gateway", owner="k1")["id"] == "gw"
    assert store.latest_session(owner="nobody") is None
    listed = store.list_sessions()
    assert [r["id"] for r in listed] == ["old", "new", "gw"]
    old = listed[0]
    assert old["message_count"] == 2
    assert old["preview"].startswith("first question about x") and len(old["preview"]) == 60
    assert old["api_calls"] == 2 and old["unpriced_calls"] == 1
    assert old["total_cost_usd"] == pytest.approx(0.01)
    assert old["input_tokens"] == 1010 and old["cache_read_tokens"] == 850
    assert old["output_tokens"] == 25
    fresh = listed[1]
    assert fresh["message_count"] == 0 and fresh["preview"] == "" and fresh["api_calls"] == 0
    assert [r["id"] for r in store.list_sessions(source="gateway")] == ["gw"]
    assert len(store.list_sessions(limit=1)) == 1


def test_usage_rows_defaults_and_lineage(store: SessionStore) -> None:
    _session(store, "a")
    _session(store, "b", parent_id="a")
    _session(store, "c", parent_id="b", model="gpt-5", provider="openai")
    store.add_usage("a", turn=1, uncached=5, cache_read=0)
    store.add_usage("b", turn=2, uncached=6, cost_usd=0.5, miss_cause="system_changed")
    store.add_usage("c", turn=3, uncached=7, cache_read=70, prompt_fingerprint="fp")
    rows = store.usage_rows("c")
    assert len(rows) == 1 and rows[0]["model"] == "gpt-5" and rows[0]["cache_known"] is True
    chain = store.usage_rows("c", lineage=True)
    assert [r["uncached"] for r in chain] == [5, 6, 7]
    assert chain[1]["cache_read"] is None and chain[1]["cache_known"] is False
    assert chain[1]["miss_cause"] == "system_changed" and chain[0]["cost_usd"] is None
    assert [s["id"] for s in store.lineage("c")] == ["a", "b", "c"]
    with pytest.raises(ValueError):
        store.add_usage("a", bogus=1)
    with pytest.raises(SessionNotFound):
        store.add_usage("ghost", uncached=1)


def test_search_finds_words_excludes_session_and_owner(store: SessionStore) -> None:
    _session(store, "s1")
    _session(store, "s2", owner="k2")
    store.append_message("s1", role="user", content="How do I configure the postgres database?")
    store.append_message("s2", role="assistant", content="Postgres tuning: raise shared_buffers.")
    store.append_message("s2", role="user", content="unrelated", wire_suffix="postgres hidden")
    hits = store.search("postgres")
    assert {h["session_id"] for h in hits} == {"s1", "s2"}
    assert all("**" in h["snippet"] for h in hits)
    assert hits[0]["date"] == hits[0]["created"][:10]
    assert [h["session_id"] for h in store.search("postgres", exclude_session="s1")] == ["s2"]
    assert [h["session_id"] for h in store.search("postgres", owner="k2")] == ["s2"]
    assert store.search("hidden") == []  # wire_suffix is not indexed
    assert store.search("databases configured")[0]["session_id"] == "s1"  # stemming
    assert len(store.search("postgres", limit=1)) == 1


@pytest.mark.parametrize(
    "query", ['"foo', "a AND", "-x", "(", "*", "NOT", "OR OR", "col:val", "^x", "'", "", "  "]
)
def test_search_survives_hostile_queries(store: SessionStore, query: str) -> None:
    _session(store, "s1")
    store.append_message("s1", role="user", content="foo a x val col")
    assert isinstance(store.search(query), list)


def test_delete_session_keeps_children(store: SessionStore) -> None:
    _session(store, "p")
    _session(store, "c", parent_id="p")
    store.append_message("p", role="user", content="parent words here")
    store.add_usage("p", uncached=1)
    store.delete_session("p")
    assert store.get_session("p") is None
    assert store.messages("p") == [] and store.usage_rows("p") == []
    assert store.search("parent") == []
    if store.handle.kind == "sqlite":
        assert store.db.execute("SELECT COUNT(*) FROM messages_fts").fetchone()[0] == 0
    assert store.get_session("c")["parent_id"] is None
    assert [s["id"] for s in store.lineage("c")] == ["c"]
    with pytest.raises(SessionNotFound):
        store.delete_session("p")


def test_export_session_is_json_ready(store: SessionStore) -> None:
    _session(store, "s1", tools=["t"])
    store.append_message("s1", role="user", content="hi")
    store.add_usage("s1", uncached=3)
    data = json.loads(json.dumps(store.export_session("s1")))
    assert data["session"]["system_prompt"] == SYSTEM
    assert [m["content"] for m in data["messages"]] == ["hi"]
    assert len(data["usage"]) == 1
    with pytest.raises(SessionNotFound):
        store.export_session("nope")


def test_threads_share_one_store(store: SessionStore) -> None:
    _session(store, "s1")
    errors: list[BaseException] = []

    def worker(n: int) -> None:
        try:
            for i in range(25):
                store.append_message("s1", role="user", content=f"t{n} m{i}")
                store.messages("s1")
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert [m["seq"] for m in store.messages("s1")] == list(range(100))


_CHILD = """
import sys, time
from pathlib import Path
from memory.store import SessionStore
store = SessionStore(Path(sys.argv[1]))
store.append_message("s1", role="user", content="survives SIGKILL")
print("appended", flush=True)
time.sleep(30)
"""


@pytest.mark.wire
def test_append_is_durable_across_sigkill(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    with SessionStore(path) as s:
        _session(s, "s1")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(path)], stdout=subprocess.PIPE, env=env, text=True
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "appended"
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=10)
        child.stdout.close()
    assert child.returncode == -signal.SIGKILL
    with SessionStore(path) as s:
        assert [m["content"] for m in s.messages("s1")] == ["survives SIGKILL"]


def test_second_connection_sees_committed_rows(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    with SessionStore(path) as s:
        _session(s, "s1")
        s.append_message("s1", role="user", content="visible")
        other = sqlite3.connect(path)
        try:
            assert other.execute("SELECT content FROM messages").fetchall() == [("visible",)]
        finally:
            other.close()


def test_two_connections_append_to_one_session_without_clashing(tmp_path: Path, database_url):
    """Two processes' stores (two connections) appending to one session at once: every
    message gets the next seq, none fails (SQLite: BEGIN IMMEDIATE; PostgreSQL: the
    session row is locked for the append's transaction)."""
    home = tmp_path / "home"
    stores = [open_store(home, database_url) for _ in range(2)]
    _session(stores[0], "s1")

    def writer(n: int) -> None:
        for i in range(30):
            stores[n].append_message("s1", role="user", content=f"w{n} m{i}")

    errors = at_once(writer, len(stores))
    assert errors == []
    assert [m["seq"] for m in stores[0].messages("s1")] == list(range(60))
    for s in stores:
        s.close()
