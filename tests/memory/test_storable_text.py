"""Lone surrogates (non-UTF-8 bytes decoded by os.fsdecode / argv) are stored as
visible escapes at the store's connection and at message construction."""

from __future__ import annotations

import os

from agent.messages import Message, SystemBlock, ToolCall
from memory.store import SessionStore
from memory.text import is_storable, storable

BAD = os.fsdecode(b"g\xfe.txt")


def test_storable_escapes_undecodable_bytes_and_keeps_good_text_identical():
    assert storable(BAD) == "g\\xfe.txt"
    assert storable("\ud800x") == "\\ud800x"
    good = "café ☕"
    assert storable(good) is good
    assert is_storable(good) and not is_storable(BAD)


def test_messages_are_storable_when_built():
    assert Message("tool", f"found {BAD}").content == "found g\\xfe.txt"
    assert Message("user", "x", wire_suffix=BAD).wire_suffix == "g\\xfe.txt"
    assert SystemBlock(f"cwd {BAD}").text == "cwd g\\xfe.txt"
    assert ToolCall("a", "read_file", "{\"path\": \"" + BAD + "\"}").arguments.count("\\xfe") == 1


def test_store_takes_surrogates_in_every_field(tmp_path):
    with SessionStore(tmp_path / "state.db") as store:
        store.create_session("s1", model="m", provider="anthropic", system_prompt=BAD, cwd=BAD,
                             title=BAD)
        store.append_message("s1", role="user", content=BAD)
        store.append_message("s1", role="assistant", tool_calls=[
            {"id": "c", "name": "read_file", "arguments": {"path": BAD}}])
        assert store.messages("s1")[0]["content"] == "g\\xfe.txt"
        assert store.get_session("s1")["cwd"] == "g\\xfe.txt"
        assert "\\udcfe" in store.messages("s1")[1]["tool_calls"][0]["arguments"]
        assert store.search(BAD) is not None
        assert store.get_session(BAD) is None
