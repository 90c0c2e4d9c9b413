"""The Gemini cache planner's arithmetic (fast tier): implicit vs explicit, the TTL,
a cache outliving its session, storage billed once."""

from __future__ import annotations

import pytest

from agent.cache.idle_policy import ABANDONED, GapModel
from agent.providers.gemini import planner
from agent.providers.gemini.cache_store import CacheRow, MemoryLedger, accrue

FLASH = planner.Prices.per_million(1.5, 0.15, 1.00)  # gemini-3.5-flash, storage $1/MTok/h


def test_below_the_floor_it_is_implicit_only() -> None:
    plan = planner.choose(GapModel(), prefix=4000, history=0, floor=4096, prices=FLASH)
    assert plan.kind == "implicit" and "floor" in plan.why


def test_a_large_prefix_in_a_chatty_session_gets_an_explicit_cache() -> None:
    plan = planner.choose(GapModel([20.0, 40.0, 30.0]), prefix=30_000, history=500,
                          floor=4096, prices=FLASH)
    assert plan.kind == "explicit" and plan.ttl in planner.TTL_CHOICES
    assert plan.explicit < plan.implicit


def test_a_one_off_caller_gets_no_cache() -> None:
    one_off = GapModel(prior=((ABANDONED, 1.0), (3600.0 * 24, 0.01)))
    plan = planner.choose(one_off, prefix=30_000, history=0, floor=4096, prices=FLASH)
    assert plan.kind == "implicit"


def test_longer_pauses_buy_a_longer_ttl() -> None:
    quick = planner.best_ttl(GapModel([10.0] * 10), 30_000, 0, FLASH)[0]
    slow = planner.best_ttl(GapModel([1500.0] * 10), 30_000, 0, FLASH)[0]
    assert quick < slow and slow >= 1800


def test_explicit_pause_cost_is_storage_plus_read() -> None:
    never_long = GapModel([60.0] * 50, prior=((60.0, 1.0),))  # always back in a minute
    cost = planner.explicit_pause(never_long, 1_000_000, 0, FLASH, ttl=300.0)
    stored = planner.alive_seconds(never_long, 300.0)
    assert 30 < stored < 120  # about a minute (gaps are smoothed over [g/2, 2g])
    assert cost == pytest.approx(FLASH.storage_hour * 1e6 * stored / 3600 + FLASH.read * 1e6)


def test_a_cache_outlives_its_session_only_when_sessions_come_back() -> None:
    assert planner.keep_after_exit(50_000, 1800, FLASH, back_rate_per_hour=10.0)
    assert not planner.keep_after_exit(50_000, 1800, FLASH, back_rate_per_hour=0.05)
    assert not planner.keep_after_exit(50_000, 0, FLASH, back_rate_per_hour=10.0)


def test_storage_is_billed_once_up_to_the_expiry() -> None:
    ledger = MemoryLedger()
    row = CacheRow("cachedContents/a", "k", "gemini-3.5-flash", 7200, created=0.0,
                   expires=3600.0, billed_until=0.0)
    row, first = accrue(row, 1800.0)
    row, again = accrue(row, 1800.0)
    row, rest = accrue(row, 9999.0)
    assert (first, again, rest) == (3600.0, 0.0, 3600.0)  # 7,200 tokens x 0.5 h each
    ledger.put(row)
    assert ledger.find("k", 100.0) is not None and ledger.find("k", 3600.0) is None

