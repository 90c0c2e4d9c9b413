"""The cache keeper through the fake Anthropic server with its injected clock (wire tier).

The keeper runs on the fake's clock; `run_due()` does what is due at that instant, so
the tests move time and assert the order of requests, never a duration."""

from __future__ import annotations

import threading
from pathlib import Path

from agent.agent import AIAgent
from agent.cache.idle_policy import MARGIN
from agent.cache.keeper import CacheKeeper
from agent.config import AgentConfig
from agent.events import Done
from agent.providers.base import ProviderSettings
from frontend.usage_report import build_report
from memory.store import SessionStore

MODEL = "claude-sonnet-5"


def make_agent(fake, home: Path, cwd: Path, **options) -> AIAgent:
    settings = ProviderSettings("anthropic", MODEL, "test-key", fake.anthropic_base_url)
    config = AgentConfig(provider=settings, home=home, cwd=cwd, **options)
    return AIAgent(config, SessionStore(home / "state.db"), clock=fake.clock.now)


def turn(keeper: CacheKeeper, agent: AIAgent, text: str) -> None:
    keeper.turn_started(agent.session_id, agent.caller)
    events = list(agent.run_turn(text))
    keeper.turn_ended(agent.session_id)
    assert isinstance(events[-1], Done) and events[-1].reason == "answer", events


def idle(keeper: CacheKeeper, fake, seconds: float) -> int:
    """Let `seconds` pass on the fake clock, running each keep-warm when it is due (as
    the keeper's thread would); return the number of reads sent."""
    until, reads = fake.clock.now() + seconds, 0
    while (due := keeper.next_due()) is not None and due <= until:
        fake.clock.advance(max(0.0, due - fake.clock.now()))
        reads += sum(e.action == "read" for e in keeper.run_due())
    fake.clock.advance(until - fake.clock.now())
    return reads


def is_keep_warm(rec) -> bool:
    return rec.body.get("max_tokens") == 1


def test_pause_past_five_minutes_reads_the_prefix_after_it(fake_provider, hermes_home, tmp_path):
    """A 5.5-minute pause (fake clock): one keep-warm read at 4.5 min, and the first
    request after the pause reads the whole prefix the last turn wrote."""
    agent = make_agent(fake_provider, hermes_home, tmp_path)
    keeper = CacheKeeper(clock=fake_provider.clock.now)
    turn(keeper, agent, "hello")
    before = fake_provider.last
    assert keeper.run_due() == []  # nothing due yet
    fake_provider.clock.advance(300 - MARGIN)
    events = keeper.run_due()
    assert [e.action for e in events] == ["read"] and events[0].result.ok
    warm = fake_provider.last
    assert is_keep_warm(warm) and warm.status == 200
    assert warm.cache_read == before.prompt_tokens and warm.cache_write == 0
    # same session settings: tools, system and messages byte-identical to the last request
    for key in ("tools", "system", "messages", "model"):
        assert warm.body.get(key) == before.body.get(key), key
    fake_provider.clock.advance(60)  # 5.5 minutes after the turn
    turn(keeper, agent, "back again")
    after = fake_provider.last
    assert after.cache_read >= before.prompt_tokens  # the whole previous prompt was read

    # usage rows and /usage equal what the fake billed
    rows = agent.store.usage_rows(agent.session_id)
    assert [r["kind"] for r in rows] == ["", "keep_warm", ""]
    billed = fake_provider.requests
    assert [r["cache_read"] for r in rows] == [r.cache_read for r in billed]
    assert [r["write_5m"] + r["write_1h"] for r in rows] == [r.cache_write for r in billed]
    report = build_report(agent.store, agent.session_id)
    assert report.idle is not None and report.idle.keep_warm_reads == 1
    assert report.idle.keep_warm_cost == rows[1]["cost_usd"]
    assert report.idle.avoided is not None and report.idle.avoided > 0
    assert report.session.calls == 3 and report.turn.calls == 1  # keep-warm: not a turn's
    assert report.session.cache_read == sum(r.cache_read for r in billed)
    assert report.as_dict()["idle"]["keep_warm_reads"] == 1
    # the diagnosis does not call the refreshed prefix expired
    assert rows[2]["miss_cause"] != "expired"


def test_without_keeper_the_pause_expires(fake_provider, hermes_home, tmp_path):
    """The control: the same pause with keep_warm off rewrites and says `expired`."""
    agent = make_agent(fake_provider, hermes_home, tmp_path, keep_warm="off")
    keeper = CacheKeeper(clock=fake_provider.clock.now)
    turn(keeper, agent, "hello")
    fake_provider.clock.advance(300 - MARGIN)
    assert all(e.action == "stop" for e in keeper.run_due())
    fake_provider.clock.advance(60)
    turn(keeper, agent, "back again")
    assert not any(is_keep_warm(r) for r in fake_provider.requests)
    rows = agent.store.usage_rows(agent.session_id)
    assert rows[-1]["miss_cause"] == "expired"
    report = build_report(agent.store, agent.session_id)
    assert report.idle is not None and report.idle.rewrites == 1


def test_keep_warm_in_flight_when_the_user_submits(fake_provider, hermes_home, tmp_path):
    """The turn waits for the keep-warm it finds in flight: the keep-warm's request is
    answered before the turn's request is sent, and the turn's history is intact."""
    agent = make_agent(fake_provider, hermes_home, tmp_path)
    keeper = CacheKeeper(clock=fake_provider.clock.now)
    turn(keeper, agent, "hello")
    fake_provider.clock.advance(300 - MARGIN)
    entered, release = threading.Event(), threading.Event()

    def responder(rec):
        if rec.body.get("max_tokens") == 1:
            entered.set()
            assert release.wait(10), "the test never released the keep-warm"
        return None

    fake_provider.responder = responder
    worker = threading.Thread(target=keeper.run_due)
    worker.start()
    assert entered.wait(10), "no keep-warm was sent"
    submitted = threading.Thread(target=turn, args=(keeper, agent, "I am back"))
    submitted.start()
    assert keeper.watching(agent.session_id).busy  # the keeper will not start another
    release.set()
    worker.join(10)
    submitted.join(10)
    assert not worker.is_alive() and not submitted.is_alive()
    reqs = fake_provider.requests
    assert [is_keep_warm(r) for r in reqs] == [False, True, False]
    assert all(r.status == 200 for r in reqs)
    history = [m.role for m in agent.session.conversation.messages]
    assert history == ["user", "assistant", "user", "assistant"]
    assert reqs[2].body["messages"][:2] == reqs[0].body["messages"] + [reqs[2].body["messages"][1]]


def test_abandoned_session_stops_within_the_cap(fake_provider, hermes_home, tmp_path):
    agent = make_agent(fake_provider, hermes_home, tmp_path, keep_warm_max_idle=1200.0)
    keeper = CacheKeeper(clock=fake_provider.clock.now)
    turn(keeper, agent, "hello")
    reads = idle(keeper, fake_provider, 3 * 3600)  # far past the 20-minute cap
    sent_at = [r.time for r in fake_provider.requests if is_keep_warm(r)]
    assert reads == len(sent_at) >= 1 and max(sent_at) <= 1200.0
    assert keeper.next_due() is None and keeper.watching(agent.session_id).stopped


def test_ttl_order_is_never_broken_under_adaptive_ttls(fake_provider, hermes_home, tmp_path):
    """Pauses teach the policy to choose 1h; every request is accepted (the fake answers
    400 when a 1h breakpoint follows a 5m one) and keep-warm reads follow the TTL."""
    agent = make_agent(fake_provider, hermes_home, tmp_path)
    keeper = CacheKeeper(clock=fake_provider.clock.now)
    for i in range(6):  # a large prompt, small turns, 25-minute pauses
        turn(keeper, agent, f"message {i} " + ("x" * 40_000 if i == 0 else "short"))
        idle(keeper, fake_provider, 1500)
    ttls = {m.get("ttl", "5m") for r in fake_provider.requests for m in _markers(r.body)}
    assert "1h" in ttls
    assert all(r.status == 200 for r in fake_provider.requests), [r.error for r in fake_provider.requests]


def test_explicit_ttl_wins(fake_provider, hermes_home, tmp_path):
    agent = make_agent(fake_provider, hermes_home, tmp_path, ttl_explicit=True)
    keeper = CacheKeeper(clock=fake_provider.clock.now)
    for i in range(4):
        turn(keeper, agent, f"message {i} " + "x" * 4000)
        fake_provider.clock.advance(900)
    ttls = {m.get("ttl", "5m") for r in fake_provider.requests for m in _markers(r.body)}
    assert ttls == {"5m"}


def _markers(body) -> list[dict]:
    found: list[dict] = []

    def walk(node) -> None:
        if isinstance(node, dict):
            if "cache_control" in node:
                found.append(node["cache_control"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
    walk(body)
    return found
