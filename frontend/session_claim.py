"""The CLI's hold on the session it drives (`store.lock_session`, memory/locks.py).

`claim_session(store, session_id)` takes the session's lock for the rest of this
process (a one-shot run: its one turn; the REPL: its whole life) and releases the one
held before, if any (the REPL moving to another session). `--wait-lock` makes a
claim wait for the holder instead of failing with a line naming it.
"""

from __future__ import annotations

import atexit
from typing import Any

from memory.locks import SessionLock

_state: dict[str, Any] = {"wait": 0.0, "held": None, "hooked": False}


def configure(*, wait: float | None) -> None:
    """How long a claim waits for another process (0: not at all, None: forever)."""
    _state["wait"] = wait


def claim_session(store: Any, session_id: str | None, purpose: str = "hermes") -> None:
    """Hold `session_id` (None: nothing to hold yet) until exit or the next claim."""
    held: SessionLock | None = _state["held"]
    if session_id is None or (held is not None and held.session_id == session_id):
        return
    lock = store.lock_session(session_id, purpose=purpose)
    lock.acquire(_state["wait"])
    release_session()
    _state["held"] = lock
    if not _state["hooked"]:
        atexit.register(release_session)
        _state["hooked"] = True


def release_session() -> None:
    """Drop the held session lock, if any."""
    held: SessionLock | None = _state["held"]
    _state["held"] = None
    if held is not None:
        held.release()
