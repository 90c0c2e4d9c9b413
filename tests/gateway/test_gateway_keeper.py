"""The gateway's one cache keeper serves every session (wire tier: real uvicorn, the
real openai client, the fake provider). The keeper's clock is the real clock shifted by
exactly what the fake's clock was advanced, so both see the same pause; the test moves
time and asserts the order of requests, never a duration."""

from __future__ import annotations

import json
import time
import urllib.request

from agent.cache.idle_policy import MARGIN
from agent.cache.keeper import CacheKeeper
from tests.helpers import KEY_A, ask, gateway_of


def _keeper_on_a_clock(harness, server):
    """The gateway's keeper (its own settings) on a clock the test moves; returns
    (gateway, client, pause)."""
    gateway = gateway_of(server)
    skew = [0.0]
    gateway.keeper.stop()
    clock = lambda: time.time() + skew[0]  # noqa: E731
    gateway.keeper = CacheKeeper(clock=clock, first_prior=gateway.keeper.first_prior)
    client = harness.client(server)
    ask(client, "chat-1", "hello")
    (entry,) = gateway.cache._entries.values()  # white box: the session's cached agent
    entry.agent.caller.clock = clock  # the agent measures the pause on the same clock

    def pause(seconds: float) -> None:
        skew[0] += seconds
        harness.fake.clock.advance(seconds)

    return gateway, client, pause


def test_a_one_request_session_is_not_kept_warm(harness):
    """An API session that made one request is most likely a one-off call: no read."""
    gateway, _client, pause = _keeper_on_a_clock(harness, harness.start())
    pause(300 - MARGIN)
    events = gateway.keeper.run_due()
    assert [e.action for e in events] == ["stop"], events
    assert [r.body["max_tokens"] == 0 for r in harness.fake.requests] == [False]


def test_a_gateway_session_is_kept_warm_across_a_pause(harness):
    server = harness.start()
    gateway, client, pause = _keeper_on_a_clock(harness, server)
    pause(600)  # the client came back after ten minutes: pauses are its habit
    ask(client, "chat-1", "again")
    first = harness.fake.last
    pause(300 - MARGIN)
    events = gateway.keeper.run_due()
    assert [e.action for e in events] == ["read"], events
    warm = harness.fake.last
    assert warm.body["max_tokens"] == 0 and warm.cache_read == first.prompt_tokens
    pause(60)  # 5.5 minutes after the turn
    ask(client, "chat-1", "back")
    after = harness.fake.last
    assert after.cache_read >= first.prompt_tokens
    assert [r.body["max_tokens"] == 0 for r in harness.fake.requests] == [False, False, True, False]

    request = urllib.request.Request(f"{server.base_url}/sessions/chat-1/usage",
                                     headers={"Authorization": f"Bearer {KEY_A}"})
    with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310 - 127.0.0.1
        report = json.loads(response.read())
    assert report["idle"]["keep_warm_reads"] == 1
    billed = sum(r.cache_read for r in harness.fake.requests)
    assert report["session"]["cache_read"] == billed
