"""Pure mapping tests for the Anthropic adapter: dict literals in, dicts out."""

from __future__ import annotations

import json

import pytest

from agent.messages import (
    Breakpoint,
    Message,
    Request,
    SystemBlock,
    ToolCall,
    ToolSchema,
    canonical_json,
)
from agent.providers.anthropic.adapter import (
    StreamAccumulator,
    map_request,
    map_response,
    map_usage,
)
from agent.providers.cache_model import CacheHints

TOOLS = [
    ToolSchema("read_file", "Read a file", {"properties": {"path": {"type": "string"}}, "type": "object"}),
    ToolSchema("shell", "Run a command", {"properties": {"cmd": {"type": "string"}}, "type": "object"}),
]
SYSTEM = [SystemBlock("You are hermes."), SystemBlock("Skills: none", layer="ephemeral")]


def history() -> list[Message]:
    return [
        Message("user", "hello", wire_suffix="\n\n<memory>likes tea</memory>"),
        Message(
            "assistant",
            "Let me look.",
            tool_calls=(
                ToolCall("tu_1", "read_file", '{"path":"a.txt"}'),
                ToolCall("tu_2", "shell", '{"cmd":"ls"}'),
            ),
        ),
        Message("tool", "contents of a", tool_call_id="tu_1", tool_name="read_file"),
        Message("tool", "boom", tool_call_id="tu_2", tool_name="shell", is_error=True),
        Message("user", "thanks, now summarise"),
    ]


def request(**changes) -> Request:
    values = {"model": "claude-sonnet-5-5", "system": SYSTEM, "messages": history(), "tools": TOOLS}
    values.update(changes)
    return Request(**values)


def markers(wire: dict) -> list[str]:
    """Paths of every block carrying cache_control, for compact assertions."""
    found = [f"tools[{i}]" for i, t in enumerate(wire.get("tools", [])) if "cache_control" in t]
    found += [f"system[{i}]" for i, b in enumerate(wire.get("system", [])) if "cache_control" in b]
    for i, message in enumerate(wire["messages"]):
        found += [f"messages[{i}][{j}]" for j, b in enumerate(message["content"]) if "cache_control" in b]
    return found


def test_mapping_is_byte_stable():
    first = canonical_json(map_request(request()))
    second = canonical_json(map_request(request()))
    assert first == second
    json.dumps(map_request(request()), sort_keys=True)  # serialisable


def test_full_shape():
    wire = map_request(request(cache=CacheHints(previous="msg_prev"), temperature=0.2))
    assert wire["model"] == "claude-sonnet-5-5"
    assert wire["max_tokens"] == 8192
    assert wire["system"] == [
        {"type": "text", "text": "You are hermes."},
        {"type": "text", "text": "Skills: none"},
    ]
    assert [t["name"] for t in wire["tools"]] == ["read_file", "shell"]
    assert wire["tools"][0] == {
        "name": "read_file",
        "description": "Read a file",
        "input_schema": TOOLS[0].parameters,
    }
    assert wire["diagnostics"] == {"previous_message_id": "msg_prev"}
    assert wire["extra_body"] == {"temperature": 0.2}  # SDK 2.14 has no parameter for it
    assert "tool_choice" not in wire
    assert [m["role"] for m in wire["messages"]] == ["user", "assistant", "user"]
    user, assistant, results = wire["messages"]
    assert user["content"] == [{"type": "text", "text": "hello\n\n<memory>likes tea</memory>"}]
    assert assistant["content"] == [
        {"type": "text", "text": "Let me look."},
        {"type": "tool_use", "id": "tu_1", "name": "read_file", "input": {"path": "a.txt"}},
        {"type": "tool_use", "id": "tu_2", "name": "shell", "input": {"cmd": "ls"}},
    ]
    assert results["content"] == [
        {"type": "tool_result", "tool_use_id": "tu_1", "content": "contents of a"},
        {"type": "tool_result", "tool_use_id": "tu_2", "content": "boom", "is_error": True},
        {"type": "text", "text": "thanks, now summarise"},
    ]


def test_first_call_sends_null_previous_message_id_and_no_temperature():
    wire = map_request(request())
    assert wire["diagnostics"] == {"previous_message_id": None}
    assert "temperature" not in wire


def test_no_breakpoints_no_markers():
    assert markers(map_request(request())) == []


def test_breakpoints_on_tools_system_and_messages():
    points = [
        Breakpoint("tools"),
        Breakpoint("system", 1, ttl="1h"),
        Breakpoint("message", 2),  # first tool result -> its own tool_result block
        Breakpoint("message", 4),  # user merged after tool results -> its text block
    ]
    wire = map_request(request(breakpoints=points))
    assert markers(wire) == ["tools[1]", "system[1]", "messages[2][0]", "messages[2][2]"]
    assert wire["system"][1]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert wire["tools"][1]["cache_control"] == {"type": "ephemeral"}


def test_breakpoint_on_assistant_lands_on_last_tool_use_and_negative_index():
    wire = map_request(request(breakpoints=[Breakpoint("message", 1), Breakpoint("message", -1)]))
    assert markers(wire) == ["messages[1][2]", "messages[2][2]"]


def test_breakpoint_on_last_tool_result():
    wire = map_request(request(breakpoints=[Breakpoint("message", 3)]))
    assert markers(wire) == ["messages[2][1]"]


def test_more_than_four_breakpoints_raise():
    points = [Breakpoint("tools"), Breakpoint("system", 0), Breakpoint("system", 1),
              Breakpoint("message", 0), Breakpoint("message", 4)]
    with pytest.raises(ValueError, match="4"):
        map_request(request(breakpoints=points))


def test_out_of_range_breakpoint_raises():
    with pytest.raises(ValueError):
        map_request(request(breakpoints=[Breakpoint("message", 9)]))


def test_tools_breakpoint_without_tools_is_ignored():
    wire = map_request(request(tools=[], breakpoints=[Breakpoint("tools")]))
    assert "tools" not in wire
    assert markers(wire) == []


def test_breakpoints_do_not_change_other_bytes():
    plain = map_request(request())
    marked = map_request(request(breakpoints=[Breakpoint("message", 4)]))
    del marked["messages"][2]["content"][2]["cache_control"]
    assert canonical_json(plain) == canonical_json(marked)


def test_roles_alternate_and_empty_text_never_sent():
    messages = [
        Message("user", ""),
        Message("assistant", "", tool_calls=(ToolCall("t1", "shell", "{}"),)),
        Message("tool", "", tool_call_id="t1"),
        Message("user", ""),
        Message("assistant", ""),
    ]
    wire = map_request(request(messages=messages, breakpoints=[Breakpoint("message", 3)]))
    roles = [m["role"] for m in wire["messages"]]
    assert roles == ["user", "assistant", "user", "assistant"]
    assert wire["messages"][0]["content"] == [{"type": "text", "text": "(empty)"}]
    assert wire["messages"][1]["content"] == [{"type": "tool_use", "id": "t1", "name": "shell", "input": {}}]
    # the empty user message adds no block; its breakpoint lands on the block before it
    assert wire["messages"][2]["content"] == [
        {"type": "tool_result", "tool_use_id": "t1", "cache_control": {"type": "ephemeral"}}
    ]
    assert wire["messages"][3]["content"] == [{"type": "text", "text": "(empty)"}]
    for message in wire["messages"]:
        for block in message["content"]:
            assert block.get("text", "x") != ""


def test_tool_choice_mapping():
    assert map_request(request(tool_choice="none"))["tool_choice"] == {"type": "none"}
    assert map_request(request(tool_choice="any"))["tool_choice"] == {"type": "any"}
    assert map_request(request(tool_choice="auto"))["tool_choice"] == {"type": "auto"}
    assert "tool_choice" not in map_request(request(tools=[], tool_choice="none"))


def test_empty_system_block_dropped_breakpoint_moves_back():
    system = [SystemBlock("stable"), SystemBlock("", layer="ephemeral")]
    wire = map_request(request(system=system, breakpoints=[Breakpoint("system", 1)]))
    assert wire["system"] == [{"type": "text", "text": "stable", "cache_control": {"type": "ephemeral"}}]


def test_usage_split_5m_1h():
    usage = map_usage({
        "input_tokens": 50,
        "cache_creation_input_tokens": 300,
        "cache_creation": {"ephemeral_5m_input_tokens": 100, "ephemeral_1h_input_tokens": 200},
        "cache_read_input_tokens": 4000,
        "output_tokens": 70,
    })
    assert (usage.uncached, usage.write_5m, usage.write_1h, usage.cache_read, usage.output) == (
        50, 100, 200, 4000, 70)
    assert usage.prompt_tokens == 50 + 300 + 4000
    assert usage.cache_known


def test_usage_total_only_counts_as_5m():
    usage = map_usage({"input_tokens": 5, "cache_creation_input_tokens": 30, "output_tokens": 1})
    assert (usage.write_5m, usage.write_1h, usage.cache_read) == (30, 0, 0)


def test_usage_missing_is_unknown():
    assert map_usage(None).cache_known is False


def test_map_response_with_diagnostics():
    reply = map_response({
        "id": "msg_1", "model": "claude-sonnet-5-5", "stop_reason": "tool_use",
        "content": [
            {"type": "text", "text": "ok"},
            {"type": "tool_use", "id": "tu_9", "name": "shell", "input": {"z": 1, "a": [2]}},
        ],
        "usage": {"input_tokens": 3, "output_tokens": 4, "cache_read_input_tokens": 10},
        "diagnostics": {"cache_miss_reason": {"type": "system_changed", "cache_missed_input_tokens": 900}},
    })
    assert reply.message.content == "ok"
    assert reply.message.tool_calls == (ToolCall("tu_9", "shell", '{"a":[2],"z":1}'),)
    assert (reply.miss_reason, reply.missed_tokens) == ("system_changed", 900)
    assert reply.response_id == "msg_1" and reply.stop_reason == "tool_use"
    assert reply.usage.cache_read == 10


def test_stream_accumulation():
    events = [
        {"type": "message_start", "message": {
            "id": "msg_2", "model": "claude-sonnet-5-5", "content": [], "diagnostics": None,
            "usage": {"input_tokens": 10, "cache_creation_input_tokens": 0,
                      "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
                      "cache_read_input_tokens": 2000, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi "}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "there"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1,
         "content_block": {"type": "tool_use", "id": "tu_1", "name": "shell", "input": {}}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": '{"cmd": '}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": '"ls"}'}},
        {"type": "content_block_stop", "index": 1},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"},
         "usage": {"output_tokens": 42, "input_tokens": None}},
        {"type": "message_stop"},
    ]
    acc = StreamAccumulator()
    texts = [t for t in (acc.feed(e) for e in events) if t]
    assert texts == ["Hi ", "there"]
    reply = map_response(acc.response())
    assert reply.message.content == "Hi there"
    assert reply.message.tool_calls == (ToolCall("tu_1", "shell", '{"cmd":"ls"}'),)
    assert (reply.usage.uncached, reply.usage.cache_read, reply.usage.output) == (10, 2000, 42)
    assert reply.stop_reason == "tool_use"


def test_incomplete_stream_is_transient():
    from agent.errors import TransientProviderError

    acc = StreamAccumulator()
    acc.feed({"type": "message_start", "message": {"id": "m", "content": [], "usage": {}}})
    with pytest.raises(TransientProviderError):
        acc.response()


@pytest.mark.wire
def test_importing_adapters_does_not_import_sdks():
    import subprocess
    import sys

    code = ("import sys, agent.providers, agent.providers.anthropic.adapter, "
            "agent.providers.openai.adapter, agent.providers.registry, "
            "agent.cost.pricing; print(sorted(m for m in sys.modules "
            "if m.split('.')[0] in ('anthropic', 'openai', 'httpx', 'httpx2')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
