"""/metrics counts explicit-cache storage (Gemini) from the usage rows (fast tier)."""

from __future__ import annotations

from gateway.metrics import Metrics, exposition


def test_metrics_count_storage_token_hours_from_the_usage_rows() -> None:
    row = {"owner": "", "model": "gemini-3.5-flash", "kind": "cache_storage", "miss_cause": None,
           "input": 0, "cache_write": 0, "cache_read": 0, "output": 0, "cost": 0.02,
           "calls": 1, "stored": 20_000.0}
    text = exposition([row], Metrics("w1"), cached_agents=0)
    assert 'hermes_cache_storage_token_hours_total{model="gemini-3.5-flash"' in text
    assert "} 20000" in text.split("hermes_cache_storage_token_hours_total{")[1]


def test_a_charge_row_is_no_provider_call() -> None:
    call = {"owner": "", "model": "gemini-3.5-flash", "kind": "", "miss_cause": None,
            "input": 100, "cache_write": 0, "cache_read": 0, "output": 5, "cost": 0.01,
            "calls": 5, "stored": 0.0}
    charge = dict(call, kind="cache_storage", calls=3, stored=1000.0, input=0, output=0)
    text = exposition([call, charge], Metrics("w1"), cached_agents=0)
    calls = text.split("hermes_provider_calls_total{")[1].splitlines()[0]
    assert calls.endswith("} 5"), calls  # 5 requests, not 8
