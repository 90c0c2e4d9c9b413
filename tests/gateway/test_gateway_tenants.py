"""Two client keys of one gateway share nothing (wire tier: real uvicorn, the real
openai client, the fake provider): key B never sees key A's memory writes, session
search results or checkpoints; the operator's own MEMORY.md is in no tenant's prompt
(asserted on the bytes the fake provider received); and the gateway keeps no state per
session it served once the agent cache has let the session go."""

from __future__ import annotations

import gc
import weakref

import pytest

from agent.agent import AIAgent
from gateway.auth import owner_id
from gateway.workspaces import tenant_workspace
from tests.fakes.script import Reply, ToolCall
from tests.helpers import KEY_A, KEY_B, ask, gateway_of, wait_until

pytestmark = pytest.mark.wire

OPERATOR_NOTE = "OPERATOR-PRIVATE-NOTE the operator's bank is example-bank"


@pytest.fixture
def tenants(harness):
    harness.config["toolsets"] = ["file", "memory", "search"]
    (harness.home / "memories").mkdir()
    (harness.home / "memories" / "MEMORY.md").write_text(OPERATOR_NOTE + "\n")
    server = harness.start()
    return server, harness.client(server, KEY_A), harness.client(server, KEY_B)


def _call(name: str, **arguments) -> Reply:
    return Reply(tool_calls=[ToolCall(name, arguments)])


def test_memory_writes_stay_with_their_key_and_the_operators_notes_with_nobody(harness, tenants):
    _server, alice, bob = tenants
    harness.fake.script(_call("memory", action="add", target="user",
                              content="alpha drinks kiwi tea every morning"), Reply(text="saved"))
    ask(alice, "a1", "remember my tea")
    assert b"Saved to USER.md" in harness.fake.last.raw
    ask(bob, "b1", "hello")
    seen_by_b = harness.fake.last.raw
    assert b"kiwi" not in seen_by_b and b"OPERATOR-PRIVATE" not in seen_by_b
    ask(alice, "a2", "hello again")  # A's next session: its own note, frozen at start
    seen_by_a = harness.fake.last.raw
    assert b"kiwi tea" in seen_by_a and b"OPERATOR-PRIVATE" not in seen_by_a
    assert "kiwi" not in (harness.home / "memories" / "MEMORY.md").read_text()
    assert not (harness.home / "memories" / "USER.md").exists()


def _last_tool_result(harness) -> str:
    """The text of the tool results in the last request's final message."""
    blocks = harness.fake.last.body["messages"][-1]["content"]
    return "\n".join(str(b.get("content", "")) for b in blocks if isinstance(b, dict))


def test_session_search_finds_only_the_keys_own_sessions(harness, tenants):
    _server, alice, bob = tenants
    ask(alice, "a1", "my locker code is zebra-4471")
    harness.fake.script(_call("session_search", query="zebra"), Reply(text="nothing"))
    ask(bob, "b1", "what was the locker code?")
    assert "No past sessions mention 'zebra'" in _last_tool_result(harness)
    harness.fake.script(_call("session_search", query="zebra"), Reply(text="found"))
    ask(alice, "a2", "what was the locker code?")
    assert "1 match(es) in past sessions" in _last_tool_result(harness)


def test_checkpoints_are_the_sessions_own(harness, tenants):
    _server, alice, bob = tenants
    harness.fake.script(_call("write_file", path="plan.txt", content="alpha's plan\n"),
                        Reply(text="written"))
    ask(alice, "a1", "write the plan")
    written = tenant_workspace(harness.home, owner_id(KEY_A)) / "plan.txt"
    assert written.read_text() == "alpha's plan\n"
    ask(bob, "b1", "hello")
    ask(bob, "a1", "hello")  # B's own session of the same name
    for name in ("a1", "b1"):
        ask(bob, name, "/undo")
    assert written.read_text() == "alpha's plan\n"
    ask(alice, "a1", "/undo")  # A's own undo deletes the file its turn created
    assert not written.exists()


def _agents() -> list[AIAgent]:
    gc.collect()
    return [o for o in gc.get_objects() if isinstance(o, AIAgent)]


def test_nothing_is_kept_per_session_once_the_cache_let_it_go(harness):
    # agents other tests of this worker process left behind are not this gateway's
    earlier = weakref.WeakSet(_agents())
    server = harness.start(max_agents=2)
    client = harness.client(server)
    gateway = gateway_of(server)
    for index in range(12):
        ask(client, f"s{index}", "hi")
    gateway.keeper.prune()
    assert len(gateway.cache) <= 2 and len(gateway.keeper) <= 2 and len(gateway.locks) == 0

    def ours() -> list[AIAgent]:
        return [a for a in _agents() if a not in earlier]

    # an evicted agent is closed after its eviction, off the request path: wait for it
    wait_until(lambda: len(ours()) <= 2, what="evicted agents to be released",
               timeout=20)
