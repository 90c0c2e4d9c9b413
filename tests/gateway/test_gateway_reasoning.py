"""Reasoning settings over the gateway: a chat command changes them in place on the
cached agent (no rebuild, the same system bytes), the change is diagnosed
`thinking_changed`, and thinking reaches the client only when it asks for it."""

from __future__ import annotations

import pytest

from gateway.sessions import session_key
from tests.fakes import Reply, ToolCall
from tests.helpers import ask, gateway_of, system_of

pytestmark = pytest.mark.wire


def _key(name: str) -> str:
    from gateway.auth import owner_id
    from tests.helpers import KEY_A

    return session_key(owner_id(KEY_A), name)


def test_reasoning_command_changes_the_cached_agent_in_place(harness):
    server = harness.start()
    client = harness.client(server)
    cache = gateway_of(server).cache
    ask(client, "a", "hi " * 300)
    agent = cache.peek(_key("a"))
    system = system_of(harness.fake.last)
    calls = len(harness.fake.requests)
    reply = ask(client, "a", "/reasoning 2048 effort=high")
    text = reply.choices[0].message.content
    assert "invalidates the cached messages" in text and "tools and system stay cached" in text
    assert len(harness.fake.requests) == calls  # a command never calls the model
    harness.fake.script(Reply(tool_calls=[ToolCall("todo", {"todos": []}, id="toolu_g")]),
                        Reply(text="thought about it"))
    answer = ask(client, "a", "think about it")
    assert answer.choices[0].message.content == "thought about it"
    assert cache.peek(_key("a")) is agent  # no rebuild
    first, second = harness.fake.requests[-2:]
    assert first.body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert first.body["output_config"] == {"effort": "high"}
    assert system_of(first) == system  # no system change
    assert 0 < first.cache_read < first.prompt_tokens  # tools + system read, messages not
    assert second.status == 200  # the continuation carried its thinking block
    assert agent.state.diagnoses[-2].cause == "thinking_changed"
    assert agent.state.diagnoses[-1].cause is None
    assert not hasattr(answer.choices[0].message, "reasoning_content") or \
        answer.choices[0].message.reasoning_content is None  # not asked for


def test_a_refused_setting_is_one_line_and_changes_nothing(harness):
    server = harness.start()
    client = harness.client(server)
    ask(client, "a", "hi")
    agent = gateway_of(server).cache.peek(_key("a"))
    reply = ask(client, "a", "/reasoning 100")
    assert "at least 1,024" in reply.choices[0].message.content
    assert agent.caller.reasoning.thinking == "off"


def test_reasoning_content_only_when_the_client_asks(harness):
    server = harness.start()
    client = harness.client(server)
    ask(client, "a", "/reasoning adaptive")
    harness.fake.script(Reply(text="plain", thinking="hidden chain"),
                        Reply(text="shown", thinking="visible chain"),
                        Reply(text="streamed", thinking="streamed chain"))
    plain = ask(client, "a", "one")
    assert "hidden chain" not in plain.model_dump_json()
    shown = ask(client, "a", "two", extra_body={"include_reasoning": True})
    assert shown.choices[0].message.content == "shown"
    assert shown.choices[0].message.model_extra["reasoning_content"] == "visible chain"
    chunks = list(ask(client, "a", "three", stream=True, extra_body={"include_reasoning": True}))
    deltas = [c.choices[0].delta for c in chunks if c.choices]
    thinking = "".join((d.model_extra or {}).get("reasoning_content") or "" for d in deltas)
    text = "".join(d.content or "" for d in deltas)
    assert thinking == "streamed chain" and text == "streamed"
    assert harness.fake.last.body["thinking"] == {"type": "adaptive"}


def test_reasoning_chosen_by_command_survives_a_rebuild(harness):
    """The setting is stored on the route: a rebuilt agent (evicted, restarted, or another
    worker) sends the same thinking parameters, so the request bytes stay the same."""
    server = harness.start()
    client = harness.client(server)
    gateway = gateway_of(server)
    ask(client, "a", "hi")
    ask(client, "a", "/reasoning 2048 effort=high")
    harness.fake.script(Reply(text="first"), Reply(text="second"))
    ask(client, "a", "one")
    before = harness.fake.requests[-1].body
    gateway.cache.evict(_key("a"))
    ask(client, "a", "two")
    after = harness.fake.requests[-1].body
    assert gateway.cache.peek(_key("a")) is not None
    assert after["thinking"] == before["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert after["output_config"] == before["output_config"] == {"effort": "high"}
