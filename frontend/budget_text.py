"""How a session's budget reads on any front end (toolbar, /usage, chat replies)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from agent.events import Done, Event, Notice
from agent.usage import usd


def budget_text(status: dict[str, Any], short: bool = False) -> str:
    """"spent $0.12 of $5.00 ($4.88 left); turn 12,000 of 200,000 tokens" ("" = no limits).

    `short`: the toolbar's compact form."""
    parts = []
    limit = status.get("session_usd")
    if limit is not None:
        spent = f"{usd(status['spent_usd'])}/{usd(limit)}" if short else (
            f"spent {usd(status['spent_usd'])} of {usd(limit)} "
            f"({usd(status['remaining_usd'])} left)")
        if not status.get("usd_enforceable", True):
            spent += " (not enforceable: price unknown)" if not short else "?"
        parts.append(spent)
    tokens = status.get("turn_tokens")
    if tokens is not None:
        used = status.get("turn_tokens_used", 0)
        parts.append(f"turn {used:,}/{tokens:,} tok" if short
                     else f"this turn {used:,} of {tokens:,} tokens")
    return ("; " if not short else " ").join(parts)


def stopped_by(reason: str, status: dict[str, Any]) -> str:
    """The line that says which limit stopped the turn (`reason`: Done's budget_...)."""
    if reason == "budget_turn_tokens":
        return (f"stopped at the turn's token budget ({status['turn_tokens_used']:,} of "
                f"{status['turn_tokens']:,} tokens); the reply above summarises what is left")
    return (f"stopped at the session spend limit ({usd(status['spent_usd'])} of "
            f"{usd(status['session_usd'])}); the reply above summarises what is left")


def with_stop_line(events: Iterable[Event], budget: Any) -> Iterator[Event]:
    """`events`, with a warning Notice before the Done of a turn a budget stopped."""
    for event in events:
        if isinstance(event, Done) and event.reason.startswith("budget_"):
            yield Notice(stopped_by(event.reason, budget.status()), "warning")
        yield event
