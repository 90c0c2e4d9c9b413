"""Compression with extended thinking on (fake HTTP server): the summary sees no
thinking text and asks for none; the kept tail keeps each assistant message's thinking
with its tool use and results, and the continuation after the seam is accepted."""

from __future__ import annotations

import pytest

from agent.compression.plan import cut_points, message_tokens
from agent.events import ErrorEvent
from agent.messages import Message, Reasoning, ToolCall, block_json

THOUGHT = "Let me think about message"  # the fake's default thinking text


@pytest.mark.wire
def test_compression_with_thinking(wire_session):
    s = wire_session(reasoning=Reasoning("budget", 2048))
    for _ in range(6):
        s.tool_turn()
    assert all(r.status == 200 for r in s.calls)
    assert THOUGHT in str(s.last.body["messages"])
    events = list(s.agent.compress())
    assert not [e for e in events if isinstance(e, ErrorEvent)]
    (summary,) = s.summary_requests()
    assert "thinking" not in summary.body and THOUGHT not in str(summary.body)
    kept = [m for m in s.agent.conversation.messages if m.role == "assistant" and m.tool_calls]
    assert kept and all(m.reasoning for m in kept)  # whole groups: thinking + tool use
    s.tool_turn()
    after = s.calls[-2:]
    assert all(r.status == 200 for r in after)  # the continuation carried its thinking
    assert after[0].body["thinking"] == {"type": "enabled", "budget_tokens": 2048}


def test_thinking_stays_with_its_tool_use_and_counts_in_the_plan():
    block = block_json({"type": "thinking", "thinking": "x" * 400, "signature": "s"})
    call = ToolCall("c1", "read_file", "{}")
    history = [Message("user", "go"), Message("assistant", "", (call,), reasoning=(block,)),
               Message("tool", "A", tool_call_id="c1"), Message("assistant", "done")]
    assert cut_points(history) == [0, 1, 3]  # never between a tool use and its result
    plain = Message("assistant", "", (call,))
    assert message_tokens(history[1]) > message_tokens(plain) + 90
