"""state.db that is corrupt, locked or unwritable: a StoreError that says what and how
to fix, never an sqlite3 traceback; the file itself is left as it was."""

from __future__ import annotations

import os
import sqlite3
import time

import pytest

from memory.errors import StoreError
from memory.store import SessionStore


def test_corrupt_file_is_a_clear_error_and_is_not_touched(tmp_path):
    path = tmp_path / "state.db"
    junk = os.urandom(4096)
    path.write_bytes(junk)
    with pytest.raises(StoreError) as caught:
        SessionStore(path)
    assert "not a valid SQLite database" in caught.value.message
    assert "mv " in caught.value.hint
    assert path.read_bytes() == junk


def test_locked_database_is_a_clear_error_after_the_busy_timeout(tmp_path):
    path = tmp_path / "state.db"
    store = SessionStore(path)
    store.create_session("s1", model="m", provider="anthropic", system_prompt="p")
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        reader = SessionStore(path, busy_timeout=0.2)  # up to date: opening only reads
        assert [r["id"] for r in reader.list_sessions()] == ["s1"]
        start = time.monotonic()
        with pytest.raises(StoreError) as caught:
            reader.append_message("s1", role="user", content="hi")
        assert time.monotonic() - start < 3
        assert "locked by another process" in caught.value.message
    finally:
        other.execute("ROLLBACK")
        other.close()
    reader.append_message("s1", role="user", content="hi")  # fine once released
    assert [m["content"] for m in store.messages("s1")] == ["hi"]


def test_children_lists_continued_sessions(tmp_path):
    store = SessionStore(tmp_path / "state.db")
    store.create_session("p", model="m", provider="anthropic", system_prompt="x")
    store.create_session("c", model="m", provider="anthropic", system_prompt="x", parent_id="p")
    assert store.children("p") == ["c"]
    store.delete_session("p")
    assert store.get_session("c")["parent_id"] is None
