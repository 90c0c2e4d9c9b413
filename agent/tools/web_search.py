"""web_search: a short list of results (title, URL, snippet) from the configured backend.

Offered only when config.yaml names a backend (`web: {search: ...}`); the session's
tool list is fixed when it starts, so a backend added later serves new sessions.
"""

from __future__ import annotations

from typing import Any

from agent.errors import ToolError
from agent.tools._common import opt_int
from agent.tools.registry import Tool, ToolContext, require
from agent.tools.web.page import guarded
from agent.tools.web.search import render, search
from agent.tools.web_fetch import session_pages, settings_of


def web_search(args: dict[str, Any], ctx: ToolContext) -> str:
    """Results for `query`, searched once per session (later calls read the same list)."""
    query = " ".join(require(args, "query").split())
    if not query:
        raise ToolError("the query is empty")
    count = opt_int(args, "count", 8, 1, 20)
    backend = settings_of(ctx).search
    if backend is None:
        raise ToolError("no search backend is configured (config.yaml `web: {search: ...}`)")
    pages = session_pages(ctx)
    key = f"{count}:{query}"
    if key not in pages.searches:
        text, notes = guarded(render(query, backend.provider, search(backend, query, count)))
        pages.searches[key] = text + "".join(f"\n[note: {note}]" for note in notes)
    return pages.searches[key]


TOOL = Tool(
    name="web_search",
    toolset="web",
    description=(
        "Search the web: a numbered list of results (title, URL, snippet); read one with "
        "web_fetch. A query is searched once per session."
    ),
    parameters={
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "count": {"type": "integer", "description": "Results (1-20).", "default": 8},
        },
        "required": ["query"],
    },
    run=web_search,
    read_only=True,
    untrusted=True,
)
