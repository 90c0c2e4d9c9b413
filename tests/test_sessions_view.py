"""Sessions as shown on a terminal: no markup from stored text, partial costs marked,
one line per row at 80 columns (string console)."""

from __future__ import annotations

import io
from datetime import datetime

from rich.console import Console

from hermes_cli.commands.sessions_view import (
    cost_cell,
    cost_text,
    plain_row,
    print_session,
    print_sessions,
    when,
)

NOW = datetime(2026, 11, 30, 22, 0)


def _console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, force_terminal=True, width=80, color_system=None), out


def _row(**extra) -> dict:
    row = {"id": "20261130-215900-a1b2c3", "updated": "2026-11-30T21:59:12",
           "model": "claude-sonnet-4-5-20250929", "message_count": 28,
           "total_cost_usd": 0.0126, "api_calls": 28, "unpriced_calls": 0,
           "title": None, "preview": "why does x[/b] fail? and [bracketed] words " * 4}
    row.update(extra)
    return row


def test_stored_text_is_never_markup():
    console, out = _console()
    print_sessions(console.print, [_row()], current="other")
    session = {"id": "s1", "model": "m", "provider": "anthropic", "title": "[bold]t[/]"}
    messages = [{"role": "user", "content": "why does x[/b] fail? [bracketed]"},
                {"role": "assistant", "content": "[red]because[/red]", "tool_calls": [
                    {"name": "terminal", "arguments": '{"command": "echo [/i]"}'}]},
                {"role": "tool", "tool_name": "terminal", "content": "[/i]\n"}]
    print_session(console, session, messages)
    text = out.getvalue()
    assert "why does x[/b] fail?" in text
    assert "you: why does x[/b] fail? [bracketed]" in text
    assert "hermes: [red]because[/red]" in text and "[bold]t[/]" in text
    assert "echo [/i]" in text and "tool terminal: [/i]" in text


def test_partial_costs_are_marked():
    assert cost_cell(_row()) == "$0.0126"
    assert cost_cell(_row(unpriced_calls=26)) == "≥$0.0126"
    assert cost_text(_row(unpriced_calls=26)) == "≥$0.0126 (2/28 priced)"
    assert cost_cell(_row(total_cost_usd=None)) == "unknown"
    assert cost_cell(_row(total_cost_usd=None, api_calls=0)) == "-"
    assert "\t≥$0.0126 (2/28 priced)\t" in plain_row(_row(unpriced_calls=26))
    console, out = _console()
    print_sessions(console.print, [_row(unpriced_calls=26), _row(id="x")])
    assert "partial sum" in out.getvalue()


def test_each_session_fits_one_line_at_80_columns():
    console, out = _console()
    rows = [_row(unpriced_calls=26), _row(id="20261129-101010-ffffff", updated="2026-11-29T10:10"),
            _row(id="20251129-101010-eeeeee", updated="2025-11-29T10:10", model="gpt-5.2")]
    print_sessions(console.print, rows, current=rows[0]["id"])
    lines = out.getvalue().splitlines()
    assert len(lines) == 1 + 3 + 1  # header, three rows, the partial-sum note
    assert all(len(line.rstrip()) <= 80 for line in lines)
    assert "…" in lines[1] and "why does x" in lines[1]  # the title is cut, not wrapped
    for row, line in zip(rows, lines[1:4], strict=True):
        assert row["id"] in line and cost_cell(row) in line


def test_dates_are_compact():
    assert when("2026-11-30T21:59:12", NOW) == "21:59"
    assert when("2026-11-02T08:00:00", NOW) == "Nov 02"
    assert when("2025-01-02T08:00:00", NOW) == "Jan 2025"
    assert when("garbage", NOW) == "garbage"


def test_a_cut_tool_result_says_so():
    console, out = _console()
    session = {"id": "s1", "model": "m", "provider": "anthropic", "title": "t"}
    messages = [{"role": "tool", "tool_name": "read_file", "content": "x" * 150},
                {"role": "tool", "tool_name": "terminal", "content": "first\nsecond"},
                {"role": "tool", "tool_name": "todo", "content": "whole"}]
    print_session(console, session, messages)
    text = out.getvalue()
    joined = "".join(text.split())  # the console wraps at 80 columns
    assert "x" * 99 + "…" in joined and "x" * 100 not in joined
    assert "tool terminal: first …" in text and "tool todo: whole\n" in text


def test_markdown_export_labels_the_compression_summary(tmp_path) -> None:
    """The summary a compaction leaves is stored as a user message of kind "summary": the
    Markdown export calls it what it is, not `## User`."""
    from hermes_cli.commands.sessions import export_text
    from memory import open_store

    store = open_store(tmp_path, None)
    store.create_session("s1", model="m", provider="anthropic", system_prompt="sys")
    store.append_message("s1", role="user", content="[summary of turns 1-4] the parser was fixed",
                         kind="summary")
    store.append_message("s1", role="user", content="and now the tests")
    md = export_text(store, "s1", "md")
    assert "## Summary of the earlier conversation\n\n[summary of turns 1-4]" in md
    assert md.count("## User") == 1
