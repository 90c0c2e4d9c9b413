"""Schedules (agent/cron): cron fields, ranges, lists, steps, names, the day-of-month /
day-of-week OR rule, DST gaps and repeats, `every`, `in`, `at`, and the errors."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from agent.cron.cronexpr import ScheduleError
from agent.cron.schedule import duration, local_zone, parse

PARIS = "Europe/Paris"
NY = "America/New_York"


def at(text: str, tz: str = PARIS) -> float:
    return datetime.strptime(text, "%Y-%m-%d %H:%M").replace(tzinfo=ZoneInfo(tz)).timestamp()


def shown(epoch: float | None, tz: str = PARIS) -> str:
    assert epoch is not None
    return datetime.fromtimestamp(epoch, ZoneInfo(tz)).strftime("%Y-%m-%d %H:%M %Z")


def fires(text: str, start: str, count: int, tz: str = PARIS) -> list[str]:
    schedule = parse(text, tz, now=at(start, tz))
    out, t = [], at(start, tz)
    for _ in range(count):
        t = schedule.next_after(t, anchor=at(start, tz))
        out.append(shown(t, tz))
    return out


def test_weekdays_at_eight():
    # 2026-12-04 is a Friday
    assert fires("0 8 * * 1-5", "2026-12-04 09:00", 3) == [
        "2026-12-07 08:00 CET", "2026-12-08 08:00 CET", "2026-12-09 08:00 CET"]


def test_lists_steps_and_names():
    assert fires("*/20 9-10 * * *", "2026-12-05 08:59", 4) == [
        "2026-12-05 09:00 CET", "2026-12-05 09:20 CET", "2026-12-05 09:40 CET",
        "2026-12-05 10:00 CET"]
    assert fires("30 12 * jan,jul sun", "2026-12-05 00:00", 2) == [
        "2027-01-03 12:30 CET", "2027-01-10 12:30 CET"]
    assert fires("0 0 * * 7", "2026-12-05 00:00", 1) == ["2026-12-06 00:00 CET"]  # 7 = Sunday
    assert fires("5/30 * * * *", "2026-12-05 10:00", 2) == ["2026-12-05 10:05 CET",
                                                            "2026-12-05 10:35 CET"]


def test_day_of_month_and_day_of_week_or_rule():
    # both restricted: the 1st OR a Monday; 2026-12-01 is a Tuesday
    assert fires("0 9 1 * 1", "2026-11-30 10:00", 3) == [
        "2026-12-01 09:00 CET", "2026-12-07 09:00 CET", "2026-12-14 09:00 CET"]
    # day of week `*`: only the day of month counts
    assert fires("0 9 1 * *", "2026-11-30 10:00", 2) == ["2026-12-01 09:00 CET",
                                                         "2027-01-01 09:00 CET"]
    # day of month `*`: only the day of week counts
    assert fires("0 9 * * 1", "2026-11-30 10:00", 1) == ["2026-12-07 09:00 CET"]


def test_spring_forward_gap_fires_once_when_the_clocks_jump():
    # Paris 2027-03-28: 02:00 -> 03:00; 02:30 does not exist that night
    assert fires("30 2 * * *", "2027-03-27 12:00", 3) == [
        "2027-03-28 03:00 CEST", "2027-03-29 02:30 CEST", "2027-03-30 02:30 CEST"]


def test_fall_back_fires_a_fixed_time_once_and_a_wildcard_hour_twice():
    # New York 2026-11-01: 02:00 EDT -> 01:00 EST; 01:30 happens twice
    assert fires("30 1 * * *", "2026-10-31 12:00", 2, NY) == [
        "2026-11-01 01:30 EDT", "2026-11-02 01:30 EST"]
    assert fires("30 * * * *", "2026-11-01 00:45", 3, NY) == [
        "2026-11-01 01:30 EDT", "2026-11-01 01:30 EST", "2026-11-01 02:30 EST"]


def test_macros_every_in_and_at():
    assert parse("@daily", PARIS).text == "0 0 * * *"
    now = at("2026-12-05 10:00")
    every = parse("every 30m", PARIS, now=now)
    assert every.text == "every 30m"
    assert every.next_after(now + 1, anchor=now) == now + 1800
    assert every.next_after(now + 3 * 3600 + 5, anchor=now) == now + 7 * 1800  # collapsed
    once = parse("in 2h", PARIS, now=now)
    assert once.text == "at 2026-12-05 12:00" and once.next_after(now, now) == now + 7200
    assert once.next_after(now + 7200, now) is None
    assert parse("at 2026-12-24 09:00", PARIS, now=now).at == at("2026-12-24 09:00")
    assert duration("1h30m") == 5400 and duration("2 d") == 172800


def test_stored_one_off_in_the_past_reads_back():
    later = at("2027-01-01 00:00")
    assert parse("at 2026-12-24 09:00", PARIS, now=later, stored=True).next_after(later, 0) is None


@pytest.mark.parametrize(("text", "words"), [
    ("0 8 * *", "4 field(s), not 5"),
    ("61 * * * *", "minute field: 61 is out of range 0-59"),
    ("0 25 * * *", "hour field: 25 is out of range 0-23"),
    ("0 8 * foo *", "month field: 'foo' is not a number or a name"),
    ("0 8 * * 5-1", "range '5-1' runs backwards"),
    ("*/0 * * * *", "step '0' must be a whole number"),
    ("0 0 31 2 *", "never fires"),
    ("every 10s", "the shortest interval is 1m"),
    ("every soon", "'soon' is not a duration"),
    ("in 2 fortnights", "is not a duration"),
    ("at 2020-01-01 09:00", "is in the past"),
    ("at tomorrow", "is not a date and time"),
    ("tomorrow at 9", "is not a schedule"),
    ("", "the schedule is empty"),
])
def test_bad_schedules_are_one_clear_line(text, words):
    with pytest.raises(ScheduleError) as caught:
        parse(text, PARIS, now=at("2026-12-05 10:00"))
    assert words in caught.value.message and caught.value.hint
    assert "\n" not in caught.value.message


def test_timezones():
    with pytest.raises(ScheduleError, match="unknown timezone"):
        parse("0 8 * * *", "Mars/Olympus")
    assert parse("0 8 * * *", None).tz == local_zone()
