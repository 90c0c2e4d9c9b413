"""memory: add, replace or remove entries of the persistent notes (MEMORY.md / USER.md).

The notes object comes from `ctx.services.notes` (a `memory.notes.Notes`). Writes hit
disk at once but the system prompt keeps the snapshot taken at session start (prompt
caching, docs/CACHING.md section 2, invariant 4), so they show up in the prompt of the next session.
"""

from __future__ import annotations

from typing import Any

from agent.errors import ToolError
from agent.tools._common import opt_str
from agent.tools.registry import Tool, ToolContext, require
from memory.errors import NotesError

ACTIONS = ("add", "replace", "remove")
TARGETS = ("memory", "user")


def memory(args: dict[str, Any], ctx: ToolContext) -> str:
    """Apply one notes operation and return the notes' confirmation message."""
    action, target = require(args, "action"), require(args, "target")
    if action not in ACTIONS:
        raise ToolError(f"action must be one of {', '.join(ACTIONS)}, not {action!r}")
    if target not in TARGETS:
        raise ToolError(f"target must be 'memory' (your notes) or 'user' (about the user), not {target!r}")
    notes = ctx.services.notes
    if notes is None:
        raise ToolError("persistent memory is not available in this session")
    content, old_text = opt_str(args, "content"), opt_str(args, "old_text")
    if action in ("add", "replace") and content is None:
        raise ToolError(f"action '{action}' needs 'content'")
    if action in ("replace", "remove") and old_text is None:
        raise ToolError(f"action '{action}' needs 'old_text' (a unique part of the entry to change)")
    try:
        if action == "add":  # (`or ""`: the checks above leave no None, for the type checker)
            message = notes.add(target, content or "")
        elif action == "replace":
            message = notes.replace(target, old_text or "", content or "")
        else:
            message = notes.remove(target, old_text or "")
    except NotesError as exc:
        raise ToolError(exc.message) from exc
    return f"{message} Written to disk now; it appears in the system prompt from the next session."


TOOL = Tool(
    name="memory",
    toolset="memory",
    description=(
        "Memory across sessions: target 'user' for who the user is and their preferences, "
        "'memory' for durable facts (environments, projects, lessons learned). Save stable "
        "facts, not task progress. Writes are saved at once and reach the system prompt in "
        "the next session."
    ),
    parameters={
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": list(ACTIONS)},
            "target": {"type": "string", "enum": list(TARGETS)},
            "content": {"type": "string", "description": "The entry (add, replace)."},
            "old_text": {"type": "string", "description": "A unique part of the entry (replace, remove)."},
        },
        "required": ["action", "target"],
    },
    run=memory,
)
