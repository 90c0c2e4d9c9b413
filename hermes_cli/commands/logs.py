"""`hermes logs ID [-f]`: a background run's transcript and answer, from the store; `-f`
follows it until it ends (its process' own output: HERMES_HOME/background/ID.log)."""

from __future__ import annotations

import sys
import time
from typing import Any

import typer

from hermes_cli.commands.sessions import _store
from hermes_cli.render.terminal_text import for_terminal

FOLLOW_POLL = 0.5  # seconds between looks at a followed run
LINE = 400  # characters of a tool result shown

# Function-level imports below: the store's modules load when the command runs.


def _line(message: dict[str, Any]) -> str:
    role, content = message["role"], str(message.get("content") or "")
    if role == "tool":
        first = " ".join(content.split())[:LINE]
        return f"  [{message.get('tool_name') or 'tool'}] {first}"
    calls = message.get("tool_calls") or []
    names = ", ".join(str(c.get("name", "")) for c in calls if isinstance(c, dict))
    text = content.strip() + (f"\n  (calls {names})" if names else "")
    return f"{role}: {text}"


def run_logs(session_id: str, follow: bool) -> int:
    from frontend.autonomy.background import run_state

    store = _store()
    session_id = store.resolve_session_id(session_id)
    shown = 0
    while True:
        state = run_state(store, session_id)  # before the messages: none is missed at the end
        messages = store.messages(session_id)
        for message in messages[shown:]:
            typer.echo(for_terminal(_line(message), sys.stdout))
        shown = len(messages)
        if not follow or state.state != "running":
            break
        time.sleep(FOLLOW_POLL)
    answer = next((str(m.get("content") or "") for m in reversed(messages)
                   if m["role"] == "assistant" and str(m.get("content") or "").strip()), "")
    typer.echo(f"-- {state.state} · {state.cost_text}")
    if answer:
        typer.echo("answer:\n" + for_terminal(answer.strip(), sys.stdout))
    return 0 if state.state != "failed" else 1
