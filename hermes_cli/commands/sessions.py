"""`hermes sessions ...`: list, show, export, delete, usage."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

import typer

from frontend.config.settings import load_settings
from frontend.setup import open_store
from hermes_cli.render.terminal_text import for_terminal

if TYPE_CHECKING:  # types only: the store and rich load when a command runs
    from rich.console import Console

    from memory.store import SessionStore

# Function-level imports below: the `sessions` subcommands load the store and rich only
# when one runs (start-up speed of every other command).

def _store() -> SessionStore:
    """The store for reading: opened normally, or read-only when HERMES_HOME cannot be
    written (listing and showing sessions must work on a read-only mount)."""
    from memory.errors import StoreError

    settings = load_settings()
    try:
        return open_store(settings)
    except StoreError as exc:
        path = settings.home / "state.db"
        if "cannot write" not in exc.message or not path.is_file():
            raise
        return open_store(settings, read_only=True)


def _console() -> Console:
    from rich.console import Console  # start-up speed: rich loads only for these commands

    return Console(highlight=False)


def list_sessions(limit: int) -> None:
    """A table of recent sessions."""
    from hermes_cli.commands.sessions_view import PLAIN_HEADER, plain_row, print_sessions

    rows = _store().list_sessions(limit=limit)
    if not rows:
        typer.echo("No sessions yet. Start one with `hermes` or `hermes -q \"...\"`.")
        return
    if not sys.stdout.isatty():
        sys.stdout.write(PLAIN_HEADER + "\n" + "".join(plain_row(row) + "\n" for row in rows))
        return
    print_sessions(_console().print, rows)


def show(session_id: str) -> None:
    """Print a session's clean messages (what was typed and answered); on a terminal,
    control sequences from stored text are removed; stored text is never read as markup."""
    from hermes_cli.commands.sessions_view import print_session

    store = _store()
    sid = store.resolve_session_id(session_id)
    row = store.get_session(sid)
    assert row is not None  # resolve_session_id found it
    print_session(_console(), row, store.messages(sid),
                  clean=lambda text: for_terminal(text, sys.stdout))


def export(session_id: str, fmt: str) -> None:
    """Write the session as JSON or Markdown to stdout."""
    check_format(fmt)  # before the id: a typo in the format is named first
    store = _store()
    text = export_text(store, store.resolve_session_id(session_id), fmt)
    # JSON escapes every control character; Markdown is cleaned on a terminal
    sys.stdout.write(text if fmt == "json" else for_terminal(text, sys.stdout))


def check_format(fmt: str) -> None:
    """json or md, else a clear error."""
    from agent.errors import ConfigError

    if fmt not in ("json", "md"):
        raise ConfigError(f"unknown export format '{fmt}'", "use --format json or --format md")


def export_text(store: SessionStore, session_id: str, fmt: str) -> str:
    """The session (its stored messages) as JSON or Markdown text (also /export)."""
    check_format(fmt)
    data = store.export_session(session_id)
    if fmt == "json":
        return json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n"
    session = data["session"]
    lines = [f"# {session.get('title') or session['id']}", "",
             f"- session: `{session['id']}`", f"- model: {session.get('model')} ({session.get('provider')})",
             f"- created: {session.get('created')}", ""]
    for row in data["messages"]:
        if row["role"] == "tool":
            lines += [f"**tool `{row.get('tool_name')}` result:**", "", "```", row.get("content") or "", "```", ""]
            continue
        heading = ("## Summary of the earlier conversation" if row.get("kind") == "summary"
                   else "## User" if row["role"] == "user" else "## Assistant")
        lines += [heading, "", row.get("content") or ""]
        for call in row.get("tool_calls") or []:
            lines += ["", f"- tool call `{call['name']}` `{call['arguments']}`"]
        lines.append("")
    return "\n".join(lines) + "\n"


def delete(session_id: str, yes: bool) -> None:
    """Delete a session after confirmation."""
    store = _store()
    sid = store.resolve_session_id(session_id)
    children = store.children(sid)
    kept = ""
    if children:
        kept = (f" {len(children)} session(s) continued from it after compression "
                f"({', '.join(children)}) are kept, with their own messages and summary.")
    if not yes:
        try:
            sure = typer.confirm(f"Delete session {sid} and all its messages?{kept}")
        except typer.Abort:  # no answer (stdin closed or not a terminal)
            typer.echo(f"Kept {sid}: no answer to the question. Pass --yes to delete without "
                       "asking.", err=True)
            raise typer.Exit(1) from None
        if not sure:
            typer.echo(f"Kept {sid} (nothing deleted).")
            return
    store.delete_session(sid)
    typer.echo(f"Deleted {sid}.{kept}")


def usage(session_id: str, json_out: bool) -> None:
    """The cache/usage report of a session."""
    from frontend.usage_report import build_report
    from hermes_cli.render.usage import render_report

    settings = load_settings()
    store = _store()
    sid = store.resolve_session_id(session_id)
    report = build_report(store, sid, prices=settings.get("prices", {}, kind=dict),
                          context_windows=settings.get("context_windows", {}, kind=dict))
    if json_out:
        sys.stdout.write(json.dumps(report.as_dict(), indent=2) + "\n")
        return
    render_report(_console(), report)
