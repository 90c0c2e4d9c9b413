"""session_search: full-text search over past sessions' messages."""

from __future__ import annotations

from typing import Any

from agent.errors import ToolError
from agent.tools._common import opt_int
from agent.tools.registry import Tool, ToolContext, require

MAX_LIMIT = 20


def session_search(args: dict[str, Any], ctx: ToolContext) -> str:
    """Matches from earlier sessions (never the current one), best first."""
    query = require(args, "query").strip()
    if not query:
        raise ToolError("the query is empty")
    limit = opt_int(args, "limit", 5, 1, MAX_LIMIT)
    store = ctx.services.store
    if store is None:
        raise ToolError("session history is not available in this session")
    rows = store.search(query, exclude_session=ctx.session_id, limit=limit,
                        owner=ctx.services.owner)
    if not rows:
        return f"No past sessions mention {query!r}."
    lines = [f"{len(rows)} match(es) in past sessions for {query!r}:"]
    for row in rows:
        date = row.get("date") or str(row.get("created", ""))[:10]
        snippet = " ".join(str(row.get("snippet", "")).split())
        lines.append(f"- session {row.get('session_id')} ({date}, {row.get('role')}): {snippet}")
    return "\n".join(lines)


TOOL = Tool(
    name="session_search",
    toolset="search",
    description=(
        "Full-text search (any of the words) of your past sessions with the user: snippets "
        "with session id and date. Use it when the user refers to earlier work, before "
        "asking them to repeat it."
    ),
    parameters={
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "limit": {"type": "integer", "description": f"Max {MAX_LIMIT}.", "default": 5},
        },
        "required": ["query"],
    },
    run=session_search,
    read_only=True,
    untrusted=True,
)
