"""The fake Responses API and its GPT-5.6 cache rules, through the real openai SDK."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import openai
import pytest

from tests.fakes import FakeProvider, Reply, ToolCall

pytestmark = pytest.mark.wire  # opens a socket

NEW, OLD = "gpt-5.6-sol", "gpt-5.5"
BP = {"mode": "explicit"}
SHARED = "You are a careful test assistant. " * 60  # ~510 tokens
PROJECT = "The project is a calculator. " * 60
TOOLS = [{"type": "function", "name": "read", "description": "read a file " * 20,
          "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}]


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with FakeProvider(openai_min_cache_tokens=256) as provider:
        yield provider


@pytest.fixture
def client(fake: FakeProvider) -> openai.OpenAI:
    return openai.OpenAI(base_url=fake.openai_base_url, api_key="test", max_retries=0)


def system(*marked: bool) -> dict[str, Any]:
    parts = []
    for text, mark in zip((SHARED, PROJECT), marked, strict=False):
        part: dict[str, Any] = {"type": "input_text", "text": text}
        if mark:
            part["prompt_cache_breakpoint"] = BP
        parts.append(part)
    return {"role": "system", "content": parts}


def user(text: str, mark: bool = False) -> dict[str, Any]:
    part: dict[str, Any] = {"type": "input_text", "text": text}
    if mark:
        part["prompt_cache_breakpoint"] = BP
    return {"role": "user", "content": [part]}


def ask(client: openai.OpenAI, items: list[dict], model: str = NEW, **kw: Any) -> Any:
    return client.responses.create(model=model, input=items, tools=TOOLS, **kw)


def test_a_new_session_reads_the_shared_prefix_exactly_at_its_breakpoint(fake, client) -> None:
    first = ask(client, [system(True, True), user("session one " * 50, True)])
    details = first.usage.input_tokens_details
    assert details.cached_tokens == 0 and details.cache_write_tokens == first.usage.input_tokens
    assert details.cache_write_tokens_details.ttl_30m_tokens == details.cache_write_tokens
    second = ask(client, [system(True, True), user("session two", True)])
    read = second.usage.input_tokens_details.cached_tokens
    assert 0 < read < fake.last.prompt_tokens and read == fake.last.cache_read
    assert second.usage.input_tokens_details.cache_write_tokens == fake.last.prompt_tokens - read
    # without a breakpoint on the system parts the first session wrote only its end
    fake.reset()
    ask(client, [system(False, False), user("session one " * 50)])
    assert ask(client, [system(False, False), user("session two")]).usage \
        .input_tokens_details.cached_tokens == 0


def test_implicit_mode_writes_three_explicit_plus_the_end_explicit_mode_four(fake, client) -> None:
    items = [system(True, True), user("a " * 300, True), user("b " * 300, True),
             user("c " * 300)]
    ask(client, items, prompt_cache_options={"mode": "implicit"})
    assert fake.last.cache_write == fake.last.prompt_tokens
    fake.reset()
    # five explicit breakpoints in explicit mode: the first (shared end) is not written
    items = [system(True, True), user("a " * 300, True), user("b " * 300, True),
             user("c " * 300, True)]
    ask(client, items, prompt_cache_options={"mode": "explicit"})
    ask(client, [system(True, False), user("other")], prompt_cache_options={"mode": "explicit"})
    assert fake.last.cache_read == 0
    # explicit mode without breakpoints caches nothing
    fake.reset()
    for _ in range(2):
        ask(client, [system(False, False), user("x")], prompt_cache_options={"mode": "explicit"})
        assert (fake.last.cache_read, fake.last.cache_write) == (0, 0)


def test_matching_looks_at_the_latest_80_breakpoints_only(fake, client) -> None:
    head = [system(True, False)]
    ask(client, head + [user("tail", True)], prompt_cache_options={"mode": "explicit"})
    filler = [user(f"turn {i}", True) for i in range(79)]
    ask(client, head + filler, prompt_cache_options={"mode": "explicit"})
    assert fake.last.cache_read > 0  # the system breakpoint is the 80th latest
    ask(client, head + filler + [user("one more", True)],
        prompt_cache_options={"mode": "explicit"})
    # the latest 4 of the previous request were written, read at the 80 latest
    assert fake.last.cache_read > fake.requests[1].cache_read


def test_gpt_5_5_refuses_every_5_6_only_parameter(fake, client) -> None:
    for kw in ({"prompt_cache_options": {"mode": "explicit"}},
               {"prompt_cache_retention": "in_memory"}):
        with pytest.raises(openai.BadRequestError):
            ask(client, [user("x")], OLD, **kw)
    with pytest.raises(openai.BadRequestError, match="prompt_cache_breakpoint"):
        ask(client, [user("x", True)], OLD)
    reply = ask(client, [user("x")], OLD, prompt_cache_retention="24h")
    assert reply.usage.input_tokens_details.cache_write_tokens == 0  # writes free before 5.6


def test_prewarm_writes_without_output_and_a_later_request_reads(fake, client) -> None:
    fake.script(Reply(text="scripted"))
    items = [system(True, True), user("q", True)]
    warm = ask(client, items, prompt_cache_options={"prewarm": True})
    assert warm.output == [] and warm.usage.output_tokens == 0
    assert warm.usage.input_tokens_details.cache_write_tokens > 0 and fake.remaining == 1
    fake.clock.advance(1700)
    ask(client, items, prompt_cache_options={"prewarm": True})
    fake.clock.advance(1700)  # 3400 s after the write: alive only thanks to the prewarm
    reply = ask(client, items)
    assert reply.output_text == "scripted"
    assert reply.usage.input_tokens_details.cached_tokens == fake.last.prompt_tokens


def test_diagnostics_name_the_cause_against_the_compared_response(fake, client) -> None:
    items = [system(True, True), user("q", True)]
    first = ask(client, items)
    hit = ask(client, items, prompt_cache_options={"comparison_response_id": first.id})
    assert hit.prompt_cache_diagnostics.type == "cache_hit"
    miss = client.responses.create(model=NEW, input=items, tools=TOOLS[:0],
                                   prompt_cache_options={"comparison_response_id": first.id})
    assert miss.prompt_cache_diagnostics.reason == "tools_changed"
    assert miss.prompt_cache_diagnostics.cache_missed_tokens == fake.last.prompt_tokens
    edited = ask(client, [system(True, True), user("another q", True)],
                 prompt_cache_options={"comparison_response_id": first.id})
    assert edited.prompt_cache_diagnostics.reason == "input_changed"
    gone = ask(client, items, prompt_cache_options={"comparison_response_id": "resp_nope"})
    assert gone.prompt_cache_diagnostics.type == "comparison_response_not_found"
    unstored = ask(client, items, store=False)
    later = ask(client, items, prompt_cache_options={"comparison_response_id": unstored.id})
    assert later.prompt_cache_diagnostics.type == "comparison_response_not_found"


def test_reasoning_items_come_back_encrypted_and_are_required_in_a_tool_loop(fake, client) -> None:
    fake.script(Reply(tool_calls=[ToolCall("read", {"path": "a"}, id="call_1")],
                      thinking="I should read a."))
    kw: dict[str, Any] = {"store": False, "include": ["reasoning.encrypted_content"],
                          "reasoning": {"effort": "high", "summary": "auto"}}
    with client.responses.stream(model=NEW, input=[user("read a")], tools=TOOLS, **kw) as s:
        kinds = {event.type for event in s}
        first = s.get_final_response()
    assert "response.reasoning_summary_text.delta" in kinds
    reasoning, call = first.output[0], first.output[1]
    assert reasoning.type == "reasoning" and reasoning.encrypted_content
    assert reasoning.summary[0].text == "I should read a."
    result = {"type": "function_call_output", "call_id": "call_1", "output": "A"}
    plain_call = {"type": "function_call", "call_id": call.call_id, "name": call.name,
                  "arguments": call.arguments}
    with pytest.raises(openai.BadRequestError, match="without its required 'reasoning'"):
        ask(client, [user("read a"), plain_call, result], **kw)
    bare = {"type": "reasoning", "id": reasoning.id, "summary": []}
    with pytest.raises(openai.BadRequestError, match="not persisted"):
        ask(client, [user("read a"), bare, plain_call, result], **kw)
    sent = reasoning.model_dump(exclude_none=True)
    fake.script(Reply(text="done"))  # a refused request consumes its scripted item
    assert ask(client, [user("read a"), sent, plain_call, result], **kw).output_text == "done"
