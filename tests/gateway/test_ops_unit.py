"""The arithmetic of /metrics and the rate limits, in process (fast tier): the text
exposition, the store's sliding request log, the token window, the config."""

from __future__ import annotations

import math
import time

import pytest

from agent.errors import ConfigError
from frontend.config.schema import unknown_keys
from frontend.config.settings import Settings
from gateway.auth import configured_keys, owner_id
from gateway.metrics import Histogram, Metrics, UsageTotals, exposition
from gateway.ratelimit import Rate, RateLimits, configured_rates, parse_rate, token_wait
from memory import rates
from memory.store import SessionStore

ROWS = [
    {"owner": "a" * 64, "model": "m1", "kind": "", "miss_cause": None, "input": 10,
     "cache_read": 900, "cache_write": 50, "output": 7, "cost": 0.25, "calls": 3},
    {"owner": "a" * 64, "model": "m1", "kind": "keep_warm", "miss_cause": None, "input": 1,
     "cache_read": 950, "cache_write": 0, "output": 1, "cost": 0.01, "calls": 1},
    {"owner": "", "model": 'we"ird\\', "kind": "", "miss_cause": "ttl_expired", "input": 5,
     "cache_read": 0, "cache_write": 0, "output": 2, "cost": None, "calls": 2},
]


def test_exposition_sums_turn_calls_and_keep_warm_reads_per_model_and_key():
    metrics = Metrics("w1")
    metrics.requests.inc("200", "aaaaaaaaaaaa")
    metrics.requests.inc("429", "aaaaaaaaaaaa")
    text = exposition(ROWS, metrics, cached_agents=5,
                      refused={("a" * 64, "requests"): 4})
    lines = text.splitlines()
    key = 'key="aaaaaaaaaaaa"'
    assert f'hermes_tokens_total{{kind="cache_read",model="m1",{key}}} 1850' in lines
    assert f'hermes_tokens_total{{kind="input",model="m1",{key}}} 11' in lines
    assert f'hermes_cost_usd_total{{model="m1",{key}}} 0.26' in lines
    assert f'hermes_keepwarm_cost_usd_total{{model="m1",{key}}} 0.01' in lines
    assert f'hermes_keepwarm_reads_total{{model="m1",{key}}} 1' in lines
    assert 'hermes_cost_usd_total{model="we\\"ird\\\\",key="none"} 0' in lines
    assert 'hermes_cache_misses_total{reason="ttl_expired"} 2' in lines
    assert f'hermes_requests_total{{worker="w1",status="429",{key}}} 1' in lines
    assert f'hermes_rate_limited_total{{worker="w1",limit="requests",{key}}} 4' in lines
    assert 'hermes_cached_agents{worker="w1"} 5' in lines
    assert text.count("# TYPE ") == text.count("# HELP ") == 12  # + cache storage
    assert all(len(line.split(" ")) >= 2 for line in lines)


def test_turn_histogram_buckets_are_cumulative():
    histogram = Histogram((1.0, 5.0, math.inf))
    for value in (0.2, 0.9, 3.0, 400.0):
        histogram.observe(value)
    assert histogram.lines("t", (("worker", "w"),)) == [
        't_bucket{worker="w",le="1"} 2', 't_bucket{worker="w",le="5"} 3',
        't_bucket{worker="w",le="+Inf"} 4', 't_sum{worker="w"} 404.1', 't_count{worker="w"} 4']


def test_the_request_log_admits_n_per_window_and_says_when(tmp_path):
    store = SessionStore(tmp_path / "state.db")
    try:
        assert [rates.take(store.handle, "k", 3, 60.0, now=100.0 + i)
                for i in range(3)] == [0.0] * 3
        assert rates.take(store.handle, "k", 3, 60.0, now=110.0) == pytest.approx(50.0)
        assert rates.take(store.handle, "other", 3, 60.0, now=110.0) == 0.0  # per name
        assert rates.take(store.handle, "k", 3, 60.0, now=160.5) == 0.0  # the first left
        assert rates.take(store.handle, "k", 3, 60.0, now=160.6) == pytest.approx(0.4)
        count = store.handle.rows("SELECT COUNT(*) AS n FROM rate_events WHERE name = 'k'")
        assert count[0]["n"] == 3  # refused requests are not recorded; old ones dropped
    finally:
        store.close()


def test_token_window_waits_until_enough_tokens_are_a_minute_old():
    rows = [("2026-01-01T00:00:00+00:00", 600), ("2026-01-01T00:00:30+00:00", 500)]
    start = 1767225600.0  # 2026-01-01T00:00:00Z
    assert token_wait(rows, 2000, start + 40) == 0.0
    assert token_wait(rows, 1000, start + 40) == pytest.approx(20.0)  # the 600 leaves
    assert token_wait(rows, 400, start + 40) == pytest.approx(50.0)  # both must leave
    assert token_wait([], 1, start) == 0.0


def test_rate_limits_refuse_with_retry_after_and_count_refusals(tmp_path):
    store = SessionStore(tmp_path / "state.db")
    try:
        limits = RateLimits(store, Rate(requests_per_minute=2), {"vip": Rate(5)})
        assert limits.over("o") is None and limits.over("o") is None
        over = limits.over("o")
        assert over is not None and 1 <= over.retry_after <= 60
        assert over.code == "rate_limit_exceeded" and "2 requests per minute" in over.message
        assert all(limits.over("vip") is None for _ in range(5)) and limits.over("vip")
        assert limits.refused == {("o", "requests"): 1, ("vip", "requests"): 1}
        assert RateLimits(store).over("o") is None  # no limits: nothing recorded
    finally:
        store.close()


def _settings(tmp_path, gateway):
    return Settings(home=tmp_path, raw={"gateway": gateway})


def test_keys_may_carry_their_own_rate_limit(tmp_path):
    settings = _settings(tmp_path, {
        "rate_limit": {"requests_per_minute": 10, "tokens_per_minute": 1000},
        "api_keys": ["plain-key-123", {"key": "busy-key-123", "rate_limit": {
            "requests_per_minute": 100}}]})
    assert configured_keys(settings, {}) == ("plain-key-123", "busy-key-123")
    default, per_owner = configured_rates(settings)
    assert default == Rate(10, 1000)
    assert per_owner == {owner_id("busy-key-123"): Rate(100, 1000)}  # per field
    assert unknown_keys({"gateway": {"rate_limit": {"requests_per_minute": 1},
                                     "metrics_key": "x"}}) == []


@pytest.mark.parametrize(("gateway", "says"), [
    ({"rate_limit": 5}, "`gateway.rate_limit` must be a mapping"),
    ({"rate_limit": {"requests_per_minute": 0}}, "requests_per_minute must be a whole number > 0"),
    ({"rate_limit": {"requests_per_minute": 1.5}}, "must be a whole number > 0"),
    ({"rate_limit": {"requests_per_minute": True}}, "must be a whole number > 0"),
    ({"rate_limit": {"request_per_minute": 3}}, "unknown field `request_per_minute`"),
    ({"api_keys": [{"key": "k" * 10, "rate": {}}]}, "`gateway.api_keys[0]` has unknown field"),
    ({"api_keys": [{"key": "k" * 10, "rate_limit": {"tokens_per_minute": -1}}]},
     "`gateway.api_keys[0]`.rate_limit.tokens_per_minute"),
])
def test_a_malformed_rate_limit_is_one_clear_error(tmp_path, gateway, says):
    with pytest.raises(ConfigError) as caught:
        configured_rates(_settings(tmp_path, gateway))
    assert says in caught.value.message and "\n" not in caught.value.message


def test_a_key_entry_without_a_key_names_the_entry_form(tmp_path):
    with pytest.raises(ConfigError) as caught:
        configured_keys(_settings(tmp_path, {"api_keys": [{"rate_limit": {}}]}), {})
    assert "{key: ..., rate_limit: {...}}" in caught.value.hint


def test_parse_rate_keeps_the_base_for_fields_left_out():
    assert parse_rate({"tokens_per_minute": 7}, "x", Rate(3, 9)) == Rate(3, 7)
    assert parse_rate(None, "x", Rate(3, 9)) == Rate(3, 9)


def _bill(store, sid: str, n: int, **row) -> None:
    store.add_usage(sid, turn=n, call_index=n, uncached=10 * n, write_5m=100, cache_read=n,
                    output=n, cost_usd=0.5, **row)


def test_usage_totals_read_only_new_rows_and_miss_none(tmp_path):
    store = SessionStore(tmp_path / "state.db")
    now = [0.0]
    try:
        store.create_session("s1", model="m1", provider="anthropic", system_prompt="x",
                             owner="b" * 64)
        totals = UsageTotals(store, clock=lambda: now[0])
        for n in range(1, 4):
            _bill(store, "s1", n, kind="keep_warm" if n == 3 else "",
                  miss_cause="ttl_expired" if n == 2 else None)
        now[0] = time.time() + 120  # those three are settled now
        first = totals.read()
        assert totals.last == 3
        _bill(store, "s1", 4)  # fresh: re-read until it settles
        now[0] = time.time()
        again = sorted(totals.read(), key=lambda r: (r["kind"], r["miss_cause"] or ""))
        full = sorted(store.usage_totals(), key=lambda r: (r["kind"], r["miss_cause"] or ""))
        assert [{k: r[k] for k in full[0]} for r in again] == full
        assert totals.last == 3 and sum(r["calls"] for r in first) == 3
        store.delete_session("s1")  # a deleted session's calls stay counted (counters)
        assert sum(r["calls"] for r in totals.read()) == 3
    finally:
        store.close()
