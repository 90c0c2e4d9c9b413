"""The idle-gap policy (fast tier): pure functions the keeper and bench/idle_gaps.py share."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agent.cache.idle_policy import (
    ABANDONED,
    FIVE_MINUTES,
    MARGIN,
    ONE_HOUR,
    ONE_REQUEST_PRIOR,
    GapModel,
    Rates,
    best_reads,
    choose_ttl,
    next_step,
)
from agent.cache.idle_report import summary
from agent.messages import Message, Request, SystemBlock
from agent.providers.cache_model import CacheHints, HintFacts
from agent.providers.openai.adapter import map_request
from agent.providers.registry import cache_model

RATES = Rates()


def model_of(*gaps: float) -> GapModel:
    model = GapModel()
    for gap in gaps:
        model.observe(gap)
    return model


def test_the_first_read_goes_shortly_before_expiry():
    step = next_step(GapModel(), prefix=50_000, ttl=FIVE_MINUTES, elapsed=0.0,
                     expires=FIVE_MINUTES, rates=RATES, max_idle=3 * ONE_HOUR)
    assert step.action == "read" and step.at == FIVE_MINUTES - MARGIN


def test_a_single_request_is_not_evidence_of_a_return():
    """On the gateway a session with one request is most likely a one-off call: no
    keep-warm read until it has come back once; then the session's own gaps decide."""
    model = GapModel(first=ONE_REQUEST_PRIOR)
    step = next_step(model, prefix=50_000, ttl=FIVE_MINUTES, elapsed=0.0,
                     expires=FIVE_MINUTES, rates=RATES, max_idle=3 * ONE_HOUR)
    assert step.action == "stop", step
    model.observe(600.0)  # it came back after ten minutes: pauses of that kind are likely
    step = next_step(model, prefix=50_000, ttl=FIVE_MINUTES, elapsed=0.0,
                     expires=FIVE_MINUTES, rates=RATES, max_idle=3 * ONE_HOUR)
    assert step.action == "read", step


def test_a_session_that_never_pauses_gets_no_reads_and_no_premium():
    """Reads are only sent if a pause reaches 4.5 minutes: their expected cost is tiny."""
    model = model_of(*[20.0] * 40)
    assert best_reads(model, 50_000, FIVE_MINUTES, RATES)[1] < 0.01 * 50_000
    assert choose_ttl(model, 50_000, 1_500, RATES, max_idle=3 * ONE_HOUR) == "5m"


def test_frequent_ten_minute_pauses_buy_the_one_hour_ttl():
    model = model_of(*([20.0, 600.0] * 10))
    assert choose_ttl(model, 50_000, 1_500, RATES, max_idle=3 * ONE_HOUR) == "1h"
    # ... but not when the turn would write the whole prompt (after an expiry)
    assert choose_ttl(model, 50_000, 50_000, RATES, max_idle=3 * ONE_HOUR) == "5m"


def test_ski_rental_stop_for_long_pauses_on_five_minute_entries():
    """Pauses of 2 h: reading every 4.5 minutes would cost ~2.7x a rewrite - stop at once;
    pauses of 10 min: keep reading."""
    long = model_of(*[7200.0] * 10)
    assert best_reads(long, 50_000, FIVE_MINUTES, RATES)[0] == 0
    short = model_of(*[600.0] * 10)
    assert best_reads(short, 50_000, FIVE_MINUTES, RATES)[0] >= 1


def test_the_cap_ends_keeping_warm():
    model = model_of(*[600.0] * 10)
    step = next_step(model, prefix=50_000, ttl=FIVE_MINUTES, elapsed=1250.0, expires=1300.0,
                     rates=RATES, max_idle=1200.0)
    assert step.action == "stop" and "max idle" in step.why


def test_abandoned_sessions_weigh_against_reading():
    gone = model_of(*[ABANDONED] * 20)
    assert best_reads(gone, 50_000, FIVE_MINUTES, RATES)[0] == 0


def test_idle_summary_per_pause():
    rows = [
        {"turn": 1, "kind": "", "model": "claude-sonnet-5", "write_5m": 1000, "cache_read": 0,
         "cost_usd": 0.01},
        {"turn": 1, "kind": "keep_warm", "model": "claude-sonnet-5", "write_5m": 0,
         "cache_read": 1000, "cost_usd": 0.0003},
        {"turn": 2, "kind": "", "model": "claude-sonnet-5", "write_5m": 10, "cache_read": 1000,
         "cost_usd": 0.001},
        {"turn": 3, "kind": "", "model": "claude-sonnet-5", "write_5m": 1100, "cache_read": 0,
         "cost_usd": 0.01, "miss_cause": "expired"},
    ]
    idle = summary(rows, model="claude-sonnet-5")
    assert idle.keep_warm_reads == 1 and idle.keep_warm_cost == pytest.approx(0.0003)
    assert idle.avoided is not None and idle.avoided > 0
    assert idle.rewrites == 1 and idle.rewrite_cost is not None and idle.rewrite_cost > 0
    assert [p.after_turn for p in idle.pauses] == [1, 2]


def test_openai_extended_retention_where_known():
    facts = HintFacts(key="k", ttl="5m", extended=True)
    assert cache_model("openai", "gpt-5.5").hints(facts).retention == "24h"
    assert cache_model("openai", "gpt-4o").hints(facts).retention is None
    assert cache_model("vllm", "gpt-5.5").hints(facts).retention is None  # unknown: no facts
    assert cache_model("openai", "gpt-5.5").hints(replace(facts, extended=False)).retention is None
    request = Request(model="gpt-5.5", system=[SystemBlock("s")],
                      messages=[Message("user", "hi")], cache=CacheHints(retention="24h"))
    assert map_request(request)["prompt_cache_retention"] == "24h"
    assert "prompt_cache_retention" not in map_request(
        Request(model="gpt-5.5", system=[SystemBlock("s")], messages=[Message("user", "hi")]))
