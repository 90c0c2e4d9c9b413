"""Talking to the running prompt_toolkit application from other threads."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prompt_toolkit.application import Application


def call_in_app(app: Application[str] | None, callback: Callable[[], object]) -> None:
    """Run `callback` in the running prompt's event loop (from another thread); a prompt
    that has already ended is left alone (the main thread picks the state up)."""
    loop = app.loop if app is not None and app.is_running else None  # (running: it has one)
    if app is None or loop is None:
        return
    with contextlib.suppress(RuntimeError):  # the loop closed in between
        loop.call_soon_threadsafe(if_running, app, callback, context=app.context)


def if_running(app: Application[str], callback: Callable[[], object]) -> None:
    if app.is_running and app.future is not None and not app.future.done():
        callback()


def in_terminal(func: Callable[[], None]) -> None:
    """Run `func` above the prompt (the prompt is redrawn after it)."""
    from prompt_toolkit.application import run_in_terminal

    run_in_terminal(func)
