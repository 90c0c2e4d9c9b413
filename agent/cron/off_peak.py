"""Off-peak runs (`hermes cron add --off-peak [--off-peak-window HH:MM-HH:MM]`): a fire
that falls in its model's peak price hours (agent/providers/price_hours.py: the price
data's time-of-day windows) - or outside the job's own window, in the job's zone -
is moved to the first minute that is not. A model with one price all day never moves.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from agent.cron.cronexpr import ScheduleError
from agent.providers.price_hours import next_off_peak

WORD = "off-peak"
_SUFFIX = re.compile(r"\s+off-peak(?:\s+(\d{1,2}):(\d{2})-(\d{1,2}):(\d{2}))?$", re.IGNORECASE)
HINT = "write --off-peak, or --off-peak-window 22:00-06:00 (HH:MM-HH:MM in the job's zone)"


def split(text: str) -> tuple[str, str]:
    """(the schedule without its off-peak suffix, the suffix canonical: "" none,
    "off-peak", or "off-peak HH:MM-HH:MM")."""
    found = _SUFFIX.search(text)
    if found is None:
        return text, ""
    if found.group(1) is None:
        return text[:found.start()], WORD
    h1, m1, h2, m2 = (int(g) for g in found.groups())
    if h1 > 23 or h2 > 23 or m1 > 59 or m2 > 59 or (h1, m1) == (h2, m2):
        raise ScheduleError(f"{found.group(0).strip()!r} is not a window", HINT)
    return text[:found.start()], f"{WORD} {h1:02d}:{m1:02d}-{h2:02d}:{m2:02d}"


def _in_window(moment: datetime, window: tuple[int, int]) -> bool:
    minute = moment.hour * 60 + moment.minute
    start, end = window
    return start <= minute < end if start < end else (minute >= start or minute < end)


def shift(when: float, rule: str, model: str, tz: str) -> float:
    """Fire time `when` (epoch seconds) moved off-peak by `rule` (`split`'s suffix)."""
    if not rule:
        return when
    parts = rule.split()
    moment = datetime.fromtimestamp(when, ZoneInfo(tz))
    if len(parts) == 1:
        return next_off_peak(model, moment).timestamp()
    (h1, m1), (h2, m2) = (map(int, side.split(":")) for side in parts[1].split("-"))
    window = (h1 * 60 + m1, h2 * 60 + m2)
    if _in_window(moment, window):
        return when
    start = moment.replace(hour=h1, minute=m1, second=0, microsecond=0)
    return (start if start > moment else start + timedelta(days=1)).timestamp()
