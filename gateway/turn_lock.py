"""The gateway's per-turn hold on a stored session (`store.session_lock`).

A turn on a session that already exists takes the session's store-level lock, so a
CLI or another gateway worker on the same database cannot drive it at the same time.
When the history in the store moved while this gateway was not holding it (another
process added messages), the cached agent is evicted so that the turn resumes the
session afresh from the store instead of writing over a stale copy.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

TURN_LOCK_WAIT_S = 30.0


def _moved(store: Any, agent: Any) -> bool:
    return store.message_count(agent.session_id) != len(agent.conversation.messages)


@contextmanager
def gateway_turn(store: Any, cache: Any, key: str, session_id: str | None, *,
                 wait: float | None = TURN_LOCK_WAIT_S) -> Iterator[None]:
    """Hold `session_id` for one turn (nothing to hold for a new session)."""
    if session_id is None:
        yield
        return
    with store.session_lock(session_id, wait=wait, purpose="gateway turn"):
        agent = cache.peek(key)
        if agent is not None and agent.session_id == session_id and _moved(store, agent):
            cache.evict(key)
        yield
