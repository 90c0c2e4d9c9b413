"""write_file: create or overwrite a text file atomically."""

from __future__ import annotations

import stat
from typing import Any

from agent.checkpoints import checkpointed
from agent.errors import ToolError
from agent.prompts.authored_context import noting
from agent.sandbox.file_policy import guard_write
from agent.tools._common import display, resolve
from agent.tools.file_diff import note_change, read_before
from agent.tools.file_open import kind, write_bytes
from agent.tools.registry import Tool, ToolContext, require


def write_file(args: dict[str, Any], ctx: ToolContext) -> str:
    """Write `content` to `path` (parents created; temp file + rename)."""
    path = resolve(ctx, require(args, "path"))
    content = require(args, "content")
    guard_write(ctx, path)
    found = kind(ctx, path)
    if found is not None and stat.S_ISDIR(found.st_mode):
        raise ToolError(f"{display(ctx, path)} is a directory; give a file path")
    existed = found is not None
    before = read_before(ctx, path)
    data = content.encode("utf-8")
    with checkpointed(ctx, path), noting(ctx.home, path, ctx.session_id):  # /undo; agent-written context
        write_bytes(ctx, path, data)
    note_change(ctx, display(ctx, path), before, content)
    lines = content.count("\n") + (1 if content and not content.endswith("\n") else 0)
    verb = "Overwrote" if existed else "Created"
    return f"{verb} {display(ctx, path)}: {len(data):,} bytes, {lines:,} lines."


TOOL = Tool(
    name="write_file",
    toolset="file",
    writes=("path",),
    description=(
        "Write a whole file (parent directories are created): for new files or complete "
        "rewrites; for small edits use patch."
    ),
    parameters={
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "content": {"type": "string"},
        },
        "required": ["path", "content"],
    },
    run=write_file,
)
