"""The Gemini wire mapping, pure (fast tier): requests, usage, and thought signatures
kept byte for byte from a streamed reply to the next request and through the store."""

from __future__ import annotations

import base64

from agent.messages import Message, Reasoning, Request, SystemBlock, ToolCall, ToolSchema
from agent.providers.base import StreamThinking
from agent.providers.gemini import wire

TOOLS = [ToolSchema("read_file", "Read a file", {"type": "object", "properties": {}})]
SIG = b"\xfb\xff\x00signature-bytes\xfe"  # urlsafe base64 has "-" and "_" in it


def request(**changes) -> Request:
    values = {"model": "gemini-3.5-flash", "system": [SystemBlock("be brief"), SystemBlock("")],
              "messages": [Message("user", "hi")], "tools": TOOLS}
    values.update(changes)
    return Request(**values)


def test_request_carries_system_tools_and_thinking() -> None:
    kwargs = wire.map_request(request(tool_choice="auto", reasoning=Reasoning("budget", 2048)))
    config = kwargs["config"]
    assert kwargs["contents"] == [{"role": "user", "parts": [{"text": "hi"}]}]
    assert config["system_instruction"] == {"parts": [{"text": "be brief"}]}
    assert config["tools"][0]["function_declarations"][0]["name"] == "read_file"
    assert config["tool_config"] == {"function_calling_config": {"mode": "AUTO"}}
    assert config["thinking_config"] == {"thinking_budget": 2048, "include_thoughts": True}


def test_a_cached_request_sends_neither_tools_nor_system() -> None:
    config = wire.map_request(request(tool_choice="auto"), cached="cachedContents/x")["config"]
    assert config["cached_content"] == "cachedContents/x"
    assert not {"system_instruction", "tools", "tool_config"} & set(config)


def test_usage_cached_is_inside_the_prompt_and_thoughts_are_output() -> None:
    usage = wire.map_usage({"prompt_token_count": 1000, "cached_content_token_count": 900,
                            "candidates_token_count": 30, "thoughts_token_count": 70})
    assert (usage.uncached, usage.cache_read, usage.output) == (100, 900, 100)
    assert usage.prompt_tokens == 1000
    assert not wire.map_usage(None).cache_known


def _chunk(parts, finish=None, usage=None) -> dict:
    candidate = {"content": {"role": "model", "parts": parts}}
    if finish:
        candidate["finish_reason"] = finish
    return {"candidates": [candidate], "usage_metadata": usage, "response_id": "r1"}


def test_streamed_parts_keep_their_signatures_byte_for_byte() -> None:
    acc = wire.StreamAccumulator()
    assert acc.feed(_chunk([{"text": "pondering ", "thought": True}])) == StreamThinking("pondering ")
    acc.feed(_chunk([{"text": "more", "thought": True}]))
    assert acc.feed(_chunk([{"text": "Let me read it."}])) == "Let me read it."
    acc.feed(_chunk([{"function_call": {"name": "read_file", "args": {"path": "a"}},
                      "thought_signature": SIG}], finish="STOP",
                    usage={"prompt_token_count": 10, "candidates_token_count": 5}))
    reply = wire.map_response(acc.response())
    assert reply.message.content == "Let me read it."
    assert reply.message.tool_calls[0].name == "read_file"
    # stored (as the store keeps it: text), then sent back: the same bytes, the same parts
    again = Message("assistant", reply.message.content, tool_calls=reply.message.tool_calls,
                    reasoning=tuple(str(r) for r in reply.message.reasoning))
    parts = wire.map_contents([Message("user", "read a"), again])[1]["parts"]
    assert parts == [{"text": "pondering more", "thought": True}, {"text": "Let me read it."},
                     {"function_call": {"name": "read_file", "args": {"path": "a"}},
                      "thought_signature": SIG}]
    assert wire.b64(parts[2]["thought_signature"]) == base64.urlsafe_b64encode(SIG).decode()


def test_a_signature_on_the_last_text_piece_ends_that_part() -> None:
    acc = wire.StreamAccumulator()
    acc.feed(_chunk([{"text": "Hel"}]))
    acc.feed(_chunk([{"text": "lo", "thought_signature": SIG}], finish="STOP"))
    assert acc.response()["parts"] == [{"text": "Hello", "thought_signature": wire.b64(SIG)}]


def test_another_providers_turn_is_sent_as_text_and_calls() -> None:
    turn = Message("assistant", "ok", tool_calls=(ToolCall("gcall-x", "read_file", '{"p":1}'),),
                   reasoning=('{"type":"thinking","thinking":"t","signature":"s"}',))
    result = Message("tool", "data", tool_call_id="gcall-x", tool_name="read_file")
    contents = wire.map_contents([Message("user", "q"), turn, result])
    assert contents[1] == {"role": "model", "parts": [
        {"text": "ok"}, {"function_call": {"name": "read_file", "args": {"p": 1}}}]}
    assert contents[2] == {"role": "user", "parts": [
        {"function_response": {"name": "read_file", "response": {"output": "data"}}}]}
