"""hermes events -> ACP session updates (pure: no I/O, no SDK connection).

Tool calls: `tool_call` when one starts (kind, title, locations, and for a write the
proposed change as a diff), `tool_call_update` when it ends (status, the output or
the change's diff). The todo list becomes a `plan`. A turn's usage becomes the prompt
response's `usage` (cache reads and writes included).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from agent.events import ToolFinished, ToolStarted
from agent.usage import Usage

KINDS = {
    "read_file": "read", "skill_view": "read", "skills_list": "read",
    "write_file": "edit", "patch": "edit", "memory": "edit",
    "search_files": "search", "session_search": "search", "web_search": "search",
    "terminal": "execute", "todo": "think", "web_fetch": "fetch",
}
PATH_TOOLS = ("read_file", "write_file", "patch", "search_files")
STOP = {"answer": "end_turn", "cancelled": "cancelled", "max_iterations": "max_turn_requests",
        "budget_turn_tokens": "max_tokens", "budget_session_usd": "refusal"}
PLAN_STATUS = {"pending": "pending", "in_progress": "in_progress", "completed": "completed"}
MAX_OUTPUT = 20_000  # characters of a tool's output shown in the editor


def kind(name: str) -> str:
    return KINDS.get(name, "other")


def arguments(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def where(args: dict[str, Any], cwd: Path) -> str | None:
    """The absolute path a file tool's call names (None when it names none)."""
    raw = args.get("path")
    if not isinstance(raw, str) or not raw:
        return None
    return os.path.normpath(os.path.join(cwd, os.path.expanduser(raw)))


def title(name: str, args: dict[str, Any], summary: str) -> str:
    for key in ("command", "path", "query", "pattern", "url", "goal"):
        if isinstance(args.get(key), str) and args[key]:
            shown = args[key] if len(args[key]) <= 120 else args[key][:117] + "..."
            return f"{name}: {shown}"
    return f"{name} {summary}".strip()


def started(event: ToolStarted, cwd: Path) -> dict[str, Any]:
    """The fields of the `tool_call` update for `event` (SDK-free: the caller builds it)."""
    args = arguments(event.arguments)
    path = where(args, cwd) if event.name in PATH_TOOLS else None
    fields: dict[str, Any] = {
        "tool_call_id": event.call_id, "title": title(event.name, args, event.summary),
        "kind": kind(event.name), "status": "in_progress", "raw_input": args or None,
        "locations": [{"path": path}] if path else None, "content": None}
    proposed = proposal(event.name, args, path)
    if proposed is not None:
        fields["content"] = [proposed]
    return fields


def proposal(name: str, args: dict[str, Any], path: str | None) -> dict[str, Any] | None:
    """The change a write asks for, as a diff (what the editor shows when it asks)."""
    if path is None:
        return None
    if name == "write_file" and isinstance(args.get("content"), str):
        return {"type": "diff", "path": path, "old_text": None, "new_text": args["content"]}
    if name == "patch" and isinstance(args.get("old_string"), str) \
            and isinstance(args.get("new_string"), str):
        return {"type": "diff", "path": path, "old_text": args["old_string"],
                "new_text": args["new_string"]}
    return None


def finished(event: ToolFinished, path: str | None) -> dict[str, Any]:
    """The fields of the `tool_call_update` that ends the call."""
    content: list[dict[str, Any]] = []
    if event.diff and path:
        old, new, created = sides(event.diff)
        content.append({"type": "diff", "path": path, "old_text": None if created else old,
                        "new_text": new})
    else:
        text = event.content if len(event.content) <= MAX_OUTPUT else (
            event.content[:MAX_OUTPUT] + f"\n... [{len(event.content) - MAX_OUTPUT:,} more characters]")
        if text:
            content.append({"type": "content", "content": {"type": "text", "text": text}})
    return {"tool_call_id": event.call_id, "status": "completed" if event.ok else "failed",
            "content": content or None, "raw_output": {"summary": event.summary}}


def sides(diff: str) -> tuple[str, str, bool]:
    """A unified diff's old and new text (its hunks, context included) and whether the
    file was created."""
    old: list[str] = []
    new: list[str] = []
    created = False
    for line in diff.splitlines(keepends=True):
        if line.startswith("--- "):
            created = created or line.startswith("--- /dev/null")
            continue
        if line.startswith("+++ "):
            continue
        if line.startswith("@@"):
            created = created or line.startswith("@@ -0,0 ")
            if old or new:
                old.append("...\n")
                new.append("...\n")
            continue
        body = line[1:]
        if line.startswith("-"):
            old.append(body)
        elif line.startswith("+"):
            new.append(body)
        elif line.startswith(" "):
            old.append(body)
            new.append(body)
    return "".join(old), "".join(new), created


def plan(items: tuple[tuple[str, str, str], ...]) -> list[dict[str, str]]:
    """The todo list as plan entries (a cancelled item is left out: ACP has no such state)."""
    return [{"content": content, "priority": "medium", "status": PLAN_STATUS[status]}
            for _id, content, status in items if status in PLAN_STATUS]


def stop_reason(reason: str) -> str:
    return STOP.get(reason, "end_turn")


def usage(total: Usage) -> dict[str, int] | None:
    """The turn's tokens for the prompt response (None when no call was made)."""
    if total.prompt_tokens == 0 and total.output == 0:
        return None
    out = {"input_tokens": total.prompt_tokens, "output_tokens": total.output,
           "total_tokens": total.prompt_tokens + total.output}
    if total.cache_known:
        out |= {"cached_read_tokens": total.cache_read, "cached_write_tokens": total.cache_write}
    return out
