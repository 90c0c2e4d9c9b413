"""todo: the session's task list, kept in `ctx.state.todos`."""

from __future__ import annotations

from typing import Any

from agent.errors import ToolError
from agent.events import TodoChanged
from agent.tools._common import opt_bool
from agent.tools.registry import Tool, ToolContext

STATUSES = ("pending", "in_progress", "completed", "cancelled")
_MARKS = {"pending": "[ ]", "in_progress": "[>]", "completed": "[x]", "cancelled": "[-]"}


def todo(args: dict[str, Any], ctx: ToolContext) -> str:
    """Read the list (no `todos`), replace it, or merge items into it by id."""
    current: list[dict[str, str]] = ctx.state.todos
    items = args.get("todos")
    if items is not None:
        if not isinstance(items, list):
            raise ToolError("'todos' must be a list of {id, content, status} objects")
        merge = opt_bool(args, "merge")
        updated = _merge(current, items) if merge else [_item(raw, None) for raw in items]
        _check_unique(updated)
        if updated != current:  # the front end shows the list as it changes
            ctx.state.pending_events.append(TodoChanged(tuple(
                (i["id"], i["content"], i["status"]) for i in updated)))
        ctx.state.todos = current = updated
    return render(current)


def _item(raw: object, old: dict[str, str] | None) -> dict[str, str]:
    """Validate one item; with `old`, missing fields are taken from it (merge)."""
    if not isinstance(raw, dict) or raw.get("id") in (None, ""):
        raise ToolError("each todo must be an object with an 'id'")
    base = old or {}
    item = {
        "id": str(raw["id"]),
        "content": str(raw.get("content") or base.get("content") or "").strip(),
        "status": str(raw.get("status") or base.get("status") or "pending"),
    }
    if not item["content"]:
        raise ToolError(f"todo {item['id']!r} needs 'content'")
    if item["status"] not in STATUSES:
        raise ToolError(f"todo {item['id']!r}: status must be one of {', '.join(STATUSES)}")
    return item


def _merge(current: list[dict[str, str]], items: list[object]) -> list[dict[str, str]]:
    result = [dict(item) for item in current]
    index = {item["id"]: i for i, item in enumerate(result)}
    for raw in items:
        key = str(raw.get("id")) if isinstance(raw, dict) else None
        if key in index:
            result[index[key]] = _item(raw, result[index[key]])
        else:
            result.append(_item(raw, None))
            index[result[-1]["id"]] = len(result) - 1
    return result


def _check_unique(items: list[dict[str, str]]) -> None:
    seen: set[str] = set()
    for item in items:
        if item["id"] in seen:
            raise ToolError(f"duplicate todo id {item['id']!r}")
        seen.add(item["id"])


def render(items: list[dict[str, str]]) -> str:
    """The list, one line per item: `[x] id. content`, with a done count on top."""
    if not items:
        return "Todo list is empty."
    done = sum(item["status"] == "completed" for item in items)
    lines = [f"Todo ({done}/{len(items)} completed):"]
    lines += [f"{_MARKS[item['status']]} {item['id']}. {item['content']}" for item in items]
    return "\n".join(lines)


TOOL = Tool(
    name="todo",
    toolset="todo",
    description=(
        "Your task list for this session, for work of 3+ steps. No arguments: read it. "
        "'todos' replaces the list, or with merge=true updates items by id and appends new "
        "ones. One item in_progress at a time; mark each completed as soon as it is done."
    ),
    parameters={
        "type": "object",
        "properties": {
            "todos": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string"},
                        "content": {"type": "string"},
                        "status": {"type": "string", "enum": list(STATUSES)},
                    },
                    "required": ["id", "content", "status"],
                },
            },
            "merge": {"type": "boolean"},
        },
    },
    run=todo,
)
