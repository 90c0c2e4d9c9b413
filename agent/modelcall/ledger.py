"""Where a billed model call is recorded: one function for every kind of call.

A turn's call (agent/modelcall/calls.py), a compaction's summary call, a keep-warm read and a
sub-agent's call (recorded again on its parent's session) all go through
`Ledger.record`: the cost from the model's prices, the budget charged, the call numbered
in its session's call state, one usage row in the store (which /usage, the cost report
and the gateway's /metrics read), and the `UsageEvent` the turn's observers see.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from agent.cost import pricing
from agent.cost.budget import UNENFORCEABLE, Budget
from agent.events import UsageEvent
from agent.usage import CHARGE_KIND, Usage, usd
from memory.store import SessionStore

Spend = Literal["turn", "between", "counted"]  # charged to the turn; between turns; already


class Numbering(Protocol):
    """Where a session numbers its calls (`agent.sessions.call_state.CallState`)."""

    turn: int
    call_index: int


@dataclass(frozen=True)
class Billed:
    """One billed call: what the provider reported and what hermes makes of it."""

    usage: Usage
    model: str
    response_id: str | None = None
    # "keep_warm", "cache_storage" (a charge outside calls: usage.CHARGE_KIND, also any
    # usage of no call); None: a call of the conversation
    kind: str | None = None
    cause: str | None = None  # the miss's cause (agent.diagnosis)
    detail: str | None = None
    missed_tokens: int | None = None
    provider_reason: str | None = None
    fingerprint: str | None = None


@dataclass(frozen=True)
class Ledger:
    """The store, budget and price overrides an agent's billed calls go to."""

    store: SessionStore | None
    budget: Budget | None
    prices: dict[str, Any] | None

    def resume(self, session_id: str, model: str, limit: float | None) -> str | None:
        """Charge the budget with what the session (its compression lineage) already
        spent; the warning when its USD `limit` cannot be enforced (`model` unpriced)."""
        if self.budget is None:
            return None
        if self.store is not None:
            costs = [r.get("cost_usd") for r in self.store.usage_rows(session_id, lineage=True)]
            self.budget.spent_usd = sum(c for c in costs if c is not None)
            self.budget.unpriced = any(c is None for c in costs)
        if limit is not None and pricing.cost(Usage(uncached=1), model, self.prices) is None:
            self.budget.unpriced = True
            return UNENFORCEABLE.format(limit=usd(limit), model=model)
        return None

    def record(self, session_id: str, provider: str, calls: Numbering, billed: Billed, *,
               spend: Spend = "turn", cost: float | None = None,
               numbered: bool = True) -> UsageEvent:
        """Record `billed` on the session `session_id` (see the module docstring).
        `spend`: "turn" charges the budget and the turn's tokens, "between" (a keep-warm
        read) the budget only, "counted" nothing (a sub-agent's call, charged when it was
        made; its `cost` is given). `numbered` False: the row takes call index 0 and the
        session's numbering is left alone (a sub-agent's call on its parent)."""
        usage = billed.usage
        kind = billed.kind or (CHARGE_KIND if usage.calls == 0 else None)
        if spend != "counted":
            cost = pricing.cost(usage, billed.model, self.prices)
            if self.budget is not None:
                self.budget.charge(usage, cost, turn=spend == "turn")
        if numbered:
            calls.call_index += 1
        if self.store is not None:
            optional = {"kind": kind, "miss_cause": billed.cause,
                        "miss_detail": billed.detail, "missed_tokens": billed.missed_tokens,
                        "response_id": billed.response_id,
                        "provider_miss_reason": billed.provider_reason,
                        "prompt_fingerprint": billed.fingerprint,
                        # a cache resource's storage (Gemini), billed with this row
                        "stored_token_hours": usage.stored_token_hours or None,
                        # what else the provider billed (agent/usage.py Meter), priced
                        "meters": json.dumps(usage.meters_list()) if usage.meters else None}
            self.store.add_usage(
                session_id, turn=calls.turn, call_index=calls.call_index if numbered else 0,
                model=billed.model, provider=provider, uncached=usage.uncached,
                write_5m=usage.write_5m, write_1h=usage.write_1h,
                cache_read=usage.cache_read if usage.cache_known else None,
                output=usage.output, cost_usd=cost, cache_known=usage.cache_known,
                **{key: value for key, value in optional.items() if value is not None})
        return UsageEvent(usage, billed.model, cost, billed.cause, billed.detail)
