"""A gateway session's choices are the session's own (agent/sessions/choices.py), stored with it:
they survive /new, an evicted agent's rebuild and a restarted gateway, and the route
table holds only (owner, name) -> session id (wire tier: the real openai client)."""

from __future__ import annotations

import pytest

from frontend.personalities import BUILTIN
from gateway.sessions import session_key
from tests.helpers import ask, gateway_of, system_of

pytestmark = pytest.mark.wire


def _key(name: str) -> str:
    from gateway.auth import owner_id
    from tests.helpers import KEY_A

    return session_key(owner_id(KEY_A), name)


def test_personality_and_reasoning_survive_new_a_rebuild_and_a_restart(harness):
    server = harness.start()
    client = harness.client(server)
    ask(client, "a", "hi")
    ask(client, "a", "/personality concise")
    ask(client, "a", "/reasoning off")
    ask(client, "a", "/reasoning 2048")
    old = gateway_of(server).cache.peek(_key("a")).session_id
    ask(client, "a", "/new")
    ask(client, "a", "one")
    first = harness.fake.last
    assert gateway_of(server).cache.peek(_key("a")).session_id != old
    assert BUILTIN["concise"] in repr(system_of(first))  # the new session kept it
    assert first.body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    gateway_of(server).cache.evict(_key("a"))  # rebuilt from the stored session
    ask(client, "a", "two")
    rebuilt = harness.fake.last
    assert system_of(rebuilt) == system_of(first) and rebuilt.body["thinking"] == first.body["thinking"]
    harness.stop_all()  # another process: nothing but the store and the route's session id
    server = harness.start()
    ask(harness.client(server), "a", "three")
    again = harness.fake.last
    assert system_of(again) == system_of(first) and again.body["thinking"] == first.body["thinking"]
    route = gateway_of(server).routes.get(gateway_of(server).cache.peek(_key("a")).config.owner, "a")
    assert route.session_id == gateway_of(server).cache.peek(_key("a")).session_id
