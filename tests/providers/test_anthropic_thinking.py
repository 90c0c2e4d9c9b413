"""Thinking in the pure Anthropic mapping and in the reasoning settings (fast tier)."""

from __future__ import annotations

import pytest

from agent.messages import (
    Message,
    Reasoning,
    Request,
    SystemBlock,
    ToolCall,
    ToolSchema,
    block_json,
    thinking_text,
)
from agent.providers.anthropic.adapter import StreamAccumulator, map_request, map_response
from agent.providers.base import StreamThinking
from agent.providers.reasoning import from_config, max_tokens_for, parse, problem

THINK = {"type": "thinking", "thinking": "I should read a.\n\u00e9", "signature": "c2lnMQ=="}
REDACTED = {"type": "redacted_thinking", "data": "b3BhcXVl.abc"}
TOOLS = [ToolSchema("read", "read a file", {"type": "object"})]
BUDGET = Reasoning("budget", 4000)


def request(messages, **kw) -> Request:
    return Request(model="claude-sonnet-5", system=[SystemBlock("sys")], messages=messages,
                   tools=TOOLS, **kw)


def test_thinking_blocks_are_sent_first_exactly_as_received() -> None:
    assistant = Message("assistant", "reading", (ToolCall("t1", "read", '{"path":"a"}'),),
                        reasoning=(block_json(THINK), block_json(REDACTED)))
    wire = map_request(request([Message("user", "go"), assistant,
                                Message("tool", "A", tool_call_id="t1")], reasoning=BUDGET))
    content = wire["messages"][1]["content"]
    assert content[0] == THINK and content[1] == REDACTED
    assert [b["type"] for b in content[2:]] == ["text", "tool_use"]
    assert wire["thinking"] == {"type": "enabled", "budget_tokens": 4000}


def test_response_keeps_blocks_and_text_apart() -> None:
    reply = map_response({"id": "m", "content": [THINK, REDACTED, {"type": "text", "text": "hi"}],
                          "usage": {"input_tokens": 1, "output_tokens": 9}})
    assert reply.message.content == "hi"
    assert reply.message.reasoning == (block_json(THINK), block_json(REDACTED))
    assert thinking_text(reply.message.reasoning) == THINK["thinking"]
    assert reply.usage.output == 9  # thinking is output


def test_stream_accumulates_thinking_and_signature() -> None:
    acc = StreamAccumulator()
    acc.feed({"type": "message_start", "message": {"id": "m", "content": [], "usage": {}}})
    acc.feed({"type": "content_block_start", "index": 0,
              "content_block": {"type": "thinking", "thinking": "", "signature": ""}})
    out = [acc.feed({"type": "content_block_delta", "index": 0,
                     "delta": {"type": "thinking_delta", "thinking": part}})
           for part in ("I should ", "read a.\n\u00e9")]
    acc.feed({"type": "content_block_delta", "index": 0,
              "delta": {"type": "signature_delta", "signature": "c2lnMQ=="}})
    acc.feed({"type": "content_block_start", "index": 1, "content_block": REDACTED})
    acc.feed({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}})
    acc.feed({"type": "message_stop"})
    assert out == [StreamThinking("I should "), StreamThinking("read a.\n\u00e9")]
    reply = map_response(acc.response())
    assert reply.message.reasoning == (block_json(THINK), block_json(REDACTED))


@pytest.mark.parametrize("choice", ["any", "required", "read"])
def test_thinking_never_goes_with_forced_tool_choice_or_temperature(choice) -> None:
    wire = map_request(request([Message("user", "x")], tool_choice=choice, temperature=0.3,
                               reasoning=Reasoning("adaptive")))
    assert "tool_choice" not in wire and "temperature" not in str(wire)
    assert wire["thinking"] == {"type": "adaptive"}
    off = map_request(request([Message("user", "x")], tool_choice=choice, temperature=0.3))
    assert off["tool_choice"]["type"] in ("any", "tool") and "thinking" not in off
    assert off["extra_body"] == {"temperature": 0.3}


def test_effort_goes_to_output_config() -> None:
    wire = map_request(request([Message("user", "x")], reasoning_effort="high",
                               reasoning=Reasoning(effort="high")))
    assert wire["output_config"] == {"effort": "high"} and "thinking" not in wire


@pytest.mark.parametrize("text, expected", [
    ("off", Reasoning()),
    ("adaptive", Reasoning("adaptive")),
    ("8000", Reasoning("budget", 8000)),
    ("budget=16_000 effort=high", Reasoning("budget", 16000, "high")),
    ("high", Reasoning(effort="high")),
    ("thinking=adaptive, effort=max", Reasoning("adaptive", 0, "max")),
])
def test_parse(text, expected) -> None:
    assert parse(text) == expected


@pytest.mark.parametrize("text, words", [
    ("512", "at least 1,024"), ("lots", "not a thinking setting"),
    ("effort=huge", "unknown effort"), ("color=red", "unknown reasoning setting"), ("", "say how"),
])
def test_parse_refuses_with_one_line(text, words) -> None:
    with pytest.raises(ValueError, match=words) as refused:
        parse(text)
    assert "\n" not in str(refused.value)


def test_config_forms_and_budget_room() -> None:
    assert from_config({"thinking": 2048, "effort": "low"}) == Reasoning("budget", 2048, "low")
    assert from_config("adaptive") == Reasoning("adaptive") and from_config(None) == Reasoning()
    with pytest.raises(ValueError, match="unknown key 'budget_tokens'"):
        from_config({"budget_tokens": 2048})
    assert max_tokens_for(Reasoning("budget", 10_000), 8192) == 18_192 > 10_000
    assert max_tokens_for(Reasoning("adaptive"), 8192) == 8192


def test_what_each_model_supports() -> None:
    assert problem(Reasoning("adaptive"), "anthropic", "claude-opus-5") is None
    assert "does not support adaptive" in problem(Reasoning("adaptive"), "anthropic",
                                                  "claude-haiku-4-5")
    assert problem(Reasoning("budget", 2048), "anthropic", "claude-haiku-4-5") is None
    assert "no thinking setting" in problem(Reasoning("budget", 2048), "openai", "gpt-5.5")
    assert problem(Reasoning(effort="minimal"), "openai", "gpt-5.5") is None
    assert "not one of anthropic's" in problem(Reasoning(effort="minimal"), "anthropic", "x")


def test_a_model_without_the_mode_gets_thinking_off_not_a_refused_request() -> None:
    from agent.providers.reasoning import for_model

    adaptive = Reasoning("adaptive", 0, "high")
    assert for_model(adaptive, "anthropic", "claude-opus-5") == adaptive
    assert for_model(adaptive, "anthropic", "claude-haiku-4-5") == Reasoning(effort="high")
    assert for_model(Reasoning("budget", 2048, "minimal"), "openai", "gpt-5.5") == \
        Reasoning(effort="minimal")
    assert for_model(Reasoning(effort="minimal"), "anthropic", "claude-opus-5") == Reasoning()


def test_openai_compatible_reasoning_content_is_a_thinking_delta() -> None:
    from agent.providers.openai.adapter import StreamAccumulator as OpenAIAccumulator

    acc = OpenAIAccumulator()
    chunk = {"id": "c", "choices": [{"index": 0, "delta": {"reasoning_content": "hmm "}}]}
    assert acc.feed(chunk) == StreamThinking("hmm ")
    text = {"id": "c", "choices": [{"index": 0, "delta": {"content": "answer"}}]}
    assert acc.feed(text) == "answer" and "".join(acc.text) == "answer"  # thinking not kept
