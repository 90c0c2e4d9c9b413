"""Sub-agents that start together read one warm prefix instead of each writing it.

A sub-agent sends its parent's tools and stable system blocks byte for byte
(agent/subagent.py), so its first request reads what the parent's last request wrote -
while that entry lives. When it no longer does (a long tool ran between the parent's
answer and the delegate calls, or the parent paused past the lifetime), children that
start together would each write the same prefix: a cache entry can be read only once
the response that wrote it has begun (docs/CACHING.md section 1), and they all send at
once. So the first child to start warms it: one keep-warm of the parent's last request
(`agent.modelcall.keepwarm`: `max_tokens: 0` on Anthropic, a `prewarm` on GPT-5.6+),
billed on the parent like any keep-warm; the others wait for it and every child then
reads the prefix. The write is not lost on the parent either: its next request reads
the history the warm-up wrote, which it would otherwise have written again itself.
"""

from __future__ import annotations

import threading

from agent.cache.idle_policy import MARGIN
from agent.cancel import CancelToken
from agent.modelcall.calls import ModelCaller
from agent.modelcall.keepwarm import KeepWarmResult, keep_warm


class ChildWarm:
    """One per parent agent: its children's first requests find the prefix warm."""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def ensure(self, caller: ModelCaller, cancel: CancelToken | None) -> KeepWarmResult | None:
        """Warm the parent's prefix if its entry may have expired (None: it is live, or
        there is no earlier request to warm). Children starting together wait here for
        the first one's warm-up, then find it live."""
        with self._lock:
            if not expired(caller):
                return None
            return keep_warm(caller, cancel or CancelToken())


def expired(caller: ModelCaller) -> bool:
    """Whether the entry the caller's last request wrote may be gone by the time a child's
    request arrives (within MARGIN of its lifetime)."""
    if caller.last_sent is None:
        return False
    _request, sent_at = caller.last_sent
    lifetime = caller.cache_model().lifetime(caller.ttl)
    return caller.clock() - sent_at >= lifetime - MARGIN
