"""CallState: a session's cache bookkeeping, and the one place that says what of it
survives each session transition.

It holds where each model's last request wrote (breakpoint positions), the fingerprints
and times of the last requests (for miss diagnosis), the provider's diagnostics chain
(the previous response id) and the turn/call numbering of usage rows.

Transitions (used by agent.sessions.session, nowhere else):
- `CallState()` - a new session: nothing carried.
- `resumed(...)` - a stored session continued: numbering, the diagnostics chain and the
  last write position rebuilt from its usage rows and history.
- `for_child()` - compression continues in a new session: numbering, the last request's
  fingerprint and time (so the rewrite is diagnosed against it) and the warnings given
  carry over; write positions do not (the history was rewritten).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from agent.diagnosis import Diagnosis, Fingerprint


@dataclass
class CallState:
    """Mutable per-session cache bookkeeping carried from one call to the next."""

    previous_response_id: str | None = None
    last_index_by_model: dict[str, int] = field(default_factory=dict)
    previous_fingerprint: Fingerprint | None = None
    last_call_time: float | None = None
    # per model: (fingerprint, time, prompt tokens) of its last request - the cache is per
    # model, so a switch back is compared with that model's own last request. A resumed
    # session knows the last one's time and size from its usage row, not its parts: None
    last_by_model: dict[str, tuple[Fingerprint | None, float, int]] = field(
        default_factory=dict)
    last_prompt_tokens: int = 0
    cache_known: bool = True  # the last call's provider reported cache figures
    # tokens the last call read from or wrote to the cache (its prompt when the provider
    # reports no cache data): 0 means nothing of that prompt is cached
    last_cached_tokens: int = 0
    context_estimate: int = 0  # a compacted session's estimated prompt before its first call
    warned_small: bool = False
    used_fallback: bool = False
    turn: int = 0
    call_index: int = 0
    calls_made: int = 0  # this process's calls and their output (the budget's estimate)
    output_tokens: int = 0
    diagnoses: list[Diagnosis] = field(default_factory=list)

    def context_tokens(self) -> int | None:
        """The conversation's size for "context used": the last call's prompt, else the
        estimate a compaction left (not its summary call's size); None when neither."""
        return self.last_prompt_tokens or self.context_estimate or None

    def _seed_last(self, model: str, main: list[dict[str, Any]],
                   refreshed: list[dict[str, Any]]) -> None:
        """`last_by_model[model]` from the model's last main call (and the keep-warm
        reads after it, which refreshed its entry); nothing if a row lacks its time."""
        if not main:
            return
        last = main[-1]
        times = [row_time(r.get("created")) for r in [last, *refreshed]]
        if times[0] is None:
            return
        prompt = sum(int(last.get(k) or 0)
                     for k in ("uncached", "write_5m", "write_1h", "cache_read"))
        when = max(t for t in times if t is not None)
        self.last_by_model[model] = (None, when, prompt)

    def reset_cache_chain(self) -> None:
        """Forget where earlier requests wrote (the prompt or the history changed)."""
        self.last_index_by_model.clear()

    def for_child(self) -> CallState:
        """The state a compression child session starts with (see module docstring)."""
        return CallState(
            previous_fingerprint=self.previous_fingerprint,
            last_call_time=self.last_call_time,
            warned_small=self.warned_small,
            used_fallback=self.used_fallback,
            turn=self.turn,
            call_index=self.call_index,
        )

    @classmethod
    def resumed(cls, rows: list[dict[str, Any]], message_count: int, last_is_assistant: bool,
                model: str, provider: str | None = None) -> CallState:
        """The state of a stored session continued from its usage rows and history.

        Only the session's own model calls carry a fingerprint (not summary calls, not
        sub-agents): the diagnostics chain continues from the last of those made on
        `provider` (a session switched to another provider has none there yet). A history
        that ends in an answer was written up to the message before it.

        The model's last request is known by its usage row: when it was sent (the row's
        `created`, wall clock: the agent's clock in production) and its prompt tokens,
        not its parts (the row keeps a key of its fingerprint). The stored history is
        the prompt that request sent (docs/CACHING.md section 2, invariant 7), so a
        compaction right after the resume reads what it cached, and a first call that
        misses after a pause past the lifetime is diagnosed "expired"."""
        state = cls()
        if last_is_assistant and message_count >= 2:
            state.last_index_by_model[model] = message_count - 2
        if rows:
            main = [r for r in rows if r.get("prompt_fingerprint")
                    and (provider is None or r.get("provider") in (None, provider))]
            state.previous_response_id = main[-1].get("response_id") if main else None
            state._seed_last(model, [r for r in main if r.get("model") == model], [
                r for r in rows if r.get("kind") == "keep_warm" and r.get("model") == model])
            state.turn = max(int(r.get("turn") or 0) for r in rows)
            state.call_index = max(int(r.get("call_index") or 0) for r in rows)
        return state


def row_time(created: object) -> float | None:
    """A usage row's `created` (ISO-8601 UTC) as epoch seconds; None if absent or bad."""
    if not isinstance(created, str):
        return None
    try:
        return datetime.fromisoformat(created).timestamp()
    except ValueError:
        return None
