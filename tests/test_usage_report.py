"""Tests of frontend.usage_report: exact sums, unknown propagation, lineage, misses."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from agent.cost import pricing
from agent.usage import Usage
from frontend.miss_causes import CAUSE_EXPLANATIONS
from frontend.usage_report import build_report, report_from_rows
from memory.store import SessionStore

MODEL = "claude-sonnet-5"


def row(turn: int = 1, call_index: int = 1, **kw) -> dict:
    """A usage row as SessionStore.usage_rows returns it."""
    base = {
        "turn": turn, "call_index": call_index, "model": MODEL, "provider": "anthropic",
        "uncached": 10, "write_5m": 0, "write_1h": 0, "cache_read": 0, "output": 5,
        "cost_usd": 0.001, "cache_known": True, "miss_cause": None, "miss_detail": None,
        "missed_tokens": None, "response_id": None,
    }
    base.update(kw)
    return base


def random_rows(seed: int, n: int = 40) -> list[dict]:
    rng = random.Random(seed)
    rows = []
    turn = 1
    for index in range(n):
        if rng.random() < 0.3:
            turn += 1
        rows.append(row(
            turn, index + 1,
            uncached=rng.randint(0, 5000), write_5m=rng.randint(0, 3000),
            write_1h=rng.randint(0, 2000), cache_read=rng.randint(0, 90000),
            output=rng.randint(0, 4000), cost_usd=round(rng.uniform(0, 0.5), 7),
        ))
    return rows


def _baseline(rows: list[dict]) -> float:
    total = 0.0
    for r in rows:
        usage = Usage(r["uncached"], r["write_5m"], r["write_1h"], r["cache_read"] or 0, r["output"])
        total += pricing.uncached_cost(usage, r["model"])
    return total


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_session_totals_are_exact_sums(seed: int) -> None:
    rows = random_rows(seed)
    report = report_from_rows(rows, model=MODEL)
    s = report.session
    assert s.calls == len(rows)
    for key in ("uncached", "write_5m", "write_1h", "cache_read", "output"):
        assert getattr(s, key) == sum(r[key] for r in rows), key
    assert s.cost == pytest.approx(sum(r["cost_usd"] for r in rows), abs=1e-12)
    assert s.priced_calls == len(rows)
    prompt = sum(r["uncached"] + r["write_5m"] + r["write_1h"] + r["cache_read"] for r in rows)
    assert s.prompt_tokens == prompt
    assert s.hit_rate == pytest.approx(sum(r["cache_read"] for r in rows) / prompt)
    baseline = _baseline(rows)
    assert s.savings == pytest.approx(baseline - s.cost)
    assert s.savings_percent == pytest.approx((baseline - s.cost) / baseline * 100)


def test_turn_totals_are_the_last_turns_rows() -> None:
    rows = random_rows(7)
    last = [r for r in rows if r["turn"] == rows[-1]["turn"]]
    t = report_from_rows(rows, model=MODEL).turn
    assert t.calls == len(last)
    assert t.uncached == sum(r["uncached"] for r in last)
    assert t.cache_read == sum(r["cache_read"] for r in last)
    assert t.cost == pytest.approx(sum(r["cost_usd"] for r in last), abs=1e-12)


def test_last_turn_is_the_trailing_run_even_if_turn_numbers_repeat() -> None:
    # A child session whose turn numbering restarted: the earlier turn 1 is not "this turn".
    rows = [row(1, 1, uncached=100), row(2, 2, uncached=200), row(1, 1, uncached=7)]
    report = report_from_rows(rows, model=MODEL)
    assert report.turn.calls == 1 and report.turn.uncached == 7
    assert [(t.turn, t.calls) for t in report.per_turn] == [(1, 1), (2, 1), (1, 1)]


def test_one_unknown_cost_makes_the_total_unknown() -> None:
    rows = [row(cost_usd=0.5), row(cost_usd=None, model="local-llama"), row(cost_usd=0.25)]
    report = report_from_rows(rows, model=MODEL)
    assert report.session.cost is None
    assert report.session.priced_calls == 2
    assert report.session.savings is None and report.session.savings_percent is None
    assert report.unpriced_models == ("local-llama",)
    assert report.price_sources == ("genai-prices 0.2.3 (data of 2026-11)",)


def test_one_unknown_cache_read_makes_hit_rate_unknown() -> None:
    rows = [row(cache_read=900), row(cache_read=None, cache_known=False)]
    s = report_from_rows(rows, model=MODEL).session
    assert s.hit_rate is None
    assert s.cache_read is None and s.write_5m is None and s.write_1h is None
    assert not s.cache_known
    assert s.savings is None
    assert s.uncached == 20 and s.output == 10  # the reported buckets still sum exactly


def test_cache_known_false_alone_makes_hit_rate_unknown() -> None:
    s = report_from_rows([row(cache_read=0, cache_known=False)], model=MODEL).session
    assert s.hit_rate is None


def test_nothing_sent_is_unknown_not_zero() -> None:
    report = report_from_rows([], model=MODEL)
    assert report.session.calls == 0 and report.session.hit_rate is None
    assert report.turn.calls == 0
    assert report.context.used is None and report.context.percent is None
    zero = report_from_rows([row(uncached=0, output=3)], model=MODEL)
    assert zero.session.hit_rate is None


def test_savings_use_each_rows_own_model() -> None:
    rows = [row(model="claude-opus-5-5", uncached=1000, cache_read=50000, cost_usd=0.1),
            row(model="gpt-5", uncached=2000, cache_read=10000, cost_usd=0.02)]
    s = report_from_rows(rows, model=MODEL).session
    assert s.savings == pytest.approx(_baseline(rows) - 0.12)


def test_price_overrides_reach_the_baseline() -> None:
    overrides = {"my-model": {"input": 1.0, "output": 2.0}}
    rows = [row(model="my-model", uncached=1_000_000, cache_read=1_000_000, output=0, cost_usd=1.1)]
    s = report_from_rows(rows, model="my-model", prices=overrides).session
    assert s.savings == pytest.approx(2.0 - 1.1)
    assert s.savings_percent == pytest.approx(45.0)


def test_context_is_the_last_calls_prompt_tokens() -> None:
    rows = [row(uncached=5), row(uncached=100, write_5m=200, write_1h=300, cache_read=400)]
    report = report_from_rows(rows, model=MODEL, context_window=10_000)
    assert report.context.used == 1000
    assert report.context.window == 10_000
    assert report.context.percent == pytest.approx(10.0)
    catalogue = report_from_rows(rows, model=MODEL)
    assert catalogue.context.window == 1_000_000
    unknown = report_from_rows(rows, model="mystery-model")
    assert unknown.context.window is None and unknown.context.percent is None
    live = report_from_rows(rows, model=MODEL, context_window=10_000, context_tokens=2500)
    assert live.context.used == 2500 and live.context.percent == pytest.approx(25.0)


def test_misses_exclude_cold_and_hits_and_carry_explanations() -> None:
    rows = [
        row(1, 1, miss_cause="cold", miss_detail="first call", missed_tokens=0),
        row(1, 2),
        row(2, 3, miss_cause="expired", miss_detail="idle 7.0 min > 5 min TTL", missed_tokens=4200),
        row(3, 4, miss_cause="model_changed", missed_tokens=None),
        row(3, 5, miss_cause="weird_new_cause"),
    ]
    found = report_from_rows(rows, model=MODEL).misses
    assert [(m.turn, m.call_index, m.cause) for m in found] == [
        (2, 3, "expired"), (3, 4, "model_changed"), (3, 5, "weird_new_cause")]
    assert found[0].missed_tokens == 4200 and found[0].detail.startswith("idle")
    assert found[0].explanation == CAUSE_EXPLANATIONS["expired"]
    assert "per model" in found[1].explanation and found[1].missed_tokens is None
    assert found[2].explanation


def test_every_recorded_cause_has_an_explanation() -> None:
    causes = {"too_small", "expired", "model_changed", "tools_changed", "system_changed",
              "tool_choice_changed", "messages_changed", "previous_message_not_found",
              "unavailable", "unknown"}
    assert causes <= set(CAUSE_EXPLANATIONS)


def test_per_turn_hit_rates() -> None:
    rows = [row(1, 1, uncached=100, cache_read=0), row(1, 2, uncached=100, cache_read=300),
            row(2, 3, uncached=50, cache_read=None, cache_known=False),
            row(3, 4, uncached=10, cache_read=90)]
    per_turn = report_from_rows(rows, model=MODEL).per_turn
    assert [(t.turn, t.calls) for t in per_turn] == [(1, 2), (2, 1), (3, 1)]
    assert per_turn[0].hit_rate == pytest.approx(300 / 500)
    assert per_turn[1].hit_rate is None
    assert per_turn[2].hit_rate == pytest.approx(0.9)


def test_as_dict_is_json_friendly_and_rounded() -> None:
    rows = [row(cost_usd=0.123456789123, cache_read=3), row(2, 2, cost_usd=None, cache_read=None,
                                                             cache_known=False)]
    data = report_from_rows(rows, model=MODEL, context_window=1000).as_dict()
    json.dumps(data)
    assert data["session"]["cost"] is None and data["session"]["hit_rate"] is None
    assert data["session"]["cache_read"] is None and data["session"]["cache_known"] is False
    assert data["turn"]["calls"] == 1
    first = report_from_rows(rows[:1], model=MODEL).as_dict()
    assert first["session"]["cost"] == 0.12345679
    assert isinstance(first["session"]["uncached"], int)
    assert data["context"] == {"used": 10, "window": 1000, "percent": 1.0}


# -- against a real store ----------------------------------------------------------------


@pytest.fixture
def store(tmp_path: Path):
    s = SessionStore(tmp_path / "state.db")
    yield s
    s.close()


def _add(store: SessionStore, sid: str, turn: int, call: int, **kw) -> None:
    values = {"uncached": 10, "write_5m": 0, "write_1h": 0, "cache_read": 0, "output": 5,
              "cost_usd": 0.001}
    values.update(kw)
    store.add_usage(sid, turn=turn, call_index=call, **values)


def test_build_report_counts_across_the_compression_seam(store: SessionStore) -> None:
    store.create_session("parent", model=MODEL, provider="anthropic", system_prompt="sys")
    store.create_session("child", model=MODEL, provider="anthropic", system_prompt="sys2",
                         parent_id="parent")
    _add(store, "parent", 1, 1, write_5m=2000, miss_cause="cold")
    _add(store, "parent", 2, 2, cache_read=2000, uncached=50)
    _add(store, "child", 2, 3, write_5m=800, miss_cause="system_changed",
         miss_detail="the system prompt changed", missed_tokens=800)
    _add(store, "child", 2, 4, cache_read=800, uncached=20, cost_usd=0.002)
    report = build_report(store, "child")
    s = report.session
    assert s.calls == 4
    assert s.uncached == 10 + 50 + 10 + 20
    assert s.write_5m == 2800 and s.cache_read == 2800
    assert s.cost == pytest.approx(0.005)
    assert report.turn.calls == 3  # turn 2 spans the seam
    assert [m.cause for m in report.misses] == ["system_changed"]
    assert report.context.used == 820 and report.context.window == 1_000_000
    assert build_report(store, "parent").session.calls == 2


def test_build_report_model_and_window_overrides(store: SessionStore) -> None:
    store.create_session("s1", model="gpt-5", provider="openai", system_prompt="sys")
    empty = build_report(store, "s1", context_windows={"gpt-5": 50_000})
    assert empty.model == "gpt-5" and empty.context.window == 50_000
    assert empty.session.calls == 0
    _add(store, "s1", 1, 1, model="gpt-5-mini", uncached=1000, cache_read=4000)
    report = build_report(store, "s1", context_windows={"gpt-5-mini": 10_000},
                          prices={"gpt-5-mini": {"input": 1.0, "output": 1.0}})
    assert report.model == "gpt-5-mini"
    assert report.context.percent == pytest.approx(50.0)
    assert report.session.hit_rate == pytest.approx(0.8)
    assert report.as_dict()["price_sources"] == ["config.yaml prices: (gpt-5-mini)"]
    live = build_report(store, "s1", context_tokens=6000, context_windows={"gpt-5-mini": 10_000})
    assert live.context.used == 6000


def test_build_report_unknown_cache_data_from_store(store: SessionStore) -> None:
    store.create_session("s2", model="llama3", provider="openai", system_prompt="sys")
    store.add_usage("s2", turn=1, call_index=1, uncached=500, output=20, cost_usd=None)
    report = build_report(store, "s2")
    assert report.session.hit_rate is None and report.session.cost is None
    assert report.context.window is None
    assert report.unpriced_models == ("llama3",)
    assert report.price_sources == () and report.as_dict()["price_sources"] == []
