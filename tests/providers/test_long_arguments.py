"""Long streamed tool arguments are joined once, not re-copied per delta: 2 MB in the
16-byte deltas real servers send took minutes when each delta grew a string."""

from __future__ import annotations

import time

from agent.providers.anthropic.adapter import StreamAccumulator as AnthropicAccumulator
from agent.providers.openai.adapter import StreamAccumulator as OpenAIAccumulator

SIZE, PIECE = 2_000_000, 16
CPU_BUDGET_S = 10.0  # linear: ~0.3 s of CPU; one copy per delta: about a minute


def _pieces():
    text = "0123456789abcdef" * (SIZE // 16)
    return text, [text[i:i + PIECE] for i in range(0, SIZE, PIECE)]


def test_anthropic_input_json_deltas_are_linear():
    text, pieces = _pieces()
    acc = AnthropicAccumulator()
    acc.feed({"type": "message_start", "message": {"id": "m", "content": [], "usage": {}}})
    acc.feed({"type": "content_block_start", "index": 0,
              "content_block": {"type": "tool_use", "id": "t", "name": "x", "input": {}}})
    start = time.process_time()
    for piece in pieces:
        acc.feed({"type": "content_block_delta", "index": 0,
                  "delta": {"type": "input_json_delta", "partial_json": piece}})
    acc.feed({"type": "message_stop"})
    assert acc.response()["content"][0]["input"] == text
    assert time.process_time() - start < CPU_BUDGET_S


def test_openai_argument_deltas_are_linear():
    text, pieces = _pieces()
    acc = OpenAIAccumulator()
    start = time.process_time()
    for piece in pieces:
        acc.feed({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "function": {"arguments": piece}}]}}]})
    acc.feed({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    assert acc.response()["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] == text
    assert time.process_time() - start < CPU_BUDGET_S
