"""A job's schedule: a cron expression, `every 30m`, or one run (`in 2h`, `at 2026-12-24
09:00`), in a named timezone (the machine's unless given). Pure: the clock is a number
passed in (epoch seconds), so tests drive it.

`parse(text, tz, now)` checks everything once and returns a `Schedule` whose `text` is
canonical (what the store keeps: `in 2h` becomes the `at ...` it means);
`Schedule.next_after(t, anchor)` is the first fire strictly after `t` (None: no more),
where `anchor` is the job's creation time (what `every` counts from). A schedule may end
with `off-peak` (optionally a window `off-peak 22:00-06:00`): its fires move out of the
model's peak price hours (agent/cron/off_peak.py, applied by `agent.cron.due.next_run`).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from agent.cron import off_peak
from agent.cron.cronexpr import USAGE, CronExpr, ScheduleError, parse_cron

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_DURATION = re.compile(r"(\d+)\s*(w|d|h|m|s)")
FORMS = ('use a cron expression ("0 8 * * 1-5"), "every 30m", "in 2h" or '
         '"at 2026-12-24 09:00" (units: s, m, h, d, w)')
MIN_EVERY = 60  # seconds: the scheduler's resolution is a minute


@dataclass(frozen=True)
class Schedule:
    """A parsed schedule (see the module docstring)."""

    text: str  # canonical
    tz: str
    kind: str  # "cron" | "every" | "once"
    cron: CronExpr | None = None
    every: int = 0  # seconds
    at: float = 0.0  # epoch seconds of a one-off run
    off_peak: str = ""  # "", "off-peak" or "off-peak HH:MM-HH:MM" (agent/cron/off_peak.py)

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.tz)

    def next_after(self, after: float, anchor: float) -> float | None:
        if self.kind == "cron" and self.cron is not None:
            return self.cron.next_after(after, self.zone)
        if self.kind == "every":
            steps = int((after - anchor) // self.every) + 1 if after >= anchor else 1
            return anchor + steps * self.every
        return self.at if self.at > after else None

    @property
    def repeats(self) -> bool:
        return self.kind != "once"


def local_zone() -> str:
    """The machine's timezone name: $TZ when it names one, else /etc/localtime's link."""
    name = os.environ.get("TZ", "").lstrip(":")
    if name and _valid(name):
        return name
    try:
        target = str(Path("/etc/localtime").resolve())
    except OSError:
        return "UTC"
    marker = "zoneinfo/"
    if marker in target:
        name = target.split(marker, 1)[1]
        if _valid(name):
            return name
    return "UTC"


def _valid(name: str) -> bool:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


def zone_named(tz: str | None) -> str:
    """`tz` checked (a ScheduleError naming the fix), or the machine's zone."""
    if tz is None or not tz.strip():
        return local_zone()
    if not _valid(tz.strip()):
        raise ScheduleError(f"unknown timezone {tz!r}",
                            "use an IANA name such as Europe/Paris, America/New_York or UTC")
    return tz.strip()


def duration(text: str) -> int:
    """`2h`, `90m`, `1h30m`, `45 s` -> seconds (ScheduleError when it is not one)."""
    compact = text.replace(" ", "").lower()
    parts = _DURATION.findall(compact)
    if not parts or "".join(n + u for n, u in parts) != compact:
        raise ScheduleError(f"{text!r} is not a duration", FORMS)
    return sum(int(n) * UNITS[u] for n, u in parts)


def parse(text: str, tz: str | None = None, now: float | None = None, *,
          stored: bool = False) -> Schedule:
    """The schedule `text` means in zone `tz` (None: the machine's), checked against
    `now` (epoch seconds; a one-off run must be in the future, a cron must fire);
    `stored`: a job's canonical text read back (a past one-off run is no error)."""
    raw, rule = off_peak.split(" ".join(text.split()))
    found = _parse(raw, tz, now, stored=stored)
    return replace(found, text=f"{found.text} {rule}", off_peak=rule) if rule else found


def _parse(raw: str, tz: str | None, now: float | None, *, stored: bool) -> Schedule:
    zone_name = zone_named(tz)
    zone = ZoneInfo(zone_name)
    moment = datetime.now(UTC).timestamp() if now is None else now
    lowered = raw.lower()
    if not raw:
        raise ScheduleError("the schedule is empty", FORMS)
    if lowered.startswith("every "):
        seconds = duration(raw[6:])
        if seconds < MIN_EVERY:
            raise ScheduleError(f"{raw!r} is too often: the shortest interval is 1m", FORMS)
        return Schedule(f"every {_say(seconds)}", zone_name, "every", every=seconds)
    if lowered.startswith("in "):
        at = moment + duration(raw[3:])
        return _once(datetime.fromtimestamp(at, UTC).astimezone(zone), zone_name, moment)
    if lowered.startswith("at "):
        return _once(_wall(raw[3:], zone), zone_name, -1.0 if stored else moment)
    if raw[0].isalpha() and not raw.startswith("@"):
        raise ScheduleError(f"{raw!r} is not a schedule", FORMS)
    expr = parse_cron(raw)
    if not stored and expr.next_after(moment, zone) is None:
        raise ScheduleError(f"{raw!r} never fires (no such day)", USAGE)
    return Schedule(expr.text, zone_name, "cron", cron=expr)


def _wall(text: str, zone: ZoneInfo) -> datetime:
    for fmt in ("%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d"):
        try:
            return datetime.strptime(text.strip(), fmt).replace(tzinfo=zone)
        except ValueError:
            continue
    raise ScheduleError(f"{text.strip()!r} is not a date and time", 'write "at 2026-12-24 09:00"')


def _once(when: datetime, zone_name: str, now: float) -> Schedule:
    at = when.timestamp()
    shown = when.strftime("%Y-%m-%d %H:%M")
    if at <= now:
        raise ScheduleError(f"{shown} ({zone_name}) is in the past", "give a later time, or \"in 2h\"")
    if at != int(at) or when.second:  # `in 90s`: kept to the second (rounded up, never
        at = float(math.ceil(at))     # early), not rounded up to the minute
        moment = datetime.fromtimestamp(at, UTC).astimezone(ZoneInfo(zone_name))
        shown = moment.strftime("%Y-%m-%d %H:%M:%S" if moment.second else "%Y-%m-%d %H:%M")
    return Schedule(f"at {shown}", zone_name, "once", at=at)


def _say(seconds: int) -> str:
    for unit in ("w", "d", "h", "m"):
        if seconds % UNITS[unit] == 0:
            return f"{seconds // UNITS[unit]}{unit}"
    return f"{seconds}s"


__all__ = ["Schedule", "ScheduleError", "duration", "local_zone", "parse", "zone_named"]
