"""A stored conversation as the updates session/load replays (pure: fast tier)."""

from __future__ import annotations

from pathlib import Path

from agent.messages import Message, ToolCall
from agent.prompts.untrusted import frame
from hermes_acp.history import replayed


def test_a_conversation_replays_as_typed_with_its_tool_calls():
    messages = [
        Message("user", "read a.py", wire_suffix="\n\n<mode>Plan mode is ON</mode>"),
        Message("assistant", "Reading.", tool_calls=(ToolCall("t1", "read_file", '{"path":"a.py"}'),)),
        Message("tool", frame("read_file", "     1|x = 1"), tool_call_id="t1", tool_name="read_file"),
        Message("assistant", "It sets x."),
    ]
    out = replayed(messages, Path("/proj"))
    assert [u["session_update"] for u in out] == [
        "user_message_chunk", "agent_message_chunk", "tool_call", "agent_message_chunk"]
    assert out[0]["content"]["text"] == "read a.py"  # the wire suffix stays out
    call = out[2]
    assert call["status"] == "completed" and call["kind"] == "read"
    assert call["locations"] == [{"path": "/proj/a.py"}]
    assert call["content"][0]["content"]["text"] == "     1|x = 1"  # shown unframed


def test_a_call_without_a_result_replays_as_failed():
    messages = [Message("assistant", "", tool_calls=(ToolCall("t9", "terminal", '{"command":"ls"}'),))]
    (call,) = replayed(messages, Path("/p"))
    assert call["status"] == "failed" and call["title"] == "terminal: ls"
