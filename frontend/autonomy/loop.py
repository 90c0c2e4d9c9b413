"""/loop INTERVAL PROMPT and /loop auto PROMPT: a prompt again every interval.

An iteration is an ordinary turn of the session (undo, usage, budgets), started only
while nobody's turn runs. The interval counts from the end of the previous iteration:
the moment the previous request wrote the cache, so an interval inside the cache
lifetime reads everything the previous one wrote.

`auto` picks the interval from the cache lifetime and the idle policy's costs
(`agent.cache.idle_policy.Rates`, in input-token equivalents of the prefix P):
- any interval T inside the lifetime L (T <= L - MARGIN) costs a read, r x P, per run:
  per hour 3600 / T x r x P, least at the longest such T;
- past the lifetime every run writes the prefix again, w x P: per hour 3600 / T x w x P,
  which is cheaper per hour only from T > (L - MARGIN) x w / r (about 12x longer: an
  hour on a 5-minute entry), a loop too slow to be one.
So `auto` runs every L - 2 x MARGIN: the longest interval that still reads the cache,
and early enough that the REPL's keeper, which would send a keep-warm read at L - MARGIN
after the last request, never does (the iteration's turn comes first and ends its wait):
a keep-warm read right before each iteration would double what the loop pays for reads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.cache.idle_policy import MARGIN, Rates

MIN_INTERVAL = 1.0
MAX_INTERVAL = 24 * 3600.0
USAGE = "/loop INTERVAL PROMPT (30s, 5m, 1h) | /loop auto PROMPT | /loop | /loop stop"
_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0}
_INTERVAL = re.compile(r"(\d+(?:\.\d+)?)([smh]?)")


class LoopUsageError(ValueError):
    """A /loop line that cannot be read; the message says what is wrong and how to fix it."""


@dataclass(frozen=True)
class LoopSpec:
    prompt: str
    interval: float | None  # None: auto (chosen once the session's cache is known)


def parse_interval(word: str) -> float:
    """"30s", "5m", "1h", "90" (seconds) -> seconds."""
    found = _INTERVAL.fullmatch(word.strip().lower())
    if found is None:
        raise LoopUsageError(f"'{word[:20]}' is not an interval; write 30s, 5m or 1h "
                             "(or auto)")
    seconds = float(found.group(1)) * _UNITS[found.group(2) or "s"]
    if not MIN_INTERVAL <= seconds <= MAX_INTERVAL:
        raise LoopUsageError(f"the interval must be between {MIN_INTERVAL:g}s and 24h, "
                             f"not {word}")
    return seconds


def parse_loop(arg: str) -> LoopSpec:
    word, _, prompt = arg.strip().partition(" ")
    if not word or not prompt.strip():
        raise LoopUsageError(f"a loop needs an interval and a prompt: {USAGE}")
    interval = None if word.lower() == "auto" else parse_interval(word)
    return LoopSpec(prompt.strip(), interval)


def span(seconds: float) -> str:
    """270 -> "4m30s", 3600 -> "1h", 45 -> "45s"."""
    whole = int(round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{hours}h" if hours else "", f"{minutes}m" if minutes else "",
             f"{secs}s" if secs else ""]
    return "".join(parts) or "0s"


@dataclass(frozen=True)
class Choice:
    interval: float
    why: str


def per_hour(interval: float, lifetime: float, prefix: float, rates: Rates) -> float:
    """Expected input cost of an hour of iterations (input-token equivalents of the
    prefix; what each iteration adds is the same whatever the interval)."""
    each = rates.read if interval <= lifetime - MARGIN else rates.write_5m
    return 3600.0 / interval * each * prefix


def choose(lifetime: float, prefix: float, rates: Rates) -> Choice:
    """`auto`'s interval for a session whose entries live `lifetime` seconds and whose
    prefix is about `prefix` tokens (module docstring)."""
    interval = max(MIN_INTERVAL, lifetime - 2 * MARGIN)
    ratio = rates.write_5m / rates.read if rates.read else float("inf")
    return Choice(interval, (
        f"the cache entry lives {span(lifetime)}; every {span(interval)} each run reads the "
        f"~{int(prefix):,}-token prefix ({rates.read:g}x input) instead of writing it again "
        f"({rates.write_5m:g}x, {ratio:.0f}x dearer), before the keeper would pay a keep-warm "
        "read; shorter runs more often at the same price each"))
