"""The resume picker: `hermes --resume` with no id, and `/resume` with none in the REPL.

Recent sessions are listed with a number (title, when, model, messages, cost); the user
types a number, or an id or prefix, or nothing to cancel.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from agent.errors import ConfigError

PICK = "?"  # `--resume` given without an id (argv_checks.bare_resume) or `--resume ?`
SHOWN = 15


def choose(rows: list[dict], emit: Callable[..., None], ask: Callable[[str], str],
           current: str | None = None) -> str | None:
    """Show `rows` numbered and read the user's choice: the id picked, an id (or
    prefix) typed instead, or None (Enter, Ctrl-C, Ctrl-D)."""
    from hermes_cli.commands.sessions_view import print_sessions  # lazy: rich tables

    print_sessions(emit, rows, current, numbered=True)
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
        rows = store.list_sessions(limit=SHOWN)
    finally:
        store.close()
    if not rows:
        raise ConfigError("no stored session to resume yet", "start one with `hermes`")
    return choose(rows, make_console().print, input)
