"""patch: replace an exact, unique piece of text in a file."""

from __future__ import annotations

import difflib
import errno
from pathlib import Path
from typing import Any

from agent.checkpoints import checkpointed
from agent.errors import ToolError
from agent.prompts.authored_context import noting
from agent.sandbox.file_policy import guard_write
from agent.tools._common import display, looks_binary, opt_bool, resolve
from agent.tools.file_diff import note_change
from agent.tools.file_open import read_bytes, write_bytes
from agent.tools.registry import Tool, ToolContext, require
from safefs import NotRegular

MAX_LISTED = 20


def patch(args: dict[str, Any], ctx: ToolContext) -> str:
    """Replace `old_string` by `new_string` in `path`; the match must be unique unless replace_all."""
    mode = args.get("mode") or "replace"
    if mode != "replace":
        raise ToolError("only mode='replace' is supported: pass path, old_string and new_string")
    path = resolve(ctx, require(args, "path"))
    old = require(args, "old_string")
    new = require(args, "new_string")
    replace_all = opt_bool(args, "replace_all")
    if old == "":
        raise ToolError("old_string is empty; to create or rewrite a whole file use write_file")
    if old == new:
        raise ToolError("old_string and new_string are identical; nothing to change")
    guard_write(ctx, path)
    text = _read_text(ctx, path)
    count = text.count(old)
    if count == 0 and "\r\n" in text and "\r\n" not in old:
        old, new = old.replace("\n", "\r\n"), new.replace("\n", "\r\n")  # CRLF file, LF args
        count = text.count(old)
    name = display(ctx, path)
    if count == 0:
        raise ToolError(f"old_string was not found in {name}. {_hint(text, old)}")
    starts = _line_numbers(text, old)
    if count > 1 and not replace_all:
        raise ToolError(
            f"old_string occurs {count} times in {name} (lines {_listing(starts)}). Include more "
            "surrounding lines to make it unique, or set replace_all=true to change every one."
        )
    updated = text.replace(old, new)
    with checkpointed(ctx, path), noting(ctx.home, path, ctx.session_id):  # /undo; agent-written context
        write_bytes(ctx, path, updated.encode("utf-8"))
    note_change(ctx, name, text, updated)
    if count == 1:
        return f"Patched {name}: 1 replacement at line {starts[0]}."
    return f"Patched {name}: {count} replacements at lines {_listing(starts)}."


def _read_text(ctx: ToolContext, path: Path) -> str:
    try:
        data = read_bytes(ctx, path)
    except (OSError, NotRegular) as exc:
        what = "is a directory" if exc.errno == errno.EISDIR else (
            "is not a regular file" if isinstance(exc, NotRegular) else "does not exist")
        raise ToolError(f"{display(ctx, path)} {what}; patch edits existing files (use write_file "
                        "to create one)") from None
    if looks_binary(data):
        raise ToolError(f"{display(ctx, path)} is a binary file; patch edits text files only")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolError(f"{display(ctx, path)} is not valid UTF-8 text; patch cannot edit it") from exc


def _line_numbers(text: str, needle: str) -> list[int]:
    """1-based line numbers where each (non-overlapping) occurrence of `needle` starts."""
    numbers, pos, line, scanned = [], text.find(needle), 1, 0
    while pos != -1:
        line += text.count("\n", scanned, pos)
        scanned = pos
        numbers.append(line)
        pos = text.find(needle, pos + len(needle))
    return numbers


def _listing(numbers: list[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:MAX_LISTED])
    return shown + (f" and {len(numbers) - MAX_LISTED} more" if len(numbers) > MAX_LISTED else "")


def _hint(text: str, old: str) -> str:
    """Why an exact match may have failed: whitespace differences, or the closest line."""
    lines = [line.strip() for line in text.splitlines()]
    wanted = [line.strip() for line in old.strip("\r\n").splitlines()]
    if wanted:
        for i in range(len(lines) - len(wanted) + 1):
            if lines[i] == wanted[0] and lines[i : i + len(wanted)] == wanted:
                return (
                    f"It matches lines {i + 1}-{i + len(wanted)} if whitespace/indentation is "
                    "ignored; copy the exact text (read_file shows it after the '|')."
                )
    first = next((line for line in wanted if line), "")
    close = difflib.get_close_matches(first, lines, n=1, cutoff=0.5) if first else []
    if close:
        number = lines.index(close[0]) + 1
        return f"The closest line is {number}: {close[0]!r}. Re-read the file and copy the exact text."
    return "Re-read the file with read_file and copy the exact current text."


TOOL = Tool(
    name="patch",
    toolset="file",
    writes=("path",),
    description=(
        "Edit a file: replace old_string with new_string (empty deletes). old_string must "
        "match exactly, whitespace and indentation included, and be unique - include "
        "surrounding lines - unless replace_all."
    ),
    parameters={
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "old_string": {"type": "string"},
            "new_string": {"type": "string"},
            "replace_all": {"type": "boolean", "description": "Replace every match."},
        },
        "required": ["path", "old_string", "new_string"],
    },
    run=patch,
)
