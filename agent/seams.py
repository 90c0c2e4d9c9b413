"""Where the runtime calls the hooks, outside tool dispatch (which calls PreToolUse and
PostToolUse itself, agent/tools/registry.py): the start of a turn (SessionStart once per
session in this process, then UserPromptSubmit), the model's answer (Stop/SubagentStop),
a compaction (PreCompact) and a question to the user (Notification).

Context a hook gives goes into the user message's dynamic suffix, never the system
prompt or the tools: a hook never changes a cached byte.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from typing import TYPE_CHECKING

from agent.events import Event, Notice
from agent.hooks.events import STOP_NOTE, SessionHooks, context_suffix

if TYPE_CHECKING:
    from agent.cancel import CancelToken
    from agent.sessions.session import Session

BLOCKED_HINT = "the message was not sent; change it or the hook (config.yaml `hooks:`)"


def _warn(warnings: tuple[str, ...]) -> Iterator[Event]:
    for text in warnings:
        yield Notice(text, "warning")


def turn_start(hooks: SessionHooks, session_id: str, source: str | None, text: str,
               cancel: CancelToken | None = None) -> Generator[Event, None, tuple[str | None, str]]:
    """SessionStart (when `source` is given: "startup" or "resume"), then
    UserPromptSubmit. Returns (why the message is refused, or None; the context suffix)."""
    suffix = ""
    if source is not None:
        started = hooks.session_start(session_id, source)
        yield from _warn(started.warnings)
        suffix += context_suffix("SessionStart", started.context)
    submitted = hooks.prompt(session_id, text, cancel)
    yield from _warn(submitted.warnings)
    if submitted.blocked:
        return f"a UserPromptSubmit hook blocked this message: {submitted.reason}", ""
    return None, suffix + context_suffix("UserPromptSubmit", submitted.context)


def on_stop(hooks: SessionHooks, session_id: Callable[[], str], cancel: CancelToken | None = None
            ) -> Callable[[str, bool], Generator[Event, None, str | None]]:
    """The loop's `on_stop`: the instruction a Stop hook continues the turn with (heeded
    once; the second time `stop_hook_active` is true and a block is only a warning)."""

    def stop(answer: str, continued: bool) -> Generator[Event, None, str | None]:
        said = hooks.stop(session_id(), continued, answer, cancel)
        yield from _warn(said.warnings)
        if not said.blocked or (cancel is not None and cancel.cancelled):
            return None
        if continued:
            yield Notice("a Stop hook asked to continue again; a turn continues at most once "
                         f"(its reason: {said.reason})", "warning")
            return None
        return STOP_NOTE.format(reason=said.reason)

    return stop


def pre_compact(hooks: SessionHooks) -> Callable[[Session, str, str | None], Generator[Event]]:
    """The compactor's `pre_compact(session, reason, focus)`: PreCompact (cannot block)."""

    def fire(session: Session, reason: str, focus: str | None) -> Generator[Event]:
        trigger = "manual" if reason == "manual" else "auto"
        yield from _warn(hooks.pre_compact(session.id, trigger, focus).warnings)

    return fire


def notifying(hooks: SessionHooks, session_id: Callable[[], str], pending: Callable[[], list[Event]],
              approve: Callable[[str, str], bool]) -> Callable[[str, str], bool]:
    """`approve` that first fires Notification (the user is about to be asked)."""

    def ask(what: str, reason: str) -> bool:
        said = hooks.notification(session_id(), f"hermes needs your permission: {what} ({reason})")
        pending().extend(Notice(w, "warning") for w in said.warnings)
        return approve(what, reason)

    return ask
