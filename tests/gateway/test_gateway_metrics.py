"""/metrics over real HTTP: its counters equal what the fake provider billed and what
/usage shows; its key is its own; it names key ids, never keys (wire tier)."""

from __future__ import annotations

import re

import httpx
import openai
import pytest

from gateway.auth import owner_id
from tests.helpers import KEY_A, KEY_B, ask

pytestmark = pytest.mark.wire

METRICS_KEY = "metrics-key-0123456789"
SAMPLE = re.compile(r'^(\w+)(?:\{(.*)\})? (\S+)$')


def scrape(server, key: str | None = METRICS_KEY) -> httpx.Response:
    headers = {"authorization": f"Bearer {key}"} if key else {}
    return httpx.get(server.base_url.removesuffix("/v1") + "/metrics", headers=headers,
                     timeout=30)


def samples(text: str) -> list[tuple[str, dict[str, str], float]]:
    out = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        match = SAMPLE.match(line)
        assert match, line
        labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', match.group(2) or ""))
        out.append((match.group(1), labels, float(match.group(3))))
    return out


def total(found, name: str, **want: str) -> float:
    return sum(v for n, labels, v in found if n == name
               and all(labels.get(k) == w for k, w in want.items()))


def test_counters_equal_the_provider_bill_and_usage(harness):
    server = harness.start(metrics_key=METRICS_KEY)
    a, b = harness.client(server, KEY_A), harness.client(server, KEY_B)
    for turn in range(3):
        ask(a, "alpha", f"alpha turn {turn}: say something")
    ask(b, "bravo", "bravo turn: say something", stream=False)
    found = samples(scrape(server).text)
    billed = harness.fake.requests  # the provider's own record of what it answered
    assert len(billed) == 4
    for kind, field in (("input", "input_tokens"), ("cache_read", "cache_read_input_tokens"),
                        ("cache_write", "cache_creation_input_tokens"),
                        ("output", "output_tokens")):
        assert total(found, "hermes_tokens_total", kind=kind) == sum(
            r.usage.get(field) or 0 for r in billed), kind
    key_a, key_b = owner_id(KEY_A)[:12], owner_id(KEY_B)[:12]
    for key, name in ((KEY_A, "alpha"), (KEY_B, "bravo")):
        report = httpx.get(f"{server.base_url}/sessions/{name}/usage", timeout=10,
                           headers={"authorization": f"Bearer {key}"}).json()["session"]
        kid = owner_id(key)[:12]
        assert total(found, "hermes_cost_usd_total", key=kid) == pytest.approx(report["cost"])
        assert report["cost"] > 0
        assert total(found, "hermes_tokens_total", key=kid, kind="output") == report["output"]
        assert total(found, "hermes_provider_calls_total", key=kid) == report["calls"]
    assert total(found, "hermes_requests_total", status="200", key=key_a) == 3
    assert total(found, "hermes_requests_total", status="200", key=key_b) == 1
    assert total(found, "hermes_turn_seconds_count") == 4
    assert total(found, "hermes_cached_agents") == 2
    text = scrape(server).text
    assert KEY_A not in text and KEY_B not in text and owner_id(KEY_A) not in text


def test_metrics_has_its_own_key(harness):
    server = harness.start(metrics_key=METRICS_KEY)
    client_key = scrape(server, KEY_A)
    assert client_key.status_code == 403 and "client key" in client_key.json()["error"]["message"]
    assert scrape(server, None).status_code == 401
    assert scrape(server, "wrong-key-0123456789").status_code == 401
    ok = scrape(server)
    assert ok.status_code == 200 and ok.headers["content-type"].startswith("text/plain")
    harness.stop_all()
    del harness.config["gateway"]["metrics_key"]
    off = scrape(harness.start())
    assert off.status_code == 404 and "gateway.metrics_key" in off.json()["error"]["message"]


def test_the_request_over_the_rate_gets_429_and_never_reaches_the_provider(harness):
    harness.config["gateway"]["api_keys"] = [
        KEY_A, {"key": KEY_B, "rate_limit": {"requests_per_minute": 3}}]
    server = harness.start(rate_limit={"requests_per_minute": 2}, metrics_key=METRICS_KEY)
    a, b = harness.client(server, KEY_A), harness.client(server, KEY_B)
    ask(a, "alpha", "one")
    ask(a, "alpha", "two")
    sent = len(harness.fake.requests)
    with httpx.Client(timeout=30) as http:
        over = http.post(f"{server.base_url}/chat/completions",
                         headers={"authorization": f"Bearer {KEY_A}",
                                  "x-hermes-session-id": "alpha"},
                         json={"model": "hermes",
                               "messages": [{"role": "user", "content": "three"}]})
    assert over.status_code == 429
    assert 1 <= int(over.headers["retry-after"]) <= 60
    assert over.json()["error"]["code"] == "rate_limit_exceeded"
    assert "2 requests per minute" in over.json()["error"]["message"]
    assert len(harness.fake.requests) == sent  # nothing reached the provider
    with pytest.raises(openai.RateLimitError):  # a built-in command counts against the rate too
        ask(a, "alpha", "/model")
    for turn in range(3):  # the other key has a limit of its own
        ask(b, "bravo", f"bravo {turn}")
    found = samples(scrape(server).text)
    assert total(found, "hermes_rate_limited_total", limit="requests",
                 key=owner_id(KEY_A)[:12]) == 2
    assert total(found, "hermes_requests_total", status="429") == 2
