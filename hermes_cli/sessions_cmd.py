"""`hermes sessions ...`: list, show, export, delete, usage."""

from __future__ import annotations

import json
import sys

import typer

from hermes_cli.config import load_settings
from hermes_cli.setup import open_store
from hermes_cli.terminal_text import for_terminal


def _store():
    """The store for reading: opened normally, or read-only when HERMES_HOME cannot be
    written (listing and showing sessions must work on a read-only mount)."""
    from memory.errors import StoreError
    from memory.store import SessionStore

    settings = load_settings()
    try:
        return open_store(settings)
    except StoreError as exc:
        path = settings.home / "state.db"
        if "cannot write" not in exc.message or not path.is_file():
            raise
        return SessionStore(path, read_only=True)


def _console():
    from rich.console import Console

    return Console(highlight=False)


def list_sessions(limit: int) -> None:
    """A table of recent sessions."""
    from rich.table import Table

    rows = _store().list_sessions(limit=limit)
    if not rows:
        typer.echo("No sessions yet. Start one with `hermes` or `hermes -q \"...\"`.")
        return
    if not sys.stdout.isatty():
        for row in rows:
            cost = row.get("total_cost_usd")
            fields = [row["id"], str(row.get("updated") or "")[:16].replace("T", " "),
                      str(row.get("model")), str(row.get("message_count", 0)),
                      "unknown" if cost is None else f"${cost:.4f}",
                      str(row.get("title") or row.get("preview") or "")]
            sys.stdout.write("\t".join(fields) + "\n")
        return
    table = Table(box=None)
    table.add_column("id", no_wrap=True)
    table.add_column("updated", no_wrap=True)
    table.add_column("model", no_wrap=True)
    table.add_column("msgs", justify="right")
    table.add_column("cost", justify="right")
    table.add_column("title / first message")
    for row in rows:
        cost = row.get("total_cost_usd")
        table.add_row(
            row["id"], str(row.get("updated") or "")[:16].replace("T", " "), str(row.get("model")),
            str(row.get("message_count", 0)), "unknown" if cost is None else f"${cost:.4f}",
            str(row.get("title") or row.get("preview") or ""),
        )
    _console().print(table)


def show(session_id: str) -> None:
    """Print a session's clean messages (what was typed and answered); on a terminal,
    control sequences from stored text are removed; stored text is never read as markup."""
    from rich.markup import escape

    store = _store()
    sid = store.resolve_session_id(session_id)
    session = store.get_session(sid)
    console = _console()

    def safe(text: object) -> str:
        return escape(for_terminal(str(text or ""), sys.stdout))

    console.print(f"[bold]{sid}[/bold]  {safe(session.get('model'))} ({safe(session.get('provider'))})  "
                  f"{safe(session.get('title'))}")
    for row in store.messages(sid):
        role = row["role"]
        if role == "tool":
            content = (row.get("content") or "").strip()
            first = content.splitlines()[0] if content else ""
            console.print(f"  [dim]tool {safe(row.get('tool_name'))}: {safe(first[:100])}[/dim]")
            continue
        for call in row.get("tool_calls") or []:
            console.print(f"  [dim]-> {safe(call['name'])} {safe(call['arguments'][:80])}[/dim]")
        if row.get("content"):
            label = {"user": "[bold cyan]you[/]", "assistant": "[bold green]hermes[/]"}[role]
            marker = " [dim](summary)[/dim]" if row.get("kind") == "summary" else ""
            console.print(f"{label}{marker}: {safe(row['content'])}")


def export(session_id: str, fmt: str) -> None:
    """Write the session as JSON or Markdown to stdout."""
    from agent.errors import ConfigError

    if fmt not in ("json", "md"):
        raise ConfigError(f"unknown export format '{fmt}'", "use --format json or --format md")
    store = _store()
    data = store.export_session(store.resolve_session_id(session_id))
    if fmt == "json":
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")
        # (JSON escapes every control character: safe on a terminal as it is)
        return
    session = data["session"]
    lines = [f"# {session.get('title') or session['id']}", "",
             f"- session: `{session['id']}`", f"- model: {session.get('model')} ({session.get('provider')})",
             f"- created: {session.get('created')}", ""]
    for row in data["messages"]:
        if row["role"] == "tool":
            lines += [f"**tool `{row.get('tool_name')}` result:**", "", "```", row.get("content") or "", "```", ""]
            continue
        heading = "## User" if row["role"] == "user" else "## Assistant"
        lines += [heading, "", row.get("content") or ""]
        for call in row.get("tool_calls") or []:
            lines += ["", f"- tool call `{call['name']}` `{call['arguments']}`"]
        lines.append("")
    sys.stdout.write(for_terminal("\n".join(lines) + "\n", sys.stdout))


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
    from agent.usage_report import build_report
    from hermes_cli.render_usage import render_report

    settings = load_settings()
    store = _store()
    sid = store.resolve_session_id(session_id)
    report = build_report(store, sid, prices=settings.get("prices", {}, kind=dict),
                          context_windows=settings.get("context_windows", {}, kind=dict))
    if json_out:
        sys.stdout.write(json.dumps(report.as_dict(), indent=2) + "\n")
        return
    render_report(_console(), report)
