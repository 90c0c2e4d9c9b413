"""`hermes cron add ... --off-peak [--off-peak-window W]`: a fire in its
model's peak price hours (the price data's: DeepSeek's 01:00-04:00 and 06:00-10:00 UTC)
moves to the first off-peak minute; a window of the job's own holds its fires inside
it; a model with one price never moves. Fast tier: the store and the schedule."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from agent.cron.due import next_run
from agent.cron.schedule import ScheduleError, parse
from memory.cron import CronStore

T0 = datetime(2026, 12, 7, 0, 0, tzinfo=UTC).timestamp()


def _first(any_store, schedule: str, model: str) -> str:
    cron = CronStore(any_store.handle)
    text = parse(schedule, "UTC", now=T0).text
    job = cron.add({"name": f"j{len(cron.jobs())}", "schedule": text, "tz": "UTC", "prompt": "hi",
                    "deliver": "none", "provider": "deepseek", "model": model, "created": T0})
    when = next_run(job, T0)
    assert when is not None
    return datetime.fromtimestamp(when, UTC).strftime("%H:%M")


def test_a_fire_in_peak_hours_moves_to_the_first_off_peak_minute(any_store):
    assert _first(any_store, "0 2 * * * off-peak", "deepseek-v4-flash") == "04:00"
    assert _first(any_store, "30 7 * * *   OFF-PEAK", "deepseek-v4-flash") == "10:00"
    assert _first(any_store, "0 12 * * * off-peak", "deepseek-v4-flash") == "12:00"
    assert _first(any_store, "0 2 * * * off-peak", "claude-sonnet-5") == "02:00"  # one price
    assert _first(any_store, "0 2 * * *", "deepseek-v4-flash") == "02:00"  # not asked


def test_a_window_of_the_jobs_own_holds_its_fires(any_store):
    assert _first(any_store, "0 20 * * * off-peak 22:00-06:00", "gpt-5.2") == "22:00"
    assert _first(any_store, "0 3 * * * off-peak 22:00-06:00", "gpt-5.2") == "03:00"
    assert parse("every 2h off-peak 22:00-6:00", "UTC", now=T0).text == \
        "every 2h off-peak 22:00-06:00"
    with pytest.raises(ScheduleError, match="not a window"):
        parse("0 3 * * * off-peak 25:00-06:00", "UTC", now=T0)
