"""Anthropic cache breakpoint placement: a pure function, at most 4 breakpoints.

The stable layer is several system blocks ordered from most shared to least
(agent.prompts.prompt.SCOPES): installation-wide, then user/project, then this session. The
slots, in order of priority (the first four present are used, emitted in prefix order):

1. the last message            - written now, read by the next request;
2. where the PREVIOUS request of this session put its last breakpoint - that prefix was
   written then, so it is read now even if this turn appended more than the 20 blocks
   the provider looks back from a breakpoint;
3. the end of the stable system - the whole stable prefix of this session;
4. on the FIRST request of a cache chain (no previous breakpoint: a new session, a
   sub-agent, a compression child, a resumed session, after a deliberate rebuild) the
   ends of the shared blocks (installation, then project): these are the WRITES that
   let every later session read them; on later requests, the tools (as before).

Why no read is lost, with the 20-block lookback:
- Reading a shared block needs no breakpoint on it, only an entry written there earlier
  and a breakpoint within 20 blocks after it: the stable-end breakpoint (slot 3) is at
  most two blocks after the installation end and one after the project end, so its
  lookback finds them. So a later session reads the shared blocks an earlier session
  wrote, and a first request reads the tools entry via the installation breakpoint's
  lookback (one block back) - what today's tools breakpoint read.
- Writing them needs a breakpoint ON them, but only once per chain: slot 4 on the first
  request. Marking an entry that is already live costs nothing.
- Every later request of a session gets exactly today's breakpoints (tools, stable end,
  previous last, last); the first request had no in-session read to take. The message
  breakpoints (1, 2) always win a slot, so the >20-block turns read as they did.
- A legacy session (one stable block) has no shared boundaries: today's placement.
TTL ordering: entries with a longer TTL must come first, so the prefix breakpoints (the
tools and the system blocks) never have a shorter TTL than the message breakpoints.
Which caches take marks, and what "5m"/"1h" last on their wire, is the session's cache
model's to say (agent/providers/cache_model.py); this planner only places them.
"""

from __future__ import annotations

from typing import Literal

from agent.messages import Breakpoint

MAX_BREAKPOINTS = 4
TTL_SECONDS = {"5m": 300, "1h": 3600}  # the order of our lifetime names (short < long)

Ttl = Literal["5m", "1h"]


def place_breakpoints(  # noqa: PLR0913 - every argument is one fact of the request
    *,
    has_tools: bool,
    stable_system_index: int | None,
    message_count: int,
    previous_last_index: int | None,
    ttl: Ttl = "5m",
    prefix_ttl: Ttl | None = None,
    shared_system_indexes: tuple[int, ...] = (),
) -> list[Breakpoint]:
    """Return the breakpoints for one request (never more than 4).

    `stable_system_index` is the index of the last stable system block (None: no system);
    `shared_system_indexes` the indexes of the stable blocks before it (most shared
    first); `previous_last_index` is the message index of the previous request's final
    breakpoint (None: the first request of a cache chain).
    """
    prefix = prefix_ttl or ttl
    if TTL_SECONDS[prefix] < TTL_SECONDS[ttl]:
        prefix = ttl  # a shorter TTL may not precede a longer one
    wanted: list[Breakpoint] = []
    last = message_count - 1
    if last >= 0:
        wanted.append(Breakpoint("message", last, ttl))
    first_of_chain = previous_last_index is None
    if previous_last_index is not None and 0 <= previous_last_index < last:
        wanted.append(Breakpoint("message", previous_last_index, ttl))
    if stable_system_index is not None and stable_system_index >= 0:
        wanted.append(Breakpoint("system", stable_system_index, prefix))
        if first_of_chain:
            wanted += [Breakpoint("system", i, prefix) for i in shared_system_indexes
                       if 0 <= i < stable_system_index]
    if has_tools:
        wanted.append(Breakpoint("tools", -1, prefix))
    chosen = wanted[:MAX_BREAKPOINTS]
    order = {"tools": 0, "system": 1, "message": 2}
    return sorted(chosen, key=lambda p: (order[p.target], p.index))
