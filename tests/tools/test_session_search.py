"""session_search over the real SessionStore in a temporary HERMES_HOME."""

from __future__ import annotations

from dataclasses import replace

import pytest

from memory.store import SessionStore


@pytest.fixture
def store(ctx):
    with SessionStore(ctx.home / "state.db") as opened:
        for sid, text in (("old-1", "we fixed the flaky websocket test"), ("s-test", "websocket again")):
            opened.create_session(sid, model="m", provider="p", system_prompt="sys")
            opened.append_message(sid, role="user", content=text)
        ctx.services = replace(ctx.services, store=opened)
        yield opened


def test_finds_past_sessions_but_not_the_current_one(call, store):
    result = call("session_search", query="websocket")
    assert result.ok
    lines = result.content.splitlines()
    assert lines[0] == "1 match(es) in past sessions for 'websocket':"
    assert lines[1].startswith("- session old-1 (")
    assert ", user): " in lines[1] and "websocket" in lines[1]
    assert "s-test" not in result.content


def test_no_match_empty_query_and_no_store(call, store, ctx):
    assert call("session_search", query="kubernetes").content.startswith("No past sessions")
    assert not call("session_search", query="  ").ok
    ctx.services = replace(ctx.services, store=None)
    assert "not available" in call("session_search", query="x").content
