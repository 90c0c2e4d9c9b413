"""Anthropic cache breakpoint placement: a pure function, at most 4 breakpoints.

Strategy (better than "system + last 3 messages"):
1. after the tools         - the tools prefix survives a system change,
2. after the stable system - shared by every request of the session,
3. exactly where the PREVIOUS request of this session put its last breakpoint - that
   prefix was written then, so it is read now even if this turn appended more than
   the 20 blocks the provider looks back from a breakpoint,
4. at the end of this request - written now, read by the next request.
TTL ordering: entries with a longer TTL must come first, so the prefix breakpoints
(1, 2) never have a shorter TTL than the message breakpoints (3, 4).
"""

from __future__ import annotations

from typing import Literal

from agent.messages import Breakpoint

MAX_BREAKPOINTS = 4
TTL_SECONDS = {"5m": 300, "1h": 3600}

Ttl = Literal["5m", "1h"]


def place_breakpoints(
    *,
    has_tools: bool,
    stable_system_index: int | None,
    message_count: int,
    previous_last_index: int | None,
    ttl: Ttl = "5m",
    prefix_ttl: Ttl | None = None,
) -> list[Breakpoint]:
    """Return the breakpoints for one request (never more than 4).

    `stable_system_index` is the index of the last stable system block (None: no system);
    `previous_last_index` is the message index of the previous request's final breakpoint.
    """
    prefix = prefix_ttl or ttl
    if TTL_SECONDS[prefix] < TTL_SECONDS[ttl]:
        prefix = ttl  # a shorter TTL may not precede a longer one
    points: list[Breakpoint] = []
    if has_tools:
        points.append(Breakpoint("tools", -1, prefix))
    if stable_system_index is not None and stable_system_index >= 0:
        points.append(Breakpoint("system", stable_system_index, prefix))
    last = message_count - 1
    if previous_last_index is not None and 0 <= previous_last_index < last:
        points.append(Breakpoint("message", previous_last_index, ttl))
    if last >= 0:
        points.append(Breakpoint("message", last, ttl))
    assert len(points) <= MAX_BREAKPOINTS, "more than 4 cache breakpoints"
    return points
