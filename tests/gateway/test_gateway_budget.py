"""The gateway's per-key daily spend limit: HTTP 429 with a clear body and
Retry-After until 00:00 UTC, per key, shown by the session usage endpoint; it resets."""

from __future__ import annotations

import time

import httpx
import openai
import pytest

from tests.helpers import KEY_A, KEY_B, ask, gateway_of


def test_a_key_over_its_daily_limit_gets_429_until_the_reset(harness):
    server = harness.start(daily_usd_per_key=0.000001)  # the first call spends more
    client_a, client_b = harness.client(server), harness.client(server, KEY_B)
    ask(client_a, "s", "hello")  # nothing spent yet today: allowed
    calls = len(harness.fake.requests)
    with pytest.raises(openai.RateLimitError) as refused:
        ask(client_a, "s", "again")
    response = refused.value.response
    assert response.status_code == 429
    wait = int(response.headers["retry-after"])
    assert 0 < wait <= 86_400
    body = response.json()["error"]
    assert body["code"] == "daily_budget_exceeded"
    assert "daily spend limit of $0.000001 for this API key is reached" in body["message"]
    assert "resets at 00:00 UTC" in body["message"]
    assert len(harness.fake.requests) == calls  # the refused turn reached no model
    # commands still answer; another key is not affected
    assert "Calls: " in ask(client_a, "s", "/usage").choices[0].message.content
    ask(client_b, "t", "hello")
    # the session usage endpoint shows the day's spend against the limit
    report = httpx.get(f"{server.base_url}/sessions/s/usage",
                       headers={"Authorization": f"Bearer {KEY_A}"}).json()
    assert report["budget"]["daily_usd"] == 0.000001
    assert report["budget"]["spent_today_usd"] > 0.000001
    assert report["budget"]["remaining_today_usd"] == 0.0
    # a new UTC day: the limit resets (the rows of the day before no longer count)
    gateway_of(server).daily.clock = lambda: time.time() + 86_400
    assert ask(client_a, "s", "tomorrow").choices[0].message.content
