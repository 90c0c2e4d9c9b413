"""Prices in force at the time of the call: genai-prices' DeepSeek
entries cost twice as much in their peak windows; a call is priced at its minute, and
an off-peak schedule finds the next cheap minute. Fast tier: the bundled data."""

from __future__ import annotations

from datetime import UTC, datetime, time

import pytest

from agent.cost import pricing
from agent.providers.price_hours import is_peak, next_off_peak, peak_windows
from agent.usage import Usage

DAY = datetime(2026, 12, 7, tzinfo=UTC)


def at(hour: int, minute: int = 0) -> datetime:
    return DAY.replace(hour=hour, minute=minute)


def test_a_call_is_priced_at_its_hour():
    usage = Usage(uncached=100_000, cache_read=900_000, output=10_000)
    peak = pricing.cost(usage, "deepseek-v4-flash", at=at(2, 30))
    off = pricing.cost(usage, "deepseek-v4-flash", at=at(12))
    assert peak is not None and off is not None
    assert peak == pytest.approx(2 * off)  # 0.30/0.006/1.20 vs 0.15/0.003/0.60 per MTok
    assert off == pytest.approx((100_000 * 0.15 + 900_000 * 0.003 + 10_000 * 0.6) / 1e6)


def test_peak_windows_come_from_the_data_and_the_next_off_peak_minute_follows():
    assert peak_windows("deepseek-v4-flash", DAY) == ((time(1), time(4)), (time(6), time(10)))
    assert peak_windows("deepseek-chat", DAY) == ((time(0, 30), time(16, 30)),)
    assert peak_windows("claude-sonnet-5", DAY) == ()  # one price all day
    assert is_peak("deepseek-v4-flash", at(3, 59)) and not is_peak("deepseek-v4-flash", at(4))
    assert next_off_peak("deepseek-v4-flash", at(7, 15)) == at(10)
    assert next_off_peak("deepseek-v4-flash", at(12)) == at(12)
    assert next_off_peak("gpt-5.2", at(2)) == at(2)
