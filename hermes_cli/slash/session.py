"""Slash commands about the session itself: /new /resume /sessions /title /retry /undo."""

from __future__ import annotations

from collections.abc import Callable

from frontend import commands as shared
from frontend.loaded import resumed_line
from hermes_cli.slash.api import ReplLike as Repl
from hermes_cli.slash.api import one_word, short, show

SESSIONS_SHOWN = 10
RECAP_CHARS = 200


def cmd_new(repl: Repl, arg: str) -> None:
    reply = shared.new(shared.Handle(repl.agent), arg)
    repl.reset_approvals()
    show(repl, reply)


NOT_STORED = "this session is not stored (no session store): nothing to list or resume"


def cmd_sessions(repl: Repl, arg: str) -> None:
    store = repl.agent.store
    if store is None:
        repl.renderer.info(NOT_STORED)
        return
    rows = store.list_sessions(limit=SESSIONS_SHOWN)
    if not rows:
        repl.renderer.info("no sessions yet")
        return
    from hermes_cli.commands.sessions_view import print_sessions

    print_sessions(repl.renderer.print, rows, current=repl.agent.session_id)
    repl.renderer.print("resume one with /resume <id> (a unique prefix is enough)", style="dim")


def cmd_resume(repl: Repl, arg: str) -> None:
    from frontend.factory import build_agent  # lazy: it imports the whole agent

    ident = one_word(arg)
    store = repl.agent.store
    if store is None:
        repl.renderer.info(NOT_STORED)
        return
    if not ident:
        others = [row for row in store.list_sessions(limit=2)
                  if row["id"] != repl.agent.session_id]
        if not others:
            repl.renderer.info("no other session to resume yet")
            return
        from hermes_cli.picker import choose, recent  # lazy: rich tables

        rows, hidden = recent(store, repl.agent.session_id)
        ident = choose(rows, repl.renderer.print, input, current=repl.agent.session_id,
                       hidden=hidden) or ""
        if not ident:
            return
    session_id = store.resolve_session_id(ident)
    if session_id == repl.agent.session_id:
        repl.renderer.info(f"already in session {session_id}")
        return
    agent = build_agent(repl.flags, resume=session_id, cont=False, approve=repl.approve)
    repl.replace_agent(agent)
    row = (agent.store.get_session(agent.session_id) if agent.store else None) or {}
    title = f" - {row['title']}" if row.get("title") else ""
    repl.renderer.notice(f"resumed session {agent.session_id} "
                         f"({len(agent.conversation.messages)} messages){title}")
    repl.renderer.print(resumed_line(agent), style="dim")
    for notice in agent.startup_notices:
        repl.renderer.notice(notice.text)
    recap(repl)


def recap(repl: Repl) -> None:
    """The last user message and answer of a resumed session, shortened."""
    shown = [m for m in repl.agent.conversation.messages
             if m.role in ("user", "assistant") and not m.kind and m.content.strip()][-2:]
    for message in shown:
        label = "you" if message.role == "user" else "hermes"
        repl.renderer.print(f"{label}: {short(message.content, RECAP_CHARS)}", style="dim")


def cmd_title(repl: Repl, arg: str) -> None:
    show(repl, shared.title(shared.Handle(repl.agent), arg))


def cmd_retry(repl: Repl, arg: str) -> None:
    """The shared /retry (frontend.commands); the message runs again as a new turn."""
    reply = shared.retry(shared.Handle(repl.agent), arg)
    if reply.text:
        show(repl, reply)
    if reply.data is not None:  # the message with its images (agent.images.WithImages)
        repl.run_turn(reply.data, getattr(reply.data, "images", ()))


def cmd_undo(repl: Repl, arg: str) -> None:
    show(repl, shared.undo(shared.Handle(repl.agent), arg))


HANDLERS: dict[str, Callable[[Repl, str], None]] = {
    "new": cmd_new,
    "resume": cmd_resume,
    "sessions": cmd_sessions,
    "title": cmd_title,
    "retry": cmd_retry,
    "undo": cmd_undo,
}
