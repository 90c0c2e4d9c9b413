"""The REPL's cache keeper: keeps the session's prompt cache warm while the user sits at
the prompt (agent/cache/keeper.py decides; a background thread sends the reads).

The prompt is never delayed: keep-warm reads run in the keeper's thread while
prompt_toolkit waits for input. A submitted message first ends a keep-warm in flight
(agent.cache.keeper.CacheKeeper.turn_started), so the turn's request always goes after it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent.agent import AIAgent
    from agent.cache.keeper import CacheKeeper

KEY = "repl"  # one session per REPL; compression keeps the same caller


class ReplKeeper:
    """Starts the keeper with the first turn; `close()` at exit."""

    def __init__(self) -> None:
        self._keeper: CacheKeeper | None = None  # once the first turn starts

    def begin(self, agent: AIAgent) -> None:
        if self._keeper is None:
            # imported on the first turn, not at start-up: the REPL draws its prompt first
            from agent.cache.keeper import CacheKeeper

            self._keeper = CacheKeeper(clock=agent.caller.clock).start()
        self._keeper.turn_started(KEY, agent.caller)

    def end(self) -> None:
        if self._keeper is not None:
            self._keeper.turn_ended(KEY)

    def close(self) -> None:
        if self._keeper is not None:
            self._keeper.stop()
            self._keeper = None
