"""The resume picker: `hermes --resume` with no id, and `/resume` with none in the REPL.

Recent sessions are listed with a number (title, when, model, messages, cost); the user
types a number, or an id or prefix, or nothing to cancel.

One-shot runs that got no answer (`hermes -q` whose model call failed: a bad key, an
unreachable server - no billed call) are not listed: there is nothing to continue from,
the failure and the id were printed when it happened, and a row per failed script run
pushed the sessions worth resuming off the list. A line says how many were
left out; `hermes sessions list` and `hermes --resume ID` still reach them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from agent.errors import ConfigError

PICK = "?"  # `--resume` given without an id (argv_checks.bare_resume) or `--resume ?`
SHOWN = 15


def unanswered_oneshot(row: dict) -> bool:
    """A one-shot run whose model never answered (no billed call)."""
    return row.get("source") == "oneshot" and not row.get("api_calls")


def recent(store: Any, current: str | None = None) -> tuple[list[dict], int]:
    """Up to SHOWN sessions worth resuming, newest first, and how many unanswered one-shot
    runs among the recent ones were left out (the current session always stays)."""
    rows = store.list_sessions(limit=SHOWN * 4)
    kept = [r for r in rows if r["id"] == current or not unanswered_oneshot(r)]
    return kept[:SHOWN], len(rows) - len(kept)


def choose(rows: list[dict], emit: Callable[..., None], ask: Callable[[str], str],  # noqa: PLR0913
           current: str | None = None, hidden: int = 0) -> str | None:
    """Show `rows` numbered and read the user's choice: the id picked, an id (or
    prefix) typed instead, or None (Enter, Ctrl-C, Ctrl-D). `hidden`: how many
    unanswered one-shot runs `recent` left out (said in one line)."""
    from hermes_cli.commands.sessions_view import print_sessions  # lazy: rich tables

    print_sessions(emit, rows, current, numbered=True)
    if hidden:
        emit(f"({hidden} one-shot run{'s' if hidden != 1 else ''} that got no answer not "
             "listed: `hermes sessions list` shows them)")
    try:
        answer = ask(f"Resume which session? [1-{len(rows)}, or an id; Enter: none] ").strip()
    except (EOFError, KeyboardInterrupt):
        return None
    if answer.isdigit() and 1 <= int(answer) <= len(rows):
        return str(rows[int(answer) - 1]["id"])
    return answer or None


def pick_at_start() -> str | None:
    """`hermes --resume` with no id: pick among the stored sessions before the REPL starts."""
    if not sys.stdin.isatty():
        raise ConfigError("--resume without an id needs a terminal to pick a session",
                          "pass an id or prefix from `hermes sessions list`, or -c for the latest")
    from frontend.config.settings import load_settings  # lazy: start-up speed, as everywhere here
    from frontend.setup import open_store
    from hermes_cli.render.renderer import make_console

    store = open_store(load_settings(), read_only=True)
    try:
        rows, hidden = recent(store)
    finally:
        store.close()
    if not rows:
        raise ConfigError("no stored session to resume yet" + (
            f" ({hidden} one-shot runs got no answer: `hermes sessions list`)" if hidden else ""),
            "start one with `hermes`")
    return choose(rows, make_console().print, input, hidden=hidden)
