"""Pure mapping tests for the OpenAI Chat Completions adapter."""

from __future__ import annotations

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
from agent.providers.openai.adapter import StreamAccumulator, map_request, map_response, map_usage

TOOLS = [ToolSchema("shell", "Run a command", {"properties": {"cmd": {"type": "string"}}, "type": "object"})]
SYSTEM = [SystemBlock("You are hermes."), SystemBlock("Preloaded skill", layer="ephemeral")]


def history() -> list[Message]:
    return [
        Message("user", "hi", wire_suffix=" [recalled: tea]"),
        Message("assistant", "", tool_calls=(ToolCall("call_1", "shell", '{"cmd":"ls"}'),)),
        Message("tool", "a.txt", tool_call_id="call_1", tool_name="shell"),
        Message("assistant", "There is a.txt."),
        Message("user", "thanks"),
    ]


def request(**changes) -> Request:
    values = {"model": "gpt-5.5", "system": SYSTEM, "messages": history(), "tools": TOOLS,
              "session_id": "sess-1"}
    values.update(changes)
    return Request(**values)


def test_byte_stable():
    assert canonical_json(map_request(request())) == canonical_json(map_request(request()))
    points = [Breakpoint("system", 1), Breakpoint("message", -1)]
    assert canonical_json(map_request(request(breakpoints=points))) == canonical_json(
        map_request(request(breakpoints=points)))


def test_plain_shape():
    wire = map_request(request())
    assert wire["model"] == "gpt-5.5"
    assert wire["stream"] is True
    assert wire["stream_options"] == {"include_usage": True}
    assert wire["prompt_cache_key"] == "sess-1"
    assert wire["max_completion_tokens"] == 8192 and "max_tokens" not in wire  # gpt-5 family
    local = map_request(request(model="llama-3.1-8b"))
    assert local["max_tokens"] == 8192 and "max_completion_tokens" not in local
    assert wire["tools"] == [{"type": "function", "function": {
        "name": "shell", "description": "Run a command", "parameters": TOOLS[0].parameters}}]
    assert wire["messages"] == [
        {"role": "system", "content": "You are hermes.\n\nPreloaded skill"},
        {"role": "user", "content": "hi [recalled: tea]"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "shell", "arguments": '{"cmd":"ls"}'}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "a.txt"},
        {"role": "assistant", "content": "There is a.txt."},
        {"role": "user", "content": "thanks"},
    ]
    assert "tool_choice" not in wire and "temperature" not in wire


def test_arguments_sent_exactly_as_stored():
    odd = Message("assistant", "", tool_calls=(ToolCall("c", "shell", "{not json"),))
    wire = map_request(request(messages=[Message("user", "x"), odd]))
    assert wire["messages"][2]["tool_calls"][0]["function"]["arguments"] == "{not json"


def test_no_session_no_cache_key_and_tool_choice():
    wire = map_request(request(session_id=None, tool_choice="none", temperature=0.0))
    assert "prompt_cache_key" not in wire
    assert wire["tool_choice"] == "none"
    assert wire["temperature"] == 0.0
    assert map_request(request(tool_choice="any"))["tool_choice"] == "required"


def test_breakpoints_use_content_parts():
    points = [Breakpoint("tools"), Breakpoint("system", 0, ttl="1h"), Breakpoint("message", 2),
              Breakpoint("message", 4)]
    wire = map_request(request(breakpoints=points))
    system = wire["messages"][0]
    assert system["content"] == [
        {"type": "text", "text": "You are hermes.", "cache_control": {"type": "ephemeral", "ttl": "1h"}},
        {"type": "text", "text": "Preloaded skill"},
    ]
    assert wire["messages"][1]["content"] == [{"type": "text", "text": "hi [recalled: tea]"}]
    assert wire["messages"][3]["content"] == [
        {"type": "text", "text": "a.txt", "cache_control": {"type": "ephemeral"}}]
    assert wire["messages"][5]["content"] == [
        {"type": "text", "text": "thanks", "cache_control": {"type": "ephemeral"}}]
    assert "cache_control" not in str(wire["tools"])


def test_too_many_breakpoints_raise():
    points = [Breakpoint("system", 0), Breakpoint("system", 1)] + [Breakpoint("message", i) for i in (0, 3, 4)]
    with pytest.raises(ValueError):
        map_request(request(breakpoints=points))


def test_usage_openai():
    usage = map_usage({"prompt_tokens": 2000, "completion_tokens": 50,
                       "prompt_tokens_details": {"cached_tokens": 1536}})
    assert (usage.uncached, usage.cache_read, usage.write_5m, usage.output) == (464, 1536, 0, 50)
    assert usage.prompt_tokens == 2000 and usage.cache_known


def test_usage_openrouter_cache_write():
    usage = map_usage({"prompt_tokens": 3000, "completion_tokens": 9,
                       "prompt_tokens_details": {"cached_tokens": 1000, "cache_write_tokens": 1500}})
    assert (usage.uncached, usage.write_5m, usage.cache_read) == (500, 1500, 1000)
    top_level = map_usage({"prompt_tokens": 3000, "completion_tokens": 9, "cache_write_tokens": 1500,
                           "prompt_tokens_details": {"cached_tokens": 0}})
    assert (top_level.uncached, top_level.write_5m) == (1500, 1500)


def test_usage_deepseek():
    usage = map_usage({"prompt_tokens": 1000, "completion_tokens": 5,
                       "prompt_cache_hit_tokens": 768, "prompt_cache_miss_tokens": 232})
    assert (usage.uncached, usage.cache_read, usage.output) == (232, 768, 5)
    assert usage.cache_known


def test_usage_llamacpp_timings_and_details_preferred():
    timings = {"cache_n": 900, "prompt_n": 100, "predicted_n": 7}
    only_timings = map_usage({"prompt_tokens": 1000, "completion_tokens": 7}, timings)
    assert (only_timings.uncached, only_timings.cache_read) == (100, 900)
    preferred = map_usage({"prompt_tokens": 1000, "completion_tokens": 7,
                           "prompt_tokens_details": {"cached_tokens": 896}}, timings)
    assert preferred.cache_read == 896
    no_usage = map_usage(None, timings)
    assert (no_usage.uncached, no_usage.cache_read, no_usage.output) == (100, 900, 7)


def test_usage_ollama_style_is_unknown():
    usage = map_usage({"prompt_tokens": 1200, "completion_tokens": 30})
    assert usage.cache_known is False
    assert usage.hit_rate is None
    assert (usage.uncached, usage.output) == (1200, 30)
    assert map_usage(None).cache_known is False


def test_stream_accumulation_text_tools_usage():
    chunks = [
        {"id": "c1", "model": "gpt-5.5", "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]},
        {"id": "c1", "choices": [{"index": 0, "delta": {"content": "Hel"}}]},
        {"id": "c1", "choices": [{"index": 0, "delta": {"content": "lo"}}]},
        {"id": "c1", "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "id": "call_a", "type": "function", "function": {"name": "shell", "arguments": ""}}]}}]},
        {"id": "c1", "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "function": {"arguments": '{"cmd": "pwd", '}}]}}]},
        {"id": "c1", "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "function": {"arguments": '"a": 1}'}},
            {"index": 1, "id": "call_b", "function": {"name": "shell", "arguments": "{}"}}]}}]},
        {"id": "c1", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
        {"id": "c1", "choices": [], "usage": {"prompt_tokens": 100, "completion_tokens": 20,
                                              "prompt_tokens_details": {"cached_tokens": 64}}},
    ]
    acc = StreamAccumulator()
    texts = [t for t in (acc.feed(c) for c in chunks) if t]
    assert texts == ["Hel", "lo"]
    reply = map_response(acc.response())
    assert reply.message.content == "Hello"
    assert reply.message.tool_calls == (
        ToolCall("call_a", "shell", '{"a":1,"cmd":"pwd"}'),
        ToolCall("call_b", "shell", "{}"),
    )
    assert (reply.usage.uncached, reply.usage.cache_read, reply.usage.output) == (36, 64, 20)
    assert reply.stop_reason == "tool_calls" and reply.response_id == "c1"


def test_stream_without_usage_is_unknown():
    acc = StreamAccumulator()
    acc.feed({"id": "x", "choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": "stop"}]})
    reply = map_response(acc.response())
    assert reply.usage.cache_known is False
    assert (reply.usage.uncached, reply.usage.output) == (0, 0)


def test_stream_cut_short_is_transient():
    from agent.errors import TransientProviderError

    acc = StreamAccumulator()
    acc.feed({"id": "x", "choices": [{"index": 0, "delta": {"content": "par"}}]})
    with pytest.raises(TransientProviderError):
        acc.response()
