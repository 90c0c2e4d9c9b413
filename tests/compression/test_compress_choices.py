"""Compression's child inherits the session's choices (agent/sessions/choices.py): a personality
and reasoning settings chosen through the shared command path are in the child's
prompt and requests (fast tier, scripted model)."""

from __future__ import annotations

from frontend import commands as shared
from frontend.personalities import BUILTIN


def test_personality_and_reasoning_survive_compress(session):
    s = session()
    for _ in range(6):
        s.tool_turn()
    handle = shared.Handle(s.agent, dict(BUILTIN))
    assert shared.run(handle, "personality", "skeptic").level == "warning"
    assert shared.run(handle, "reasoning", "2048").level == "warning"
    old = s.agent.session_id
    reply = shared.run(handle, "compress", "")
    assert reply.level == "notice", reply
    assert s.agent.session_id != old  # continued in the child session
    s.tool_turn()
    body = s.last.body
    system = "".join(block["text"] for block in body["system"])
    assert BUILTIN["skeptic"] in system
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    row = s.store.get_session(s.agent.session_id)
    assert row["personality"] == "skeptic" and '"reasoning":"2048 effort=default"' in row["choices"]
