"""The fake provider server, exercised through the real anthropic and openai SDKs."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest

from tests.fakes import Drop, Error, FakeProvider, Reply, ToolCall
from tests.helpers import wait_until

pytestmark = pytest.mark.wire  # runs a process or opens a socket

MODEL = "claude-sonnet-5"
EPH = {"type": "ephemeral"}
HOUR = {"type": "ephemeral", "ttl": "1h"}
SYSTEM = "You are a careful test assistant. " * 12  # ~100 tokens


@pytest.fixture
def fake() -> Iterator[FakeProvider]:
    with FakeProvider(min_cache_tokens=64) as provider:
        yield provider


def ant(fake: FakeProvider, retries: int = 0) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=fake.anthropic_base_url, api_key="test",
                               max_retries=retries)


def oai(fake: FakeProvider, retries: int = 0) -> openai.OpenAI:
    return openai.OpenAI(base_url=fake.openai_base_url, api_key="test", max_retries=retries)


def text(value: str, cc: dict[str, Any] | None = None) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": value}
    if cc:
        block["cache_control"] = cc
    return block


def system(cc: dict[str, Any] | None = EPH, value: str = SYSTEM) -> list[dict[str, Any]]:
    return [text(value, cc)]


def ask(client: anthropic.Anthropic, messages: list[dict[str, Any]], **kw: Any) -> Any:
    kw.setdefault("system", system())
    kw.setdefault("model", MODEL)
    return client.messages.create(max_tokens=100, messages=messages, **kw)


def assert_sums(fake: FakeProvider) -> None:
    for rec in fake.requests_for("anthropic"):
        if rec.status == 200:
            u = rec.usage
            total = (u["input_tokens"] + u["cache_creation_input_tokens"]
                     + u["cache_read_input_tokens"])
            assert total == rec.prompt_tokens
            assert rec.cache_read == u["cache_read_input_tokens"]
            assert rec.cache_write == u["cache_creation_input_tokens"]


# ---------------------------------------------------------------- anthropic basics

def test_anthropic_text_reply_plain_and_streamed(fake: FakeProvider) -> None:
    client = ant(fake)
    fake.script(Reply(text="hello there"), Reply(text="streamed words", chunks=4))
    msg = ask(client, [{"role": "user", "content": "hi"}])
    assert msg.content[0].text == "hello there" and msg.stop_reason == "end_turn"
    assert msg.id == fake.requests[0].response_id and msg.id.startswith("msg_")
    with client.messages.stream(model=MODEL, max_tokens=10, system=SYSTEM,
                                messages=[{"role": "user", "content": "hi"}]) as stream:
        pieces = list(stream.text_stream)
        final = stream.get_final_message()
    assert "".join(pieces) == "streamed words" and len(pieces) == 4
    rec = fake.requests[1]
    assert rec.stream and rec.api == "anthropic" and rec.path == "/v1/messages"
    assert final.usage.input_tokens == rec.usage["input_tokens"] == rec.prompt_tokens
    assert final.usage.output_tokens == rec.usage["output_tokens"] == 4
    assert rec.headers["authorization"] == "Bearer test" and json.loads(rec.raw) == rec.body
    assert fake.remaining == 0
    ask(client, [{"role": "user", "content": "hi"}])
    assert fake.requests[-1].item == Reply(text="ok")


def test_anthropic_tool_round_trip(fake: FakeProvider) -> None:
    client = ant(fake)
    fake.script(Reply(text="reading", tool_calls=[ToolCall("read_file", {"path": "a.txt"}),
                                                   ToolCall("ls", {}, id="toolu_mine")]),
                Reply(text="done"))
    messages: list[dict[str, Any]] = [{"role": "user", "content": "read a.txt"}]
    with client.messages.stream(model=MODEL, max_tokens=50, messages=messages) as stream:
        first = stream.get_final_message()
    assert first.stop_reason == "tool_use"
    uses = [b for b in first.content if b.type == "tool_use"]
    assert [u.input for u in uses] == [{"path": "a.txt"}, {}]
    assert uses[0].id.startswith("toolu_") and uses[1].id == "toolu_mine"
    messages += [first.to_param(), {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": u.id, "content": "x"} for u in uses]}]
    second = client.messages.create(model=MODEL, max_tokens=50, messages=messages)
    assert second.content[0].text == "done"
    assert fake.requests[1].body["messages"][1]["content"][1]["name"] == "read_file"
    assert_sums(fake)


def test_anthropic_auth_and_count_tokens(fake: FakeProvider) -> None:
    req = urllib.request.Request(fake.anthropic_base_url + "/v1/messages", data=b"{}",
                                 headers={"content-type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(req, timeout=5)
    assert err.value.code == 401
    assert json.loads(err.value.read())["error"]["type"] == "authentication_error"
    count = ant(fake).messages.count_tokens(model=MODEL, messages=[
        {"role": "user", "content": "hello"}])
    assert count.input_tokens == fake.requests[-1].prompt_tokens > 0
    assert fake.remaining == 0


# ---------------------------------------------------------------- anthropic caching

def test_cache_write_then_read_with_longer_prompt(fake: FakeProvider) -> None:
    client = ant(fake)
    turn1 = [{"role": "user", "content": [text("first question " * 5, EPH)]}]
    ask(client, turn1)
    r1 = fake.requests[0]
    assert r1.breakpoints == 2 and r1.cache_read == 0
    assert r1.cache_write == r1.prompt_tokens and r1.usage["input_tokens"] == 0
    assert r1.usage["cache_creation"]["ephemeral_5m_input_tokens"] == r1.cache_write
    turn2 = [{"role": "user", "content": [text("first question " * 5)]},
             {"role": "assistant", "content": "ok"},
             {"role": "user", "content": [text("second", EPH)]}]
    ask(client, turn2)
    r2 = fake.requests[1]
    assert r2.cache_read == r1.prompt_tokens
    assert r2.cache_write == r2.prompt_tokens - r1.prompt_tokens
    unmarked = [dict(m) for m in turn2]
    unmarked[2] = {"role": "user", "content": [text("second")]}
    ask(client, unmarked, system=system(cc=None))
    assert fake.requests[2].prompt_tokens == r2.prompt_tokens  # markers do not count
    assert fake.requests[2].cache_read == fake.requests[2].cache_write == 0
    assert_sums(fake)


def test_top_level_cache_control_marks_last_block(fake: FakeProvider) -> None:
    client = ant(fake)
    msgs = [{"role": "user", "content": "question " * 10}]
    ask(client, msgs, system=SYSTEM, extra_body={"cache_control": EPH})
    ask(client, msgs, system=SYSTEM, extra_body={"cache_control": EPH})
    r1, r2 = fake.requests
    assert r1.breakpoints == 1 and r1.cache_write == r1.prompt_tokens
    assert r2.cache_read == r2.prompt_tokens


def test_five_breakpoints_rejected(fake: FakeProvider) -> None:
    content = [text(f"part {i}", EPH) for i in range(4)]
    with pytest.raises(anthropic.BadRequestError) as err:
        ask(ant(fake), [{"role": "user", "content": content}])
    assert err.value.body["error"]["type"] == "invalid_request_error"
    assert err.value.body["error"]["message"] == (
        "A maximum of 4 blocks with cache_control may be provided. Found 5.")
    assert fake.requests[0].status == 400 and fake.requests[0].breakpoints == 5


def test_longer_ttl_after_shorter_rejected(fake: FakeProvider) -> None:
    with pytest.raises(anthropic.BadRequestError, match="longer TTL must come before"):
        ask(ant(fake), [{"role": "user", "content": [text("q", HOUR)]}])
    ask(ant(fake), [{"role": "user", "content": [text("q", EPH)]}], system=system(HOUR))
    assert fake.requests[-1].status == 200


def _lookback_messages(marks: set[int]) -> list[dict[str, Any]]:
    parts = [text(f"tool output number {i} " * 2, EPH if i in marks else None)
             for i in range(1, 25)]
    return [{"role": "user", "content": [text("start " * 10)]},
            {"role": "assistant", "content": "working"},
            {"role": "user", "content": parts}]


@pytest.mark.parametrize(("marks", "hits"), [({24}, False), ({10, 24}, True)])
def test_twenty_block_lookback(fake: FakeProvider, marks: set[int], hits: bool) -> None:
    client = ant(fake)
    first = [{"role": "user", "content": [text("start " * 10, EPH)]}]
    ask(client, first, system=system(None))
    written = fake.requests[0].cache_write
    assert written == fake.requests[0].prompt_tokens
    ask(client, _lookback_messages(marks), system=system(None))  # last bp 25 blocks later
    second = fake.requests[1]
    assert second.cache_read == (written if hits else 0)
    assert second.cache_write == second.prompt_tokens - second.cache_read
    assert_sums(fake)


def test_ttl_expiry_and_refresh(fake: FakeProvider) -> None:
    client = ant(fake)
    msgs = [{"role": "user", "content": [text("question " * 10, EPH)]}]
    ask(client, msgs)
    fake.clock.advance(200)
    ask(client, msgs)
    fake.clock.advance(200)  # 400 s after the write, 200 s after the refreshing read
    ask(client, msgs)
    fake.clock.advance(301)
    ask(client, msgs)
    reads = [r.cache_read for r in fake.requests]
    total = fake.requests[0].prompt_tokens
    assert reads == [0, total, total, 0]
    assert fake.requests[3].cache_write == total and fake.requests[3].time == 701


def test_one_hour_entries_survive(fake: FakeProvider) -> None:
    client = ant(fake)
    msgs = [{"role": "user", "content": [text("question " * 10, EPH)]}]
    ask(client, msgs, system=system(HOUR))
    first = fake.requests[0]
    system_tokens = first.usage["cache_creation"]["ephemeral_1h_input_tokens"]
    assert system_tokens > 0
    assert first.usage["cache_creation"]["ephemeral_5m_input_tokens"] == (
        first.prompt_tokens - system_tokens)
    fake.clock.advance(301)
    ask(client, msgs, system=system(HOUR))
    assert fake.requests[1].cache_read == system_tokens
    assert fake.requests[1].usage["cache_creation"]["ephemeral_5m_input_tokens"] == (
        first.prompt_tokens - system_tokens)


def test_minimum_cacheable_prefix() -> None:
    with FakeProvider() as fake:
        ask(ant(fake), [{"role": "user", "content": [text("short", EPH)]}])
        rec = fake.requests[0]
        assert rec.cache_write == 0 and rec.usage["input_tokens"] == rec.prompt_tokens
        table = {"claude-opus-5-5": 512, "claude-fable-5-1": 512, "claude-sonnet-5": 1024,
                 "claude-sonnet-4-5-20250929": 1024, "claude-opus-4-1": 1024,
                 "claude-opus-4-7": 2048, "claude-3-haiku-20240307": 2048,
                 "claude-opus-4-5-20251101": 4096, "claude-haiku-4-5": 4096, "mystery": 1024}
        assert {m: fake.anthropic_min_cache_tokens(m) for m in table} == table


def test_diagnostics_reasons(fake: FakeProvider) -> None:
    client = ant(fake)
    base = [{"role": "user", "content": "question " * 10}]

    def call(messages: list[dict[str, Any]], prev: str | None, **kw: Any) -> Any:
        return ask(client, messages, diagnostics={"previous_message_id": prev}, **kw)

    m1 = call(base, None)
    assert m1.diagnostics is None
    grown = base + [{"role": "assistant", "content": "ok"}, {"role": "user", "content": "more"}]
    m2 = call(grown, m1.id)
    assert m2.diagnostics is None and fake.requests[-1].miss_reason is None
    m3 = call(grown, m2.id, system=system(value="another system prompt " * 5))
    reason = m3.diagnostics.cache_miss_reason
    assert reason.type == "system_changed"
    assert reason.cache_missed_input_tokens == fake.requests[-1].prompt_tokens
    edited = [{"role": "user", "content": "question " * 9}] + grown[1:]
    m4 = call(edited, m3.id, system=system(value="another system prompt " * 5))
    assert m4.diagnostics.cache_miss_reason.type == "messages_changed"
    assert fake.requests[-1].miss_reason == "messages_changed"
    m5 = call(edited, "msg_unknown")
    assert m5.diagnostics.cache_miss_reason.type == "previous_message_not_found"
    m6 = call(edited, m5.id, model="claude-opus-5")
    assert m6.diagnostics.cache_miss_reason.type == "model_changed"
    tools = [{"name": "t", "description": "d", "input_schema": {"type": "object"}}]
    m7 = call(edited, m5.id, tools=tools)
    assert m7.diagnostics.cache_miss_reason.type == "tools_changed"


def test_context_window_limit() -> None:
    with FakeProvider(context_window=20) as fake:
        with pytest.raises(anthropic.BadRequestError, match=r"prompt is too long: \d+ tokens > 20 maximum"):
            ask(ant(fake), [{"role": "user", "content": "x" * 200}])
        with pytest.raises(openai.BadRequestError) as err:
            oai(fake).chat.completions.create(model="gpt-5", messages=[
                {"role": "user", "content": "x" * 200}])
        assert err.value.code == "context_length_exceeded"


# ---------------------------------------------------------------- history validation

def test_broken_anthropic_tool_history_rejected(fake: FakeProvider) -> None:
    client = ant(fake)
    use = {"type": "tool_use", "id": "toolu_a", "name": "ls", "input": {}}
    with pytest.raises(anthropic.BadRequestError, match="tool_use ids were found without "
                       "tool_result blocks immediately after: toolu_a"):
        ask(client, [{"role": "user", "content": "hi"}, {"role": "assistant", "content": [use]},
                     {"role": "user", "content": "where is the result?"}])
    with pytest.raises(anthropic.BadRequestError, match="unexpected tool_use_id"):
        ask(client, [{"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_zz", "content": "x"}]}])
    with pytest.raises(anthropic.BadRequestError, match="must alternate"):
        ask(client, [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}])
    assert [r.status for r in fake.requests] == [400, 400, 400]


def test_broken_openai_tool_history_rejected(fake: FakeProvider) -> None:
    client = oai(fake)
    call = {"id": "call_a", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
    with pytest.raises(openai.BadRequestError, match="did not have response messages: call_a"):
        client.chat.completions.create(model="gpt-5", messages=[
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "user", "content": "well?"}])
    with pytest.raises(openai.BadRequestError, match="role 'tool'"):
        client.chat.completions.create(model="gpt-5", messages=[
            {"role": "user", "content": "hi"},
            {"role": "tool", "tool_call_id": "call_x", "content": "r"}])


# ---------------------------------------------------------------- openai

def _openai_messages(turns: int) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM * 4}]
    for i in range(turns):
        msgs += [{"role": "user", "content": f"question {i} " * 20},
                 {"role": "assistant", "content": f"answer {i} " * 20}]
    return msgs + [{"role": "user", "content": "next"}]


def test_openai_tool_call_round_trip_streamed(fake: FakeProvider) -> None:
    client = oai(fake)
    fake.script(Reply(text="let me look", tool_calls=[ToolCall("read_file", {"path": "a"}),
                                                      ToolCall("ls", {"dir": "."})]),
                Reply(text="all done"))
    msgs: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    stream = client.chat.completions.create(model="gpt-5", messages=msgs, stream=True,
                                            stream_options={"include_usage": True})
    content, calls, finish, usage = "", {}, None, None
    for chunk in stream:
        usage = chunk.usage or usage
        for choice in chunk.choices:
            content += choice.delta.content or ""
            finish = choice.finish_reason or finish
            for tc in choice.delta.tool_calls or []:
                entry = calls.setdefault(tc.index, {"id": tc.id, "name": "", "args": ""})
                entry["name"] += (tc.function.name or "") if tc.function else ""
                entry["args"] += (tc.function.arguments or "") if tc.function else ""
    assert content == "let me look" and finish == "tool_calls"
    assert [json.loads(c["args"]) for c in calls.values()] == [{"path": "a"}, {"dir": "."}]
    assert usage.prompt_tokens == fake.requests[0].prompt_tokens
    msgs.append({"role": "assistant", "content": content, "tool_calls": [
        {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["args"]}}
        for c in calls.values()]})
    msgs += [{"role": "tool", "tool_call_id": c["id"], "content": "r"} for c in calls.values()]
    done = client.chat.completions.create(model="gpt-5", messages=msgs)
    assert done.choices[0].message.content == "all done"
    assert done.choices[0].finish_reason == "stop" and fake.requests[1].status == 200


def test_openai_automatic_caching_in_128_steps() -> None:
    with FakeProvider(openai_min_cache_tokens=256) as fake:
        client = oai(fake)
        client.chat.completions.create(model="gpt-5", messages=_openai_messages(2))
        longer = _openai_messages(2)[:-1] + [{"role": "user", "content": "next"},
                                             {"role": "assistant", "content": "sure"},
                                             {"role": "user", "content": "again"}]
        resp = client.chat.completions.create(model="gpt-5", messages=longer)
        r1, r2 = fake.requests
        assert r1.cache_read == 0 and r1.prompt_tokens >= 256
        assert r2.cache_read == (r1.prompt_tokens // 128) * 128 > 0
        assert resp.usage.prompt_tokens_details.cached_tokens == r2.cache_read
        assert resp.usage.prompt_tokens == r2.prompt_tokens  # cached tokens are included
        client.chat.completions.create(model="gpt-5", messages=longer, prompt_cache_key="s2")
        client.chat.completions.create(model="gpt-4.1", messages=longer)
        client.chat.completions.create(model="gpt-5", messages=[{"role": "user", "content": "x"}])
        client.chat.completions.create(model="gpt-5", messages=[{"role": "user", "content": "x"}])
        assert [r.cache_read for r in fake.requests[2:]] == [0, 0, 0, 0]
        fake.clock.advance(301)
        client.chat.completions.create(model="gpt-5", messages=longer)
        assert fake.requests[-1].cache_read == 0


@pytest.mark.parametrize("style", ["openai", "openrouter", "deepseek", "llamacpp", "none"])
@pytest.mark.parametrize("stream", [False, True])
def test_openai_usage_styles(style: str, stream: bool) -> None:
    with FakeProvider(openai_usage_style=style, openai_min_cache_tokens=256) as fake:
        client = oai(fake)
        results = []
        for _ in range(2):
            kw: dict[str, Any] = {"stream": True, "stream_options": {"include_usage": True}} \
                if stream else {}
            resp = client.chat.completions.create(model="gpt-5", messages=_openai_messages(2),
                                                  **kw)
            results.append([c for c in resp][-1] if stream else resp)
        rec = fake.requests[1]
        usage = results[1].usage.model_dump(exclude_none=True)
        assert usage == rec.usage
        cached = (rec.prompt_tokens // 128) * 128
        assert rec.cache_read == cached and usage["prompt_tokens"] == rec.prompt_tokens
        details = usage.get("prompt_tokens_details", {})
        if style in ("openai", "openrouter", "llamacpp"):
            assert details["cached_tokens"] == cached
        if style == "openrouter":
            assert details["cache_write_tokens"] == 0
            assert fake.requests[0].usage["prompt_tokens_details"]["cache_write_tokens"] == cached
        if style == "deepseek":
            assert usage["prompt_cache_hit_tokens"] == cached
            assert usage["prompt_cache_miss_tokens"] == rec.prompt_tokens - cached
        if style == "llamacpp":
            assert results[1].model_extra["timings"]["cache_n"] == cached
        if style == "none":
            assert set(usage) == {"prompt_tokens", "completion_tokens", "total_tokens"}


def test_openai_cache_control_markers_counted(fake: FakeProvider) -> None:
    client = oai(fake)
    parts = [{"type": "text", "text": f"p{i}", "cache_control": EPH} for i in range(2)]
    client.chat.completions.create(model="anthropic/claude", messages=[
        {"role": "user", "content": parts}])
    assert fake.requests[0].breakpoints == 2
    with pytest.raises(openai.BadRequestError, match="Found 5"):
        client.chat.completions.create(model="anthropic/claude", messages=[
            {"role": "user", "content": parts * 2 + parts[:1]}])
    unauth = urllib.request.Request(fake.openai_base_url + "/chat/completions", data=b"{}")
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(unauth, timeout=5)
    assert err.value.code == 401


# ---------------------------------------------------------------- errors, drops, delays

def test_rate_limit_with_retry_after(fake: FakeProvider) -> None:
    fake.script(Error(429, retry_after=7), Error(429, retry_after=7), Error(529))
    with pytest.raises(anthropic.RateLimitError) as err:
        ask(ant(fake), [{"role": "user", "content": "hi"}])
    assert err.value.response.headers["retry-after"] == "7"
    assert err.value.body["error"]["type"] == "rate_limit_error"
    with pytest.raises(openai.RateLimitError) as oerr:
        oai(fake).chat.completions.create(model="gpt-5", messages=[{"role": "user", "content": "x"}])
    assert oerr.value.response.headers["retry-after"] == "7"
    assert oerr.value.code == "rate_limit_exceeded"
    with pytest.raises(anthropic.InternalServerError) as ierr:
        ask(ant(fake), [{"role": "user", "content": "hi"}])
    assert ierr.value.status_code == 529
    assert ierr.value.body["error"]["type"] == "overloaded_error"
    fake.script(Error(429, retry_after=0.01), Reply(text="after retry"))
    msg = ask(ant(fake, retries=1), [{"role": "user", "content": "hi"}])
    assert msg.content[0].text == "after retry"
    assert [r.status for r in fake.requests] == [429, 429, 529, 429, 200]


def test_drop_connection(fake: FakeProvider) -> None:
    fake.script(Drop(), Drop(), Drop(after_chunks=3), Drop(after_chunks=2))
    with pytest.raises(anthropic.APIConnectionError):
        ask(ant(fake), [{"role": "user", "content": "hi"}])
    with pytest.raises(openai.APIConnectionError):
        oai(fake).chat.completions.create(model="gpt-5", messages=[{"role": "user", "content": "x"}])
    events = []
    with pytest.raises(Exception, match="incomplete chunked read"):  # httpx2.RemoteProtocolError
        for event in ask(ant(fake), [{"role": "user", "content": "hi"}], stream=True):
            events.append(event.type)
    assert events == ["message_start", "content_block_start"]  # ping is not surfaced
    with pytest.raises(openai.APIConnectionError):
        list(oai(fake).chat.completions.create(model="gpt-5", stream=True, messages=[
            {"role": "user", "content": "x"}]))
    assert [r.status for r in fake.requests] == [0, 0, 200, 200]


def test_error_mid_stream(fake: FakeProvider) -> None:
    fake.script(Error(529, after_chunks=2))
    with pytest.raises(anthropic.APIStatusError, match="overloaded_error"):
        list(ask(ant(fake), [{"role": "user", "content": "hi"}], stream=True))


def test_delay_and_client_disconnect(fake: FakeProvider) -> None:
    fake.script(Reply(text="x" * 40, chunks=40, delay=0.01))
    stream = ask(ant(fake), [{"role": "user", "content": "hi"}], stream=True)
    next(iter(stream))
    stream.close()
    wait_until(lambda: fake.requests[0].disconnected, timeout=30, what="the fake to see the disconnect")


def test_responder_and_reset(fake: FakeProvider) -> None:
    fake.responder = lambda rec: Reply(text=f"{rec.api}:{len(fake.requests)}")
    assert ask(ant(fake), [{"role": "user", "content": "hi"}]).content[0].text == "anthropic:1"
    resp = oai(fake).chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    assert resp.choices[0].message.content == "openai:2"
    assert len(fake.requests_for("openai")) == 1
    fake.script(Reply(text="queued"))
    fake.reset()
    assert fake.requests == [] and fake.remaining == 0


def test_runs_as_a_process() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "tests.fakes.server", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            cwd=Path(__file__).resolve().parent.parent)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        base = line.split("anthropic ")[1].split()[0]
        script = json.dumps({"items": [{"text": "from control"}]}).encode()
        urllib.request.urlopen(urllib.request.Request(base + "/_fake/script", data=script),
                               timeout=5).read()
        client = anthropic.Anthropic(base_url=base, api_key="test", max_retries=0)
        msg = client.messages.create(model=MODEL, max_tokens=5,
                                     messages=[{"role": "user", "content": "hi"}])
        assert msg.content[0].text == "from control"
        with urllib.request.urlopen(base + "/_fake/requests", timeout=5) as resp:
            assert json.loads(resp.read())[0]["status"] == 200
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_max_tokens_zero_populates_the_cache_and_generates_nothing(fake):
    """The Messages API reference: "Set to `0` to populate the prompt cache without
    generating a response" - the fake bills the prompt (read or write), returns no
    content and no output tokens, streamed or not; a negative max_tokens is a 400."""
    client = ant(fake)
    fake.script(Reply(text="never said"), Reply(text="nor this"))
    messages = [{"role": "user", "content": [text("warm me", EPH)]}]
    first = client.messages.create(
        model=MODEL, max_tokens=0, system=system(), messages=messages)
    assert first.content == [] and first.stop_reason == "max_tokens"
    assert first.usage.output_tokens == 0 and first.usage.cache_creation_input_tokens > 0
    with client.messages.stream(model=MODEL, max_tokens=0, system=system(),
                                messages=messages) as stream:
        second = stream.get_final_message()
    assert second.content == [] and second.stop_reason == "max_tokens"
    assert second.usage.output_tokens == 0
    assert second.usage.cache_read_input_tokens == first.usage.cache_creation_input_tokens
    with pytest.raises(anthropic.BadRequestError, match="greater than or equal to 0"):
        client.messages.create(model=MODEL, max_tokens=-1, system=system(), messages=messages)
