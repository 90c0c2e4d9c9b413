"""Opening an ACP session's agent: its config, the editor's MCP servers, its lock.

The config is the installation's (`frontend.setup.agent_config`, source "acp") with the
session's working directory; the editor's MCP servers (session/new's `mcpServers`)
join config.yaml's, so they are part of the tool list the session freezes at its first
request (agent/mcp/frozen.py) and stored with it. A stored session (load, resume)
keeps its provider and model (`frontend.factory.session_flags`). The agent is built by
`frontend.factory.make_agent`, the one builder of every front end.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.errors import ConfigError
from agent.mcp.config import ServerConfig, parse_servers
from frontend.config.settings import Settings
from frontend.factory import make_agent, mcp_reader, session_flags, startup_warnings
from frontend.setup import Flags, agent_config

if TYPE_CHECKING:
    from acp import schema as s

    from agent.agent import AIAgent
    from memory.locks import SessionLock
    from memory.store import SessionStore

    # the editor's MCP servers, as session/new, load and resume give them
    McpServers = list[s.HttpMcpServer | s.SseMcpServer | s.AcpMcpServer | s.McpServerStdio]

SOURCE = "acp"
LOCK_PURPOSE = "hermes acp"
EDITOR_START = 30.0  # seconds an editor's MCP server has to start (npx may download first)


def checked_cwd(cwd: str) -> Path:
    """The session's directory: absolute and existing (ACP requires an absolute path)."""
    path = Path(cwd)
    if not path.is_absolute():
        raise ConfigError(f"cwd must be an absolute path, got {cwd!r}", "ACP clients send the "
                          "project's absolute path")
    if not path.is_dir():
        raise ConfigError(f"cwd {cwd} is not an existing directory", "open a project folder")
    return path


def client_servers(servers: McpServers | None, env_allow: tuple[str, ...]
                   ) -> tuple[tuple[ServerConfig, ...], list[str]]:
    """The editor's MCP servers as hermes' server configs, and why some were left out."""
    table: dict[str, dict[str, Any]] = {}
    notes: list[str] = []
    for server in servers or ():
        name = re.sub(r"[^A-Za-z0-9_-]", "_", str(getattr(server, "name", "") or "editor"))[:32]
        kind = getattr(server, "type", None)
        if getattr(server, "command", None):
            table[name] = {"command": server.command, "args": list(server.args or []),
                           "env": {e.name: e.value for e in server.env or []},
                           "start_timeout": EDITOR_START}
        elif kind == "http":
            table[name] = {"url": server.url, "start_timeout": EDITOR_START,
                           "headers": {h.name: h.value for h in server.headers or []}}
        else:
            notes.append(f"the editor's MCP server {name} ({kind or 'unknown'} transport) is "
                         "left out: hermes speaks MCP over stdio and streamable HTTP")
    try:
        return parse_servers(table, environ={}, env_allow=env_allow), notes
    except ConfigError as exc:
        return (), [*notes, f"the editor's MCP servers are left out: {exc.message}"]


def open_agent(settings: Settings, flags: Flags, store: SessionStore, cwd: Path, *,  # noqa: PLR0913
               servers: McpServers | None, session_id: str | None,
               approve: Callable[[str, str], bool]) -> AIAgent:
    """The agent of a new session (`session_id` None) or of a stored one, with the
    editor's MCP servers; start-up warnings are in its `startup_notices`."""
    if session_id is not None:
        flags = session_flags(flags, store.get_session(session_id) or {})
    warnings = startup_warnings(settings, cwd)
    config = agent_config(settings, flags, cwd, SOURCE, warnings)
    extra, notes = client_servers(servers, config.sandbox.env_allow)
    mine = {s.name for s in extra}
    config = replace(config, mcp_servers=tuple(s for s in config.mcp_servers
                                               if s.name not in mine) + extra)
    configured = mcp_reader(settings.home)

    def reader() -> tuple[ServerConfig, ...]:
        return tuple(s for s in configured() if s.name not in mine) + extra

    agent = make_agent(config, store, session_id=session_id, approve=approve, reader=reader)
    from agent.events import Notice

    agent.startup_notices[:0] = [Notice(w, "warning") for w in [*warnings, *notes]]
    return agent


def hold(store: SessionStore, session_id: str) -> SessionLock:
    """The lock on a stored session for this process (SessionLocked names its holder)."""
    lock = store.lock_session(session_id, purpose=f"{LOCK_PURPOSE} (pid {os.getpid()})")
    lock.acquire(0)
    return lock
