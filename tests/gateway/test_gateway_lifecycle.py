"""Shutdown stops the turns and closes agents and store; idle agents are swept without
traffic; the key ring and the agent cache hold under races."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import replace

import openai
import pytest

from agent.agent import AIAgent
from agent.config import AgentConfig
from agent.providers.base import ProviderSettings
from gateway.agent_cache import AgentCache
from gateway.auth import KeyRing, owner_id
from gateway.sessions import session_key
from memory.errors import StoreError
from memory.store import SessionStore
from tests.fakes import FakeProvider, Reply
from tests.helpers import KEY_A, ask, gateway_of, wait_until

WAIT = 10.0



def _slow(_record):
    return Reply(text="word " * 60, chunks=60, delay=0.1)


def test_shutdown_stops_turns_then_closes_agents_and_store(harness, capfd):
    harness.fake.responder = _slow
    server = harness.start()
    gateway = gateway_of(server)
    client = harness.client(server)
    key_a = session_key(owner_id(KEY_A), "a")
    first_chunk = threading.Event()

    def streamed() -> str:
        stream = ask(client, "a", "stream please", stream=True)
        try:
            for chunk in stream:
                if chunk.choices and chunk.choices[0].delta.content:
                    first_chunk.set()
        except openai.APIError as exc:
            return exc.message
        return "ended without an error"

    def plain(name: str, text: str) -> int:
        try:
            ask(client, name, text)
        except openai.APIStatusError as exc:
            assert "shutting down" in exc.message
            return exc.status_code
        return 200

    with ThreadPoolExecutor(3) as pool:
        stream = pool.submit(streamed)
        other = pool.submit(plain, "b", "plain please")
        assert first_chunk.wait(WAIT) and wait_until(lambda: len(harness.fake.requests) == 2)
        queued = pool.submit(plain, "a", "queued message")
        assert wait_until(lambda: gateway.locks.users(key_a) == 2)
        agents = [gateway.cache.peek(key_a), gateway.cache.peek(session_key(owner_id(KEY_A), "b"))]
        server.stop()
        assert "shutting down" in stream.result()
        assert other.result() == 503 and queued.result() == 503
    assert all(agent is not None and not agent.clients.open for agent in agents)
    assert len(gateway.cache) == 0
    with pytest.raises(StoreError, match="closed database"):
        gateway.store.get_session("x")
    err = capfd.readouterr().err
    assert "Traceback" not in err and "graceful shutdown exceeded" not in err
    # the stopped turns left valid histories; the queued message never started
    store = SessionStore(harness.home / "state.db")
    try:
        texts = [repr(m) for row in store.list_sessions(limit=10)
                 for m in store.messages(row["id"])]
    finally:
        store.close()
    assert any("stream please" in t for t in texts)
    assert not any("queued message" in t for t in texts)


def test_idle_agents_are_swept_without_traffic(harness):
    server = harness.start(idle_ttl=0.2)
    gateway = gateway_of(server)
    ask(harness.client(server), "s", "hello")
    agent = gateway.cache.peek(session_key(owner_id(KEY_A), "s"))
    assert agent is not None
    # removed from the cache first, then closed outside its lock: wait for both
    assert wait_until(lambda: len(gateway.cache) == 0 and not agent.clients.open), \
        "the idle agent was not evicted and closed (closed, not just forgotten)"


def test_key_ring_compares_whole_keys():
    short, long = "k" * 8, "secret-" + "x" * 40
    ring = KeyRing([short, long])
    assert ring.owner(f"Bearer {long}") == owner_id(long)
    assert ring.owner(f"bearer  {short} ") == owner_id(short)
    for wrong in (long[:-1], long + "x", short[:7], "", "Bearer"):
        assert ring.owner(f"Bearer {wrong}") is None
    assert ring.owner(f"Basic {long}") is None and ring.owner(None) is None


@pytest.mark.wire
def test_a_concurrent_rebuild_never_closes_a_leased_agent(hermes_home):
    with FakeProvider(min_cache_tokens=64) as fake, ExitStack() as held:
        store = SessionStore(hermes_home / "state.db")
        held.callback(store.close)
        config = AgentConfig(
            provider=ProviderSettings("anthropic", "claude-sonnet-5-5", "provider-key",
                                      fake.anthropic_base_url),
            home=hermes_home, cwd=hermes_home, toolsets=("file",), source="gateway")
        other = replace(config, max_iterations=5)  # another signature
        leased: list[AIAgent] = []

        def factory(cfg: AgentConfig, session_id: str | None) -> AIAgent:
            if cfg is config and not leased:  # while this build runs, another caller
                agent = held.enter_context(cache.lease("s", other))  # leases its own
                _ = agent.provider  # opened: closing it would drop the client
                leased.append(agent)
            return AIAgent(cfg, store, session_id=session_id)

        cache = AgentCache(factory)
        built = cache.get("s", config)
        assert cache.peek("s") is built
        assert leased[0].clients.open  # still in use by its lease
        held.close()
        assert not leased[0].clients.open  # closed when the lease ended
