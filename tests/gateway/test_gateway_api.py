"""The OpenAI-compatible endpoints, with the real openai client against a real server."""

from __future__ import annotations

import os
import re
import socket

import httpx
import openai
import pytest

from gateway.server import MAX_BODY
from tests.fakes import Error, Reply
from tests.fakes.cache import strip_cache_control
from tests.helpers import GATEWAY_MODEL as MODEL
from tests.helpers import KEY_A, ask, gateway_of, system_of


def test_session_reuses_its_agent_and_reads_the_cache(harness):
    server = harness.start()
    client = harness.client(server)
    first = ask(client, "s1", "hello")
    second = ask(client, "s1", "and again")
    third = ask(client, "s1", "once more")
    assert first.choices[0].message.content == "ok"
    records = harness.fake.requests
    assert len(records) == 3
    assert system_of(records[0]) == system_of(records[1]) == system_of(records[2])
    # the same tools (markers aside: the cache keeper may give a turn a 1h TTL)
    assert strip_cache_control(records[0].body["tools"]) == strip_cache_control(records[2].body["tools"])
    assert records[1].cache_read > 0 and records[2].cache_read > 0
    assert gateway_of(server).cache.builds == 1
    # usage: OpenAI semantics, prompt_tokens includes cached and written tokens
    usage = third.usage
    rec = records[2]
    assert usage.prompt_tokens == rec.prompt_tokens
    assert usage.prompt_tokens_details.cached_tokens == rec.cache_read
    assert usage.prompt_tokens_details.model_dump()["cache_write_tokens"] == rec.cache_write
    assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens
    assert second.model == MODEL


def test_only_the_new_message_is_used_and_history_is_the_servers(harness):
    server = harness.start()
    client = harness.client(server)
    ask(client, "s1", "first question")
    ask(client, "s1", "ignored", messages=[
        {"role": "user", "content": "client-side old message"},
        {"role": "assistant", "content": "client-side old answer"},
        {"role": "user", "content": [{"type": "text", "text": "second question"}]},
    ])
    texts = [m["content"] for m in harness.fake.last.body["messages"]]
    flat = repr(texts)
    assert "first question" in flat and "second question" in flat
    assert "client-side old" not in flat


def test_streaming_sends_chunks_finish_usage_and_done(harness):
    harness.fake.script(Reply(text="streamed answer here", chunks=3))
    server = harness.start()
    client = harness.client(server)
    stream = ask(client, "s1", "hi", stream=True, stream_options={"include_usage": True})
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "streamed answer here"
    assert all(c.object == "chat.completion.chunk" for c in chunks)
    finishes = [c.choices[0].finish_reason for c in chunks if c.choices]
    assert finishes[-1] == "stop" and finishes.count("stop") == 1
    assert chunks[-1].choices == [] and chunks[-1].usage.prompt_tokens > 0
    # raw SSE ends with [DONE]
    with httpx.stream("POST", server.base_url + "/chat/completions", headers={
            "authorization": f"Bearer {KEY_A}", "x-hermes-session-id": "s1"},
            json={"model": "hermes", "stream": True,
                  "messages": [{"role": "user", "content": "again"}]}) as response:
        body = response.read().decode()
    assert response.headers["content-type"].startswith("text/event-stream")
    assert body.rstrip().endswith("data: [DONE]")
    assert '"usage"' not in body  # no usage chunk unless asked


def test_new_as_message_text_starts_a_new_session(harness):
    server = harness.start()
    client = harness.client(server)
    first = ask(client, "s1", "hello").model_dump()
    raw = client.chat.completions.with_raw_response.create(
        model="hermes", messages=[{"role": "user", "content": "/new"}],
        extra_headers={"X-Hermes-Session-Id": "s1"})
    answer = raw.parse().choices[0].message.content
    new_id = raw.headers["x-hermes-stored-session-id"]
    assert answer.startswith("New session ") and new_id in answer
    assert len(harness.fake.requests) == 1  # a command never calls the model
    ask(client, "s1", "after new")
    last = harness.fake.last
    assert [m["role"] for m in last.body["messages"]] == ["user"]
    assert first["usage"]["prompt_tokens"] > 0
    assert new_id in repr(system_of(last))  # the new session's frozen env facts


def test_command_in_a_stream_and_unknown_commands(harness):
    server = harness.start()
    client = harness.client(server)
    stream = ask(client, "s1", "/model", stream=True)
    text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    assert f"This session uses {MODEL}" in text
    reply = ask(client, "s1", "/tools").choices[0].message.content
    assert "not available over the gateway" in reply
    assert harness.fake.requests == []


def test_models_and_health(harness):
    server = harness.start()
    models = harness.client(server).models.list()
    ids = [m.id for m in models.data]
    assert ids[:2] == ["hermes", MODEL]
    url = server.base_url.removesuffix("/v1") + "/health"
    anonymous = httpx.get(url)  # liveness only: no worker, host or pid for strangers
    assert anonymous.status_code == 200 and anonymous.json() == {"status": "ok"}
    health = httpx.get(url, headers={"authorization": f"Bearer {KEY_A}"})
    worker = health.headers["x-hermes-worker"]
    assert health.status_code == 200 and health.json() == {"status": "ok", "worker": worker}
    assert anonymous.headers["x-hermes-worker"] == worker
    assert re.fullmatch(r"[0-9a-f]{12}", worker)  # random: names neither host nor pid
    assert str(os.getpid()) not in worker and socket.gethostname() not in worker


def test_auth_failures_are_401(harness):
    server = harness.start()
    with pytest.raises(openai.AuthenticationError) as wrong:
        ask(harness.client(server, key="not-a-valid-key"), "s1", "hi")
    assert wrong.value.status_code == 401
    assert "invalid API key" in wrong.value.message or "API key" in wrong.value.message
    missing = httpx.post(server.base_url + "/chat/completions", json={
        "model": "hermes", "messages": [{"role": "user", "content": "hi"}]})
    assert missing.status_code == 401
    assert missing.json()["error"]["code"] == "invalid_api_key"
    basic = httpx.get(server.base_url + "/models", headers={"authorization": f"Basic {KEY_A}"})
    assert basic.status_code == 401
    assert harness.fake.requests == []


def test_bad_bodies(harness):
    server = harness.start()
    url = server.base_url + "/chat/completions"
    auth = {"authorization": f"Bearer {KEY_A}"}
    big = httpx.post(url, headers=auth, content=b"{" + b" " * (MAX_BODY + 10) + b"}")
    assert big.status_code == 413
    assert big.json()["error"]["code"] == "request_too_large"
    broken = httpx.post(url, headers=auth, content=b'{"messages": [')
    assert broken.status_code == 400
    assert "not valid JSON" in broken.json()["error"]["message"]
    empty = httpx.post(url, headers=auth, json={"model": "hermes", "messages": []})
    assert empty.status_code == 400 and empty.json()["error"]["param"] == "messages"
    with pytest.raises(openai.BadRequestError):
        ask(harness.client(server), "s1", "x", messages=[{"role": "assistant", "content": "x"}])
    assert harness.fake.requests == []


def test_provider_errors_are_502_with_the_providers_message(harness):
    server = harness.start()
    client = harness.client(server)
    harness.fake.script(Error(400, "prompt is poisoned"))
    with pytest.raises(openai.APIStatusError) as failed:
        ask(client, "s1", "hi")
    assert failed.value.status_code == 502
    assert "prompt is poisoned" in failed.value.message
    harness.fake.script(Error(400, "still poisoned"))
    with pytest.raises(openai.APIStatusError) as streamed:
        list(ask(client, "s1", "hi", stream=True))
    assert streamed.value.status_code == 502 and "still poisoned" in streamed.value.message
    assert ask(client, "s1", "fine now").choices[0].message.content == "ok"


def test_session_from_user_field_and_generated_names(harness):
    server = harness.start()
    client = harness.client(server)
    client.chat.completions.create(model="hermes", user="by-user",
                                   messages=[{"role": "user", "content": "hi"}])
    usage = httpx.get(server.base_url + "/sessions/by-user/usage",
                      headers={"authorization": f"Bearer {KEY_A}"})
    assert usage.status_code == 200 and usage.json()["session"]["calls"] == 1
    raw = client.chat.completions.with_raw_response.create(
        model="hermes", messages=[{"role": "user", "content": "hi"}])
    name = raw.headers["x-hermes-session-id"]
    assert name.startswith("session-")
    again = ask(client, name, "continue")
    assert again.choices[0].message.content == "ok"
    assert harness.fake.last.body["messages"][0]["content"] is not None
    assert len(harness.fake.last.body["messages"]) == 3  # the generated session continued
