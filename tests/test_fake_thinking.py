"""The fake Anthropic API's extended thinking, through the real anthropic SDK."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anthropic
import pytest

from tests.fakes import FakeProvider, Reply, ToolCall

pytestmark = pytest.mark.wire  # opens a socket

MODEL = "claude-sonnet-5"
SYSTEM = [{"type": "text", "text": "You are a careful test assistant. " * 40,
           "cache_control": {"type": "ephemeral"}}]
TOOLS = [{"name": "read", "description": "read a file " * 20,
          "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}]
BUDGET = {"type": "enabled", "budget_tokens": 2048}


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with FakeProvider(min_cache_tokens=64) as provider:
        yield provider


@pytest.fixture
def client(fake: FakeProvider) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=fake.anthropic_base_url, api_key="test", max_retries=0)


def ask(client: anthropic.Anthropic, messages: list[dict[str, Any]], **kw: Any) -> Any:
    kw.setdefault("thinking", BUDGET)
    return client.messages.create(model=MODEL, max_tokens=4096, system=SYSTEM, tools=TOOLS,
                                  messages=messages, **kw)


def tool_turn(fake: FakeProvider, client: anthropic.Anthropic) -> tuple[list[dict], Any]:
    fake.script(Reply(tool_calls=[ToolCall("read", {"path": "a"}, id="toolu_1")],
                      thinking="I should read a."))
    first = [{"role": "user", "content": "read a"}]
    reply = ask(client, first)
    return first, reply


def continuation(first: list[dict], assistant: list[dict]) -> list[dict]:
    return [*first, {"role": "assistant", "content": assistant},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                                          "content": "A"}]}]


def test_thinking_blocks_stream_with_a_signature_and_count_as_output(fake, client) -> None:
    fake.script(Reply(text="hi", thinking="Deep thought."))
    with client.messages.stream(model=MODEL, max_tokens=4096, thinking=BUDGET,
                                messages=[{"role": "user", "content": "x"}]) as stream:
        kinds = [event.delta.type for event in stream if event.type == "content_block_delta"]
        message = stream.get_final_message()
    assert "thinking_delta" in kinds and "signature_delta" in kinds
    block = message.content[0]
    assert block.type == "thinking" and block.thinking == "Deep thought." and block.signature
    assert message.content[1].text == "hi"
    assert message.usage.output_tokens == 1 + len("Deep thought.") // 4 + 1


def test_no_thinking_blocks_when_thinking_is_off(fake, client) -> None:
    fake.script(Reply(text="hi", thinking="unused"))
    message = client.messages.create(model=MODEL, max_tokens=100,
                                     messages=[{"role": "user", "content": "x"}])
    assert [b.type for b in message.content] == ["text"]


def test_continuation_verbatim_is_accepted(fake, client) -> None:
    first, reply = tool_turn(fake, client)
    assistant = [b.model_dump(exclude_none=True) for b in reply.content]
    assert assistant[0]["type"] == "thinking"
    fake.script(Reply(text="done"))
    assert ask(client, continuation(first, assistant)).content[-1].text == "done"


def test_continuation_without_or_with_altered_thinking_is_refused(fake, client) -> None:
    first, reply = tool_turn(fake, client)
    assistant = [b.model_dump(exclude_none=True) for b in reply.content]
    with pytest.raises(anthropic.BadRequestError, match="Expected `thinking` or `redacted_thinking`"):
        ask(client, continuation(first, assistant[1:]))
    altered = [dict(assistant[0], thinking="I should read b."), *assistant[1:]]
    with pytest.raises(anthropic.BadRequestError, match="signature"):
        ask(client, continuation(first, altered))


def test_redacted_thinking_is_returned_and_must_come_back_unchanged(fake, client) -> None:
    fake.script(Reply(tool_calls=[ToolCall("read", {"path": "a"}, id="toolu_1")],
                      thinking="secret", redacted=True))
    first = [{"role": "user", "content": "read a"}]
    reply = ask(client, first)
    block = reply.content[0].model_dump()
    assert block["type"] == "redacted_thinking" and "secret" not in block["data"]
    assistant = [b.model_dump(exclude_none=True) for b in reply.content]
    fake.script(Reply(text="ok"))
    ask(client, continuation(first, assistant))
    tampered = [dict(block, data=block["data"][:-1] + "0"), *assistant[1:]]
    with pytest.raises(anthropic.BadRequestError, match="signature"):
        ask(client, continuation(first, tampered))


@pytest.mark.parametrize("extra, match", [
    ({"extra_body": {"temperature": 0.2}}, "temperature"),  # SDK 2.14 has no parameter
    ({"tool_choice": {"type": "any"}}, "forces tool use"),
    ({"tool_choice": {"type": "tool", "name": "read"}}, "forces tool use"),
    ({"thinking": {"type": "enabled", "budget_tokens": 512}}, "greater than or equal to 1024"),
    ({"thinking": {"type": "enabled", "budget_tokens": 8192}}, "max_tokens"),
])
def test_settings_thinking_refuses(fake, client, extra, match) -> None:
    with pytest.raises(anthropic.BadRequestError, match=match):
        ask(client, [{"role": "user", "content": "x"}], **extra)


def test_adaptive_only_where_the_model_supports_it(fake, client) -> None:
    fake.script(Reply(text="a"))
    ask(client, [{"role": "user", "content": "x"}], thinking={"type": "adaptive"})
    with pytest.raises(anthropic.BadRequestError, match="adaptive"):
        client.messages.create(model="claude-haiku-4-5", max_tokens=100,
                               thinking={"type": "adaptive"},
                               messages=[{"role": "user", "content": "x"}])


def test_a_thinking_change_breaks_the_messages_cache_only(fake, client) -> None:
    history = [{"role": "user", "content": [{"type": "text", "text": "long question " * 100,
                                             "cache_control": {"type": "ephemeral"}}]}]
    ask(client, history)
    same = ask(client, history)
    assert same.usage.cache_read_input_tokens == fake.last.prompt_tokens
    changed = ask(client, history, thinking={"type": "enabled", "budget_tokens": 3000})
    prefix = changed.usage.cache_read_input_tokens
    assert 0 < prefix < fake.last.prompt_tokens  # tools + system read, messages written
    assert changed.usage.cache_creation_input_tokens == fake.last.prompt_tokens - prefix
