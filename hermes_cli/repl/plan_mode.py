"""Plan mode in the REPL, Claude Code's way: Shift-Tab cycles the mode, and a plan the
model finishes is offered for approval.

After a turn in plan mode whose reply reads as a plan (two or more list items), the REPL
asks "approve and implement / keep planning": yes leaves plan mode (the shared /plan off:
no cache miss) and sends `IMPLEMENT` as the next message; anything else keeps planning.
A reply without a list (an answer to a question asked while planning) asks nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agent.permissions.plan import PLAN
from frontend import commands as shared
from hermes_cli.slash.api import ReplLike

LIST_ITEM = re.compile(r"^\s*(?:\d+[.)]|[-*+])\s+\S", re.MULTILINE)
IMPLEMENT = "The plan is approved: plan mode is off. Implement it now."
QUESTION = "Approve this plan and leave plan mode? [y] approve and implement · [n] keep planning: "


def is_plan(text: str) -> bool:
    """Whether a reply reads as a plan: at least two list items."""
    return len(LIST_ITEM.findall(text)) >= 2


def last_reply(repl: ReplLike) -> str:
    """The text of the session's last assistant message ("" when the turn ended otherwise)."""
    messages = repl.agent.conversation.messages
    last = messages[-1] if messages else None
    return last.content if last is not None and last.role == "assistant" else ""


def offer_approval(repl: ReplLike, ask: Callable[[str], str], send: Callable[[str], None]) -> None:
    """After a turn: in plan mode with a plan on screen, ask; a yes implements it."""
    if repl.agent.session.choices.mode != PLAN or not is_plan(last_reply(repl)):
        return
    try:
        answer = ask(QUESTION).strip().lower()
    except (EOFError, KeyboardInterrupt):
        answer = ""
    if answer not in ("y", "yes", "a", "approve"):
        repl.renderer.print("still planning: say what to change, or /plan off when ready",
                            style="dim")
        return
    repl.renderer.notice(shared.plan(shared.Handle(repl.agent), "off").text)
    repl.refresh_toolbar()
    send(IMPLEMENT)


def cycle(repl: ReplLike) -> str:
    """Shift-Tab: default -> plan -> default; returns the notice to show."""
    reply = shared.plan(shared.Handle(repl.agent), "")
    repl.refresh_toolbar()
    return reply.text
