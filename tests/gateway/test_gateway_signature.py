"""Signature changes (model, client system text, personality) rebuild only the session
they belong to; a fallback-answered turn evicts its session's agent."""

from __future__ import annotations

import openai
import pytest

from gateway.sessions import session_key
from tests.fakes import Error, Reply
from tests.helpers import ask, gateway_of, system_of


def _key(server, name: str) -> str:
    from gateway.auth import owner_id
    from tests.helpers import KEY_A

    return session_key(owner_id(KEY_A), name)


def test_another_model_switches_only_that_session_in_place(harness):
    server = harness.start()
    client = harness.client(server)
    cache = gateway_of(server).cache
    ask(client, "a", "hi")
    ask(client, "b", "hi")
    agent_a, agent_b = cache.peek(_key(server, "a")), cache.peek(_key(server, "b"))
    reply = ask(client, "a", "now with haiku", model="claude-haiku-4-5")
    assert reply.model == "claude-haiku-4-5"
    assert harness.fake.last.body["model"] == "claude-haiku-4-5"
    new_a = cache.peek(_key(server, "a"))
    assert new_a is agent_a and new_a.model == "claude-haiku-4-5"  # switched in place
    assert cache.peek(_key(server, "b")) is agent_b
    # the deliberate break is named as such (a rebuilt agent would have said "cold")
    assert agent_a.state.diagnoses[-1].cause == "model_changed"
    # "hermes" keeps the session's model; the session's history survived the switch
    ask(client, "a", "keep it")
    assert harness.fake.last.body["model"] == "claude-haiku-4-5"
    assert len(harness.fake.last.body["messages"]) == 5
    assert cache.peek(_key(server, "a")) is new_a


def test_a_changed_client_system_message_changes_it_in_place_and_an_absent_one_keeps_it(
        harness):
    server = harness.start()
    client = harness.client(server)
    cache = gateway_of(server).cache

    def with_system(text: str, system: str | None):
        messages = [{"role": "system", "content": system}] if system is not None else []
        return ask(client, "a", text, messages=[*messages, {"role": "user", "content": text}])

    with_system("one", "Answer in French.")
    ask(client, "b", "other session")
    first_system = system_of(harness.fake.requests[0])
    assert "Answer in French." in repr(first_system)
    agent_a, agent_b = cache.peek(_key(server, "a")), cache.peek(_key(server, "b"))
    with_system("two", None)  # absent: keep the session's system text
    assert system_of(harness.fake.last) == first_system
    assert harness.fake.last.cache_read > 0
    assert cache.peek(_key(server, "a")) is agent_a
    with_system("three", "Answer in German.")
    assert "Answer in German." in repr(system_of(harness.fake.last))
    assert "French" not in repr(system_of(harness.fake.last))
    # the session's choice, changed in place: the stable blocks stay cached
    assert cache.peek(_key(server, "a")) is agent_a
    assert agent_a.session.choices.system == "Answer in German."
    assert harness.fake.last.cache_read > 0
    assert cache.peek(_key(server, "b")) is agent_b


def test_model_and_personality_commands(harness):
    server = harness.start()
    client = harness.client(server)
    ask(client, "a", "hi")
    stable = system_of(harness.fake.last)
    answer = ask(client, "a", "/model claude-opus-5").choices[0].message.content
    assert "claude-opus-5" in answer and "uncached" in answer
    assert 'send model "hermes"' in answer  # an HTTP client's note (a chat's answer has none)
    ask(client, "a", "next")
    assert harness.fake.last.body["model"] == "claude-opus-5"
    # the same miss cause the REPL gives for the same switch
    usage = ask(client, "a", "/usage").choices[0].message.content
    assert "model_changed" in usage, usage
    answer = ask(client, "a", "/personality concise").choices[0].message.content
    assert answer.startswith("Personality -> concise")
    ask(client, "a", "short please")
    assert system_of(harness.fake.last) != stable
    assert "as few words" in repr(system_of(harness.fake.last))
    ask(client, "a", "again")  # the rebuilt agent is reused: its prompt is stable again
    assert system_of(harness.fake.requests[-1]) == system_of(harness.fake.requests[-2])
    assert harness.fake.last.cache_read > 0
    assert "Unknown personality" in ask(client, "a", "/personality nope").choices[0].message.content


def test_a_fallback_answer_evicts_the_session_agent(harness):
    harness.config["fallback_model"] = "claude-haiku-4-5"
    server = harness.start()
    client = harness.client(server)
    cache = gateway_of(server).cache
    ask(client, "a", "hi")
    ask(client, "b", "hi")
    harness.fake.script(*[Error(529, retry_after=0) for _ in range(4)], Reply(text="from fallback"))
    reply = ask(client, "a", "please answer")
    assert reply.choices[0].message.content == "from fallback"
    assert harness.fake.last.body["model"] == "claude-haiku-4-5"
    assert cache.peek(_key(server, "a")) is None
    assert cache.peek(_key(server, "b")) is not None
    ask(client, "a", "primary again?")
    assert harness.fake.last.body["model"] != "claude-haiku-4-5"


def test_a_refused_model_does_not_stick_to_the_session(harness):
    server = harness.start()
    client = harness.client(server)
    ask(client, "a", "hi")
    harness.fake.script(Error(404, "model: no-such-model"))
    with pytest.raises(openai.APIStatusError) as refused:
        ask(client, "a", "try this", model="no-such-model")
    assert refused.value.status_code == 502
    ask(client, "a", "back to normal")
    assert harness.fake.last.body["model"] == "claude-sonnet-5-5"


def test_reasoning_effort_is_per_message_and_keeps_the_cached_agent(harness):
    server = harness.start()
    client = harness.client(server)
    cache = gateway_of(server).cache
    ask(client, "a", "hi")
    agent = cache.peek(_key(server, "a"))
    ask(client, "a", "think hard", reasoning_effort="high")
    assert harness.fake.last.body["output_config"] == {"effort": "high"}
    assert cache.peek(_key(server, "a")) is agent  # not part of the signature
    assert harness.fake.last.cache_read > 0
    ask(client, "a", "plain again")
    assert "output_config" not in harness.fake.last.body  # applied to that message only
    with pytest.raises(openai.BadRequestError):
        ask(client, "a", "bad", reasoning_effort="enormous")
