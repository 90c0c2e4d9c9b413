"""Sessions as the terminal shows them: the list (`/sessions`, `hermes sessions list`) and
one session's messages (`hermes sessions show`).

Every stored string (titles, messages, tool output, model names) goes into a `Text`, so
nothing a user, a model or a tool wrote is ever read as rich markup. A row fits one line
at 80 columns: dates are compact and the title is cut with an ellipsis.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from agent.usage import usd

PARTIAL_MARK = "≥"
PARTIAL_NOTE = "≥$X: a partial sum - some calls have no known price (see sessions usage)"
MODEL_WIDTH = 12


def cost_text(row: dict[str, Any]) -> str:
    """A session's cost: "$0.0126", "≥$0.0126 (2/28 priced)" when some calls are
    unpriced, "unknown" when none is priced, "-" before the first call."""
    cost = row.get("total_cost_usd")
    calls = int(row.get("api_calls") or 0)
    unpriced = int(row.get("unpriced_calls") or 0)
    if cost is None:
        return "-" if not calls else "unknown"
    if unpriced:
        return f"{PARTIAL_MARK}{usd(cost)} ({calls - unpriced}/{calls} priced)"
    return usd(cost)


def cost_cell(row: dict[str, Any]) -> str:
    """The cost in the table's narrow column: "≥$0.0126" for a partial sum."""
    return cost_text(row).split(" (")[0]


def when(stamp: object, now: datetime | None = None) -> str:
    """A stored ISO time, compact: "14:05" today, "Nov 30" this year, else "Nov 2025"."""
    text = str(stamp or "")
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return text[:16].replace("T", " ")
    now = now or (datetime.now(moment.tzinfo) if moment.tzinfo else datetime.now())
    if moment.date() == now.date():
        return moment.strftime("%H:%M")
    if moment.year == now.year:
        return moment.strftime("%b %d")
    return moment.strftime("%b %Y")


def title_of(row: dict[str, Any]) -> str:
    return " ".join(str(row.get("title") or row.get("preview") or "").split())


def sessions_table(rows: list[dict[str, Any]], current: str | None = None,
                   now: datetime | None = None, numbered: bool = False) -> Table:
    """One line per session; `current` marks the session in use with "*", `numbered`
    puts a pick number first (the resume picker)."""
    table = Table(box=None, pad_edge=False)
    if numbered:
        table.add_column("#", justify="right", no_wrap=True)
    if current is not None:
        table.add_column("", no_wrap=True)
    table.add_column("id", no_wrap=True)
    table.add_column("updated", no_wrap=True)
    table.add_column("model", no_wrap=True, max_width=MODEL_WIDTH, overflow="ellipsis")
    table.add_column("msgs", justify="right", no_wrap=True)
    table.add_column("cost", justify="right", no_wrap=True)
    table.add_column("title", overflow="ellipsis", no_wrap=False)  # the one that gives way
    for row in rows:
        cells = [row["id"], when(row.get("updated"), now), str(row.get("model") or ""),
                 str(row.get("message_count", 0)), cost_cell(row), title_of(row)]
        if current is not None:
            cells.insert(0, "*" if row["id"] == current else "")
        if numbered:
            cells.insert(0, str(len(table.rows) + 1))
        table.add_row(*(Text(cell, no_wrap=True, overflow="ellipsis") for cell in cells))
    return table


def print_sessions(emit: Callable[..., None], rows: list[dict[str, Any]], current: str | None = None,
                   numbered: bool = False) -> None:
    """The table, and the note on partial sums when a row shows one, through `emit`
    (a console's or the REPL renderer's print)."""
    emit(sessions_table(rows, current, numbered=numbered))
    if any(cost_cell(row).startswith(PARTIAL_MARK) for row in rows):
        emit(Text(PARTIAL_NOTE, style="dim"))


PLAIN_HEADER = "\t".join(["id", "updated", "model", "messages", "cost", "title"])


def plain_row(row: dict[str, Any]) -> str:
    """A tab-separated line of `hermes sessions list` when stdout is not a terminal."""
    return "\t".join([row["id"], str(row.get("updated") or "")[:16].replace("T", " "),
                      str(row.get("model")), str(row.get("message_count", 0)), cost_text(row),
                      title_of(row)])


def print_session(console: Console, session: dict[str, Any], messages: list[dict[str, Any]],
                  clean: Callable[[str], str] = str) -> None:
    """A session's clean messages; stored text is shown exactly as written (`clean`: how
    stored text is made safe for this output, e.g. control sequences removed)."""
    head = Text(clean(session["id"]), style="bold")
    head.append(clean(f"  {session.get('model')} ({session.get('provider')})  "
                      f"{session.get('title') or ''}"))
    console.print(head)
    for row in messages:
        role = row["role"]
        if role == "tool":
            content = (row.get("content") or "").strip()
            lines = content.splitlines()
            first = _cut(lines[0] if lines else "", 100, more=len(lines) > 1)
            console.print(Text(clean(f"  tool {row.get('tool_name')}: {first}"), style="dim"))
            continue
        for call in row.get("tool_calls") or []:
            console.print(Text(clean(f"  -> {call['name']} {_cut(call['arguments'], 80)}"),
                               style="dim"))
        if row.get("content"):
            line = Text.assemble(("you", "bold cyan") if role == "user" else ("hermes", "bold green"))
            if row.get("kind") == "summary":
                line.append(" (summary)", style="dim")
            line.append(": " + clean(row["content"]))
            console.print(line)


def _cut(text: str, width: int, more: bool = False) -> str:
    """`text` within `width` characters, with "…" when something was left out."""
    if len(text) > width:
        return text[:width - 1] + "…"
    return text + " …" if more else text
