"""Two gateway workers on one database: only the worker that serves a session now keeps
its cache warm (gateway/fleet.py keeper_guard). Two in-process servers over one
HERMES_HOME stand for two workers; the keepers' clocks are shifted with the fake's."""

from __future__ import annotations

import time

from agent.cache.idle_policy import MARGIN
from agent.cache.keeper import CacheKeeper
from tests.helpers import ask, gateway_of


def _keepers(harness, *gateways):
    skew = [0.0]
    clock = lambda: time.time() + skew[0]  # noqa: E731
    for gateway in gateways:
        gateway.keeper.stop()
        gateway.keeper = CacheKeeper(clock=clock)

    def pause(seconds: float) -> None:
        skew[0] += seconds
        harness.fake.clock.advance(seconds)
    return clock, pause


def _warm_reads(fake) -> int:
    return sum(1 for r in fake.requests if r.body["max_tokens"] == 0)


def test_only_the_worker_serving_a_session_keeps_it_warm(harness, database_url):
    harness.config["database_url"] = database_url
    one, two = gateway_of(harness.start()), gateway_of(harness.start())
    clock, pause = _keepers(harness, one, two)
    client_one, client_two = harness.client(harness.servers[0]), harness.client(harness.servers[1])
    ask(client_one, "chat-1", "hello")  # served by worker 1 ...
    ask(client_two, "chat-1", "again")  # ... then by worker 2: worker 1's copy is stale
    for gateway in (one, two):
        (entry,) = gateway.cache._entries.values()  # white box: the cached agent
        entry.agent.caller.clock = clock
    pause(300 - MARGIN)
    stale = one.keeper.run_due()
    assert [(e.action, e.detail) for e in stale] == [
        ("stop", "the stored history moved: another worker serves the session")]
    assert _warm_reads(harness.fake) == 0
    assert one.keeper.watching(stale[0].key) is None  # dropped, never tried again
    served = two.keeper.run_due()
    assert [e.action for e in served] == ["read"]
    assert _warm_reads(harness.fake) == 1
    assert harness.fake.last.cache_read > 0


def test_no_keep_warm_read_while_another_worker_holds_the_session(harness, database_url):
    harness.config["database_url"] = database_url
    one = gateway_of(harness.start())
    clock, pause = _keepers(harness, one)
    ask(harness.client(harness.servers[0]), "chat-1", "hello")
    (entry,) = one.cache._entries.values()
    entry.agent.caller.clock = clock
    pause(300 - MARGIN)
    with one.store.session_lock(entry.agent.session_id, purpose="another worker's turn"):
        events = one.keeper.run_due()
    assert [(e.action, e.detail) for e in events] == [
        ("stop", "the session is held by another worker or process")]
    assert _warm_reads(harness.fake) == 0


def test_the_idle_policy_runs_once_per_idle_spell_until_the_read_is_due(harness, monkeypatch):
    """Every turn end wakes the keeper for every session it watches: a planned read is
    kept until it is due, not re-planned on each wake-up (that cost ~20 ms of CPU per
    gateway turn with 100 idle sessions)."""
    import agent.cache.keeper as keeper_module

    one = gateway_of(harness.start())
    clock, pause = _keepers(harness, one)
    calls = []
    real = keeper_module.next_step
    monkeypatch.setattr(keeper_module, "next_step", lambda *a, **k: calls.append(1) or real(*a, **k))
    ask(harness.client(harness.servers[0]), "chat-1", "hello")
    (entry,) = one.cache._entries.values()
    entry.agent.caller.clock = clock
    due = [one.keeper.next_due() for _ in range(5)]
    assert len(set(due)) == 1 and due[0] is not None and len(calls) == 1
    pause(due[0] - clock())
    assert [e.action for e in one.keeper.run_due()] == ["read"]  # decided afresh when due
    assert len(calls) == 2
