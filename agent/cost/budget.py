"""Budgets: a per-turn token budget and a per-session spend limit in USD.

The loop asks `Budget.check(estimate)` before every model call. When what is spent plus
the next call's estimated cost would cross a limit, no further tool iterations run: that
call is the grace call (the same one as at `max_iterations`: same tools, an instruction
message appended, so the cached prefix is read), and the turn stops with the limit as
its stop reason. A session limit already spent before a turn refuses the turn.

What counts: every call billed for the session - its own calls, compression's summary
calls, keep-warm reads and sub-agents (which share their parent's Budget by reference),
cache reads and writes at their price, thinking as output. Spend sums over the session's
compression lineage (`spent` is loaded from the store on start/resume). Costs use the
same prices as /usage; where a price is unknown, token limits still work and the USD
limit says once that it cannot be enforced.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from agent.usage import Usage, usd

TURN_TOKENS = "turn_tokens"
SESSION_USD = "session_usd"
BUDGET_PROMPT = (
    "[hermes] The {what} set by the user would be exceeded by more tool calls. Do not call "
    "any more tools. Reply to the user now: summarise what you did, what is left, and what "
    "they could do next."
)
WHAT = {TURN_TOKENS: "token budget for this turn", SESSION_USD: "spend limit for this session"}


@dataclass(frozen=True)
class Limits:
    """The user's limits (None = no limit)."""

    turn_tokens: int | None = None
    session_usd: float | None = None

    @property
    def any(self) -> bool:
        return self.turn_tokens is not None or self.session_usd is not None


@dataclass(frozen=True)
class Estimate:
    """The next call's estimated size and cost (cost None: the price is unknown)."""

    tokens: int
    usd: float | None


class Budget:
    """Spend against limits; thread-safe (parallel sub-agents charge it at once)."""

    def __init__(self, limits: Limits, spent_usd: float = 0.0, unpriced: bool = False) -> None:
        self.limits = limits
        self.spent_usd = spent_usd
        self.unpriced = unpriced  # a call of this session had no known price
        self.turn_tokens = 0
        self._lock = threading.Lock()

    def begin_turn(self) -> None:
        """A new user turn: its token budget starts again (sub-agents do not call this)."""
        with self._lock:
            self.turn_tokens = 0

    def charge(self, usage: Usage, cost: float | None, turn: bool = True) -> None:
        """Count one billed call (input of every kind + output, thinking included);
        `turn` False: made between turns (a keep-warm read), so it is spend only."""
        with self._lock:
            if turn:
                self.turn_tokens += usage.prompt_tokens + usage.output
            if cost is None:
                self.unpriced = True
            else:
                self.spent_usd += cost

    def refusal(self) -> str | None:
        """Why a new turn must be refused (its session limit is already spent), or None."""
        limit = self.limits.session_usd
        if limit is not None and self.spent_usd >= limit:
            return (f"the session spend limit is reached: {usd(self.spent_usd)} of "
                    f"{usd(limit)} spent")
        return None

    def check(self, estimate: Estimate) -> str | None:
        """The limit the next call would cross (TURN_TOKENS / SESSION_USD), or None.
        A turn's token budget keeps room for the grace call: the next call is the grace
        call when it and one more of its size would not both fit, so the turn ends at
        or under the limit (unless one call alone is larger than the whole budget)."""
        with self._lock:
            tokens = self.limits.turn_tokens
            if tokens is not None and self.turn_tokens + 2 * estimate.tokens > tokens:
                return TURN_TOKENS
            usd = self.limits.session_usd
            if usd is not None and estimate.usd is not None \
                    and self.spent_usd + estimate.usd > usd:
                return SESSION_USD
        return None

    def status(self) -> dict[str, Any]:
        """Budget, spent and remaining, for /usage, --json and the toolbar."""
        usd = self.limits.session_usd
        tokens = self.limits.turn_tokens
        return {
            "session_usd": usd,
            "spent_usd": round(self.spent_usd, 8),
            "remaining_usd": None if usd is None else round(max(0.0, usd - self.spent_usd), 8),
            "usd_enforceable": not self.unpriced,
            "turn_tokens": tokens,
            "turn_tokens_used": self.turn_tokens,
        }


REFUSAL_HINT = ("raise it with --max-usd or `budget: {session_usd: ...}` in config.yaml, or "
                "start a new session (/new)")
UNENFORCEABLE = ("The session spend limit ({limit}) cannot be enforced for {model}: its "
                 "price is unknown (set `prices:` in config.yaml). Token limits still apply.")
