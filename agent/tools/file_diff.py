"""The diff of a file change, left for the loop to put on the ToolFinished event.

write_file and patch call `note_change` after writing; the loop takes it from the
session's tool state (`ToolState.take_diff`) when the call returns (writes never run in
parallel). The
model never sees the diff: its tool result stays the short confirmation line.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from agent.errors import ToolError
from agent.tools.file_open import kind, read_existing
from agent.tools.registry import ToolContext

MAX_DIFF_INPUT = 1_000_000  # characters per side; a larger file gets no diff
MAX_DIFF_LINES = 2_000


def read_before(ctx: ToolContext, path: Path) -> str | None:
    """The text a write is about to replace: "" for a new file, None when unknown
    (binary, not UTF-8, unreadable or too large to diff). Read beneath its root."""
    try:
        found = kind(ctx, path)
        if found is None:
            return ""
        if found.st_size > MAX_DIFF_INPUT:
            return None
        data = read_existing(ctx, path)
        return "" if data is None else data.decode("utf-8")
    except (OSError, UnicodeDecodeError, ToolError):
        return None


def note_change(ctx: ToolContext, name: str, before: str | None, after: str) -> None:
    """Leave the unified diff of `name` from `before` to `after` for the loop."""
    if before is None or len(after) > MAX_DIFF_INPUT:
        return
    lines = list(difflib.unified_diff(before.splitlines(keepends=True),
                                      after.splitlines(keepends=True),
                                      fromfile=f"a/{name}", tofile=f"b/{name}", n=2))
    if len(lines) > MAX_DIFF_LINES:
        lines = lines[:MAX_DIFF_LINES] + [f"... {len(lines) - MAX_DIFF_LINES:,} more diff lines\n"]
    ctx.state.file_diff = "".join(line if line.endswith("\n") else line + "\n"
                                       for line in lines)
