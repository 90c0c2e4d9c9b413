"""AgentCache with a small factory building real AIAgents against the fake provider."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

import pytest

from agent.agent import AIAgent
from agent.config import AgentConfig
from agent.providers.base import ProviderSettings
from gateway.agent_cache import AgentCache, signature
from memory.store import SessionStore
from tests.fakes import FakeProvider, Reply

pytestmark = pytest.mark.wire  # runs a process or opens a socket


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def world(hermes_home: Path):
    with FakeProvider(min_cache_tokens=64) as fake:
        store = SessionStore(hermes_home / "state.db")
        config = AgentConfig(
            provider=ProviderSettings("anthropic", "claude-sonnet-5-5", "provider-key",
                                      fake.anthropic_base_url),
            home=hermes_home, cwd=hermes_home, toolsets=("file",), source="gateway")
        built: list[tuple[AIAgent, str | None]] = []
        lock = threading.Lock()

        def factory(cfg: AgentConfig, session_id: str | None) -> AIAgent:
            agent = AIAgent(cfg, store, session_id=session_id)
            with lock:
                built.append((agent, session_id))
            return agent

        yield fake, store, config, factory, built
        store.close()


def test_signature_is_canonical_and_hashes_the_whole_key(world):
    _fake, _store, config, _factory, _built = world
    assert signature(config, "sk-abc") == signature(replace(config), "sk-abc")
    assert len(signature(config, "sk-abc")) == 64
    shared_prefix = "sk-ant-oat01-" + "x" * 40
    assert signature(config, shared_prefix + "A") != signature(config, shared_prefix + "B")
    assert signature(config, None) != signature(config, "")
    assert signature(config, "k") != signature(replace(config, recall=not config.recall), "k")
    openai_mode = replace(config, provider=replace(config.provider, provider="openai"))
    assert signature(config, "k") != signature(openai_mode, "k")
    # per-message and non-prompt settings are not part of it
    assert signature(config, "k") == signature(replace(config, max_tokens=99, owner="o"), "k")
    # nor a session's choices (agent/sessions/choices.py): the defaults of a new session
    other_model = replace(config, provider=replace(config.provider, model="claude-opus-5"))
    assert signature(config, "k") == signature(other_model, "k")
    assert signature(config, "k") == signature(replace(config, ephemeral_extra="be brief",
                                                       personality="pirate"), "k")


def test_same_signature_reuses_the_agent_and_its_prompt_stays_cached(world):
    fake, _store, config, factory, built = world
    cache = AgentCache(factory)
    agent = cache.get("s", config)
    list(agent.run_turn("hello"))
    again = cache.get("s", replace(config, max_tokens=1000))
    assert again is agent and len(built) == 1
    list(again.run_turn("more"))
    first, second = fake.requests
    def bare(system):  # a first request also marks the shared blocks (agent.modelcall.caching)
        return [{k: v for k, v in b.items() if k != "cache_control"} for b in system]
    assert bare(first.body["system"]) == bare(second.body["system"])
    assert second.cache_read > 0


def test_a_changed_signature_closes_the_old_agent_and_resumes_its_session(world):
    fake, store, config, factory, built = world
    cache = AgentCache(factory)
    old = cache.get("s", config)
    other = cache.get("t", config)
    list(old.run_turn("hello"))
    assert old.clients.open  # its HTTP client exists after a call
    new = cache.get("s", replace(config, max_iterations=5))
    assert new is not old and not old.clients.open  # closed
    assert built[-1] == (new, old.session_id)
    assert new.session_id == old.session_id and new.config.max_iterations == 5
    assert cache.peek("t") is other
    # back to the first config: the resumed agent reuses the stored prompt byte for byte
    back = cache.get("s", config)
    list(back.run_turn("again"))
    stored = store.get_session(old.session_id)["system_prompt"]
    assert back.stable == stored
    stable = len(back.session.blocks)
    assert [b["text"] for b in fake.last.body["system"][:stable]] == [
        b["text"] for b in fake.requests[0].body["system"][:stable]]  # the stable blocks


def test_another_default_model_keeps_the_cached_agent_and_its_session_s_model(world):
    """The model is the session's choice (agent/sessions/choices.py), not the agent's signature:
    a config with another default model reuses the agent, which keeps its model."""
    _fake, _store, config, factory, built = world
    cache = AgentCache(factory)
    agent = cache.get("s", config)
    moved = replace(config, provider=replace(config.provider, model="claude-opus-5"))
    assert cache.get("s", moved) is agent and len(built) == 1
    assert agent.model == config.provider.model

def test_lru_cap_skips_busy_agents(world):
    fake, _store, config, factory, _built = world
    cache = AgentCache(factory, max_size=2)
    busy = cache.get("a", config)
    fake.script(Reply(text="slow answer", chunks=3))
    turn = busy.run_turn("hi")
    next(turn)  # the turn is under way, suspended at its first event
    assert busy.busy
    cache.get("b", config)
    cache.get("c", config)
    assert "a" in cache and "b" not in cache and len(cache) == 2
    list(turn)
    assert not busy.busy
    cache.get("d", config)
    assert "a" not in cache and len(cache) == 2


def test_leased_agents_survive_the_cap_and_idle_agents_expire(world):
    _fake, _store, config, factory, _built = world
    clock = Clock()
    cache = AgentCache(factory, max_size=1, idle_ttl=60, clock=clock)
    with cache.lease("a", config) as leased:
        cache.get("b", config)
        assert cache.peek("a") is leased and "b" not in cache  # b evicted: a is leased
    cache.get("b", config)
    assert "a" not in cache
    clock.now = 30
    cache.get("c", config)
    assert cache.sweep() == 0
    clock.now = 100
    assert cache.sweep() == 1 and len(cache) == 0


def test_evict_affects_only_that_session(world):
    _fake, _store, config, factory, _built = world
    cache = AgentCache(factory)
    a, b = cache.get("a", config), cache.get("b", config)
    list(a.run_turn("hello"))
    assert a.clients.open
    assert cache.evict("a") and not cache.evict("a")
    assert "a" not in cache and cache.peek("b") is b
    assert not a.clients.open
    assert cache.get("a", config) is not a
