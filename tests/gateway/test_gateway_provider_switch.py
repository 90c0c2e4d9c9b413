"""A gateway with keys for Anthropic and OpenAI: a session asked for gpt-5.2 (the
request's `model` or `/model`) moves to OpenAI, keeps it through an evicted agent's
rebuild, and moves back with a Claude model; `/v1/models` lists both providers' models.
A gateway without OpenAI's key refuses with the reason (wire tier: the real openai
client, the fake provider's both APIs)."""

from __future__ import annotations

import openai
import pytest

from gateway.auth import owner_id
from gateway.sessions import session_key
from tests.helpers import GATEWAY_MODEL, KEY_A, ask, gateway_of

pytestmark = pytest.mark.wire


def test_a_session_moves_to_a_provider_the_gateway_has_a_key_for(harness, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "operator-openai-key")
    monkeypatch.setenv("OPENAI_BASE_URL", harness.fake.openai_base_url)
    server = harness.start()
    client = harness.client(server)
    listed = [m.id for m in client.models.list()]
    assert GATEWAY_MODEL in listed and "gpt-5.2" in listed  # each configured provider's
    assert ask(client, "s", "hello").model == GATEWAY_MODEL
    moved = ask(client, "s", "on openai now", model="gpt-5.2")
    assert moved.model == "gpt-5.2" and moved.choices[0].message.content == "ok"
    sent = harness.fake.last
    assert (sent.api, sent.body["model"]) == ("openai", "gpt-5.2")
    assert sent.headers.get("authorization") == "Bearer operator-openai-key"
    system = sent.body["messages"][0]
    assert system["role"] == "system" and "Model: gpt-5.2 (openai)" in str(system["content"])

    gateway_of(server).cache.evict(session_key(owner_id(KEY_A), "s"))  # rebuilt from the row
    ask(client, "s", "still there?")
    assert (harness.fake.last.api, harness.fake.last.body["model"]) == ("openai", "gpt-5.2")

    reply = ask(client, "s", f"/model {GATEWAY_MODEL}").choices[0].message.content
    assert f"Model gpt-5.2 -> {GATEWAY_MODEL}, provider OpenAI -> Anthropic." in reply
    ask(client, "s", "back home")
    back = harness.fake.last
    assert (back.api, back.body["model"]) == ("anthropic", GATEWAY_MODEL) and back.cache_read > 0
    reply = ask(client, "s", "/model gpt-5.2").choices[0].message.content
    assert "provider Anthropic -> OpenAI" in reply and "re-sends ~" not in reply  # still warm
    assert "still warm" in reply


def test_a_gateway_without_the_key_refuses_the_move(harness):
    server = harness.start()
    client = harness.client(server)
    assert "gpt-5.2" not in [m.id for m in client.models.list()]
    ask(client, "s", "hello")
    with pytest.raises(openai.BadRequestError) as refused:
        ask(client, "s", "hi", model="gpt-5.2")
    assert "this gateway has no OpenAI key configured" in str(refused.value)
    assert {r.api for r in harness.fake.requests} == {"anthropic"}
