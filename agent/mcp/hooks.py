"""Where an agent meets its MCP tools: restore on resume, freeze before the first
call, announce changes, /mcp reload. Functions of the AIAgent (as `Host`: this module
does not import agent.agent) so the agent module stays small."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Protocol

from agent.events import Notice
from agent.messages import canonical_json
from agent.tools.registry import ToolRegistry
from agent.usage import usd

if TYPE_CHECKING:
    from agent.mcp.frozen import McpTools
    from memory.store import SessionStore


class Host(Protocol):
    """What these functions use of an AIAgent."""

    store: SessionStore | None
    mcp: McpTools | None
    startup_notices: list[Notice]
    base_registry: ToolRegistry

    @property
    def registry(self) -> ToolRegistry: ...
    @property
    def session_id(self) -> str: ...

    def use_registry(self, registry: ToolRegistry) -> None: ...
    def rebuild_estimate(self, model: str | None = None) -> tuple[int, float | None]: ...


def restore(agent: Host, session_id: str) -> None:
    """A resumed session keeps the MCP tools it froze (stored schemas), before the
    session's resume check compares the tool set."""
    if agent.store is None:
        return
    row = agent.store.get_session(agent.store.resolve_session_id(session_id)) or {}
    stored = json.loads(row.get("mcp_tools") or "[]")
    if agent.mcp is None:
        if not stored:
            return
        from agent.mcp.frozen import McpTools  # no server configured now: keep the bytes
        from agent.mcp.hub import shared_hub

        agent.mcp = McpTools(shared_hub(), ())
    warnings = agent.mcp.restore(stored)
    agent.startup_notices.extend(Notice(w, "warning") for w in warnings)
    apply(agent, agent.mcp)


def before_call(agent: Host) -> Iterator[Notice]:
    """Before a turn: freeze the list if this session has not sent a request yet (waits
    for the servers up to their deadline), then announce live changes."""
    mcp = agent.mcp
    if mcp is None:
        return
    if mcp.frozen is None:
        for warning in mcp.freeze():
            yield Notice(warning, "warning")
        apply(agent, mcp)
        persist(agent)
    yield from announce(agent)


def announce(agent: Host) -> Iterator[Notice]:
    """One notice per server whose tools changed since the list was frozen."""
    if agent.mcp is None:
        return
    for server in agent.mcp.changes():
        tokens, _cost = agent.rebuild_estimate()
        yield Notice(f"MCP server {server} changed its tools; /mcp reload or /new to use them; "
                     f"this rewrites ~{tokens:,} cached tokens.", "warning")
    for change in agent.mcp.config_changes():
        tokens, _cost = agent.rebuild_estimate()
        yield Notice(f"{change}; /mcp reload or /new to use it; this rewrites ~{tokens:,} cached "
                     "tokens.", "warning")


def apply(agent: Host, mcp: McpTools) -> None:
    """The registry = the built-in tools + the frozen MCP tools (`mcp`, the agent's); the
    session's tool schemas (its choice, read by the caller and compression) follow through
    the agent."""
    base = agent.base_registry
    agent.use_registry(ToolRegistry([*base.tools(), *mcp.tools()]))


def persist(agent: Host) -> None:
    """Store the frozen MCP schemas with the session (for --resume)."""
    if agent.mcp is None or agent.store is None or agent.mcp.frozen is None:
        return
    agent.store.update_session(agent.session_id, tools=agent.registry.names(),
                               toolsets=agent.registry.toolsets(),
                               mcp_tools=canonical_json(agent.mcp.stored()))


def reload(agent: Host) -> list[Notice]:
    """/mcp reload: the servers' current lists (and config.yaml's current servers)
    become the session's; a changed list is one deliberate, announced miss."""
    mcp = agent.mcp
    if mcp is None:  # the REPL says so before it asks
        return [Notice("no MCP servers configured: nothing to reload")]
    before = [s.canonical() for s in agent.registry.schemas()]
    tokens, cost = agent.rebuild_estimate()
    notices = [Notice(w, "warning") for w in mcp.freeze()]
    apply(agent, mcp)
    persist(agent)
    if [s.canonical() for s in agent.registry.schemas()] == before:
        notices.append(Notice("MCP tools unchanged: nothing to reload; the cache stays valid."))
        return notices
    dollars = "" if cost is None else f", est. {usd(cost)}"
    count = len(mcp.frozen or [])
    notices.append(Notice(f"MCP tools reloaded ({count} tools). The tool list changed: the next "
                          f"call re-sends ~{tokens:,} tokens uncached{dollars}; one deliberate "
                          "miss (tools_changed).", "warning"))
    return notices
