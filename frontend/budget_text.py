"""How a session's budget reads on any front end (toolbar, /usage, chat replies)."""

from __future__ import annotations

from typing import Any


def budget_text(status: dict[str, Any], short: bool = False) -> str:
    """"spent $0.12 of $5.00 ($4.88 left); turn 12,000 of 200,000 tokens" ("" = no limits).

    `short`: the toolbar's compact form."""
    parts = []
    usd = status.get("session_usd")
    if usd is not None:
        spent = f"${status['spent_usd']:.2f}/${usd:.2f}" if short else (
            f"spent ${status['spent_usd']:.4f} of ${usd:.2f} "
            f"(${status['remaining_usd']:.4f} left)")
        if not status.get("usd_enforceable", True):
            spent += " (not enforceable: price unknown)" if not short else "?"
        parts.append(spent)
    tokens = status.get("turn_tokens")
    if tokens is not None:
        used = status.get("turn_tokens_used", 0)
        parts.append(f"turn {used:,}/{tokens:,} tok" if short
                     else f"this turn {used:,} of {tokens:,} tokens")
    return ("; " if not short else " ").join(parts)
