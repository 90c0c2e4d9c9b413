"""Standard 5-field cron expressions: parsing and the next fire time, in one timezone.

Fields: minute (0-59), hour (0-23), day of month (1-31), month (1-12 or jan-dec),
day of week (0-7, 0 and 7 = Sunday, or sun-sat). Each field is `*`, a value, a range
`a-b`, a step `*/n`, `a-b/n` or `a/n`, or a comma list of those. Macros: @hourly,
@daily (@midnight), @weekly, @monthly, @yearly (@annually).

Day of month and day of week: when both are restricted (neither starts with `*`) a day
matches if EITHER matches (the classic cron rule: `0 9 1 * 1` is the 1st and every
Monday); when one is `*`, only the other counts.

Daylight saving time (wall-clock times in the expression's zone):
- a time that does not exist (spring forward: 02:30 on the night clocks jump from 02:00
  to 03:00) fires once, at the moment the clocks jump (03:00);
- a time that occurs twice (fall back: 01:30) fires once, at its first occurrence,
  unless the hour field is `*`: then each of the two hours fires, as the wall clock
  shows them (a `*/10 * * * *` job does not pause for an hour).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from agent.errors import ConfigError

MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
DAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
MACROS = {"@hourly": "0 * * * *", "@daily": "0 0 * * *", "@midnight": "0 0 * * *",
          "@weekly": "0 0 * * 0", "@monthly": "0 0 1 * *", "@yearly": "0 0 1 1 *",
          "@annually": "0 0 1 1 *"}
_FIELDS = (("minute", 0, 59, ()), ("hour", 0, 23, ()), ("day of month", 1, 31, ()),
           ("month", 1, 12, MONTHS), ("day of week", 0, 7, DAYS))
SEARCH_DAYS = 366 * 8 + 2  # Feb 29 on a given weekday comes back within 28 years; 8 is enough with OR
USAGE = ("a cron expression has 5 fields: minute hour day-of-month month day-of-week, "
         "e.g. \"0 8 * * 1-5\" (08:00 on weekdays) or \"*/15 * * * *\"")


class ScheduleError(ConfigError):
    """A schedule that cannot be used: what is wrong and the form that works."""


@dataclass(frozen=True)
class CronExpr:
    """A parsed expression: the allowed values of each field."""

    text: str
    minutes: tuple[int, ...]
    hours: tuple[int, ...]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]  # 0 = Sunday .. 6
    day_star: bool
    weekday_star: bool
    hour_star: bool

    def day_matches(self, day: date) -> bool:
        if day.month not in self.months:
            return False
        by_day = day.day in self.days
        by_weekday = (day.isoweekday() % 7) in self.weekdays
        if self.day_star and self.weekday_star:
            return True
        if self.day_star:
            return by_weekday
        if self.weekday_star:
            return by_day
        return by_day or by_weekday

    def next_after(self, after: float, zone: ZoneInfo) -> float | None:
        """The first fire strictly after epoch second `after` (None: it never fires)."""
        start = datetime.fromtimestamp(after, UTC).astimezone(zone)
        day = start.date() - timedelta(days=1)  # a gap's jump may land on the next day
        for _ in range(SEARCH_DAYS):
            if self.day_matches(day):
                for hour in self.hours:
                    for minute in self.minutes:
                        for instant in _instants(datetime(day.year, day.month, day.day, hour, minute),
                                                 zone, twice=self.hour_star):
                            if instant > after:
                                return instant
            day += timedelta(days=1)
        return None


def _instants(wall: datetime, zone: ZoneInfo, *, twice: bool) -> list[float]:
    """The epoch seconds at which wall-clock time `wall` happens in `zone`: one; none
    existing -> the moment the clocks jump past it; two (fall back) -> the first, or both
    when `twice`."""
    first = wall.replace(tzinfo=zone, fold=0)
    second = wall.replace(tzinfo=zone, fold=1)
    if _exists(first, zone):
        out = [first.timestamp()]
        if twice and second.utcoffset() != first.utcoffset():
            out.append(second.timestamp())
        return out
    probe = wall
    for _ in range(24 * 60):  # the first wall minute after the gap
        probe += timedelta(minutes=1)
        if _exists(probe.replace(tzinfo=zone), zone):
            return [probe.replace(tzinfo=zone).timestamp()]
    return []


def _exists(aware: datetime, zone: ZoneInfo) -> bool:
    back = datetime.fromtimestamp(aware.timestamp(), UTC).astimezone(zone)
    return back.replace(tzinfo=None) == aware.replace(tzinfo=None)


def _value(raw: str, name: str, lo: int, hi: int, names: tuple[str, ...]) -> int:
    lowered = raw.lower()
    if lowered in names:
        return names.index(lowered) + (1 if name == "month" else 0)
    if not raw.isdigit():
        known = f" or a name ({', '.join(names)})" if names else ""
        raise ScheduleError(f"cron {name} field: {raw!r} is not a number{known}", USAGE)
    value = int(raw)
    if not lo <= value <= hi:
        raise ScheduleError(f"cron {name} field: {value} is out of range {lo}-{hi}", USAGE)
    return value


def _field(text: str, name: str, lo: int, hi: int, names: tuple[str, ...]) -> set[int]:
    values: set[int] = set()
    for part in text.split(","):
        if not part:
            raise ScheduleError(f"cron {name} field {text!r} has an empty list item", USAGE)
        base, _, step_text = part.partition("/")
        step = 1
        if step_text:
            if not step_text.isdigit() or int(step_text) == 0:
                raise ScheduleError(f"cron {name} field: step {step_text!r} must be a whole number >= 1",
                                    USAGE)
            step = int(step_text)
        if base == "*":
            first, last = lo, hi
        elif "-" in base:
            a, _, b = base.partition("-")
            first, last = _value(a, name, lo, hi, names), _value(b, name, lo, hi, names)
            if first > last:
                raise ScheduleError(f"cron {name} field: range {base!r} runs backwards", USAGE)
        else:
            first = _value(base, name, lo, hi, names)
            last = hi if step_text else first
        values.update(range(first, last + 1, step))
    return values


def parse_cron(text: str) -> CronExpr:
    """Parse a 5-field expression or macro (ScheduleError saying which field is wrong)."""
    expanded = MACROS.get(text.strip().lower(), text)
    fields = expanded.split()
    if len(fields) != 5:
        raise ScheduleError(f"{text!r} has {len(fields)} field(s), not 5", USAGE)
    sets = [_field(f, name, lo, hi, names) for f, (name, lo, hi, names) in zip(fields, _FIELDS,
                                                                                 strict=True)]
    weekdays = frozenset(d % 7 for d in sets[4])
    return CronExpr(" ".join(fields), tuple(sorted(sets[0])), tuple(sorted(sets[1])),
                    frozenset(sets[2]), frozenset(sets[3]), weekdays,
                    day_star=fields[2].startswith("*"), weekday_star=fields[4].startswith("*"),
                    hour_star=fields[1] == "*")
