"""A session's pause model for an adapter that plans a cache resource by it (Gemini's
explicit caches, through `Services.pauses`, agent/providers/base.py).

The model starts from the session's own stored gaps: the time between one stored turn's
last call and the next turn's first (the usage rows' `created`, when each call was
recorded - a gap is so measured from the end of one turn to the end of the next turn's
first call). A resumed session - a script that runs `hermes -q ... --resume ID` every few
seconds, each run a new process - thus plans with the pauses it has shown, as the REPL's
session does within one process. With no stored gap a gateway or one-shot session starts
from the keeper's one-request prior (a single request is weak evidence of a person
coming back), others from the default.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from agent.cache.idle_policy import ONE_REQUEST_PRIOR, GapModel
from agent.sessions.call_state import row_time
from agent.usage import is_call

PauseFactory = Callable[[str | None, str | None], GapModel]  # (source, session id) -> model


def stored_gaps(rows: Iterable[dict[str, Any]]) -> list[float]:
    """The pauses between a session's stored turns (seconds), from its usage rows."""
    ends: dict[int, tuple[float, float]] = {}  # turn -> (first call's time, last call's)
    for row in rows:
        when, turn = row_time(row.get("created")), int(row.get("turn") or 0)
        if when is None or turn <= 0 or not is_call(row) or row.get("kind"):
            continue  # a keep-warm read or a charge is no turn of the conversation
        first, last = ends.get(turn, (when, when))
        ends[turn] = (min(first, when), max(last, when))
    turns = sorted(ends)
    return [max(0.0, ends[b][0] - ends[a][1]) for a, b in zip(turns, turns[1:], strict=False)]


def session_pauses(store: Any = None) -> PauseFactory:
    """The pause model factory of sessions stored in `store` (memory.store.SessionStore;
    None: no stored gaps)."""

    def pauses(source: str | None, session_id: str | None = None) -> GapModel:
        model = GapModel(first=ONE_REQUEST_PRIOR if source in ("gateway", "oneshot") else None)
        if store is not None and session_id:
            for gap in stored_gaps(store.usage_rows(session_id)):
                model.observe(gap)
        return model

    return pauses
