"""One session's MCP tools, frozen once the first request is sent.

`McpTools` turns the hub's live tool lists into registry Tools. `freeze()` (before the
session's first call) waits for the servers up to their start deadline and fixes the
list; from then on nothing the servers do changes it: a `list_changed`, a server that
comes back with other tools, a server that fails - each is reported by `changes()` once
and applied only by `freeze()` again (/mcp reload) or a new session. `restore()` fixes
the list a stored session had (the exact schemas, from the store), so a resumed session
sends the same tool bytes whether or not its servers are up."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

from agent.errors import ConfigError, ToolError
from agent.mcp.config import ServerConfig
from agent.mcp.hub import McpHub
from agent.mcp.results import render
from agent.mcp.schema import SchemaError, description, normalise, tool_name
from agent.tools.registry import Tool

if TYPE_CHECKING:
    from agent.config import AgentConfig
    from agent.tools.registry import ToolContext

TOOLSET = "mcp"


class StoredTool(TypedDict):
    """A frozen tool as the store keeps it (`sessions.mcp_tools`, a JSON list of these)."""

    server: str
    remote: str
    name: str
    description: str
    parameters: dict[str, Any]  # the server's JSON schema, normalised
    read_only: NotRequired[bool]


@dataclass(frozen=True)
class Frozen:
    """One MCP tool as the session sends it (what the store keeps)."""

    server: str
    remote: str  # the server's own tool name
    name: str
    description: str
    parameters: dict[str, Any]
    # the server's `readOnlyHint` annotation: allowed in plan mode (not part of the schema)
    read_only: bool = False

    def stored(self) -> StoredTool:
        kept: StoredTool = {"server": self.server, "remote": self.remote, "name": self.name,
                            "description": self.description, "parameters": self.parameters}
        if self.read_only:
            kept["read_only"] = True
        return kept


def current(config: ServerConfig, listed: list[dict[str, Any]]) -> tuple[list[Frozen], list[str]]:
    """The tools of one server's listing as they would be frozen, and the warnings for
    tools left out (pure)."""
    tools, warnings = [], []
    for item in sorted(listed, key=lambda t: str(t.get("name"))):
        remote = str(item.get("name"))
        if not config.wants(remote):
            continue
        try:
            params = normalise(item.get("inputSchema"))
        except SchemaError as exc:
            warnings.append(f"MCP server {config.name}: tool {remote} left out: {exc}")
            continue
        tools.append(Frozen(config.name, remote, tool_name(config.name, remote),
                            description(item.get("description"), config.name), params,
                            item.get("readOnlyHint") is True))
    return tools, warnings


class McpTools:
    """The MCP part of one session's tool list (module docstring)."""

    def __init__(self, hub: McpHub, configs: tuple[ServerConfig, ...],
                 probe: Callable[[], tuple[ServerConfig, ...]] | None = None) -> None:
        self.hub = hub
        self.configs = {c.name: c for c in configs}
        # `probe()`: the servers config.yaml offers this session now (ConfigError when the
        # edit is broken); a difference is announced, applied at the next freeze
        self.probe = probe
        self.frozen: list[Frozen] | None = None
        self._announced: dict[str, tuple[object, ...]] = {}
        self._config_said: object = None

    def _probed(self) -> dict[str, ServerConfig] | None:
        if self.probe is None:
            return None
        return {c.name: c for c in self.probe()}

    def config_changes(self) -> list[str]:
        """Servers config.yaml added, removed or changed since this list was frozen
        (said once per edit); a broken edit is one line too."""
        if self.frozen is None or self.probe is None:
            return []
        try:
            now = self._probed()
        except ConfigError as exc:
            key = exc.message
            if key == self._config_said:
                return []
            self._config_said = key
            return [f"config.yaml has an error, MCP servers unchanged: {exc.message}"]
        if now is None:
            return []
        changed = sorted(n for n in set(now) | set(self.configs) if now.get(n) != self.configs.get(n))
        said = tuple((n, now.get(n)) for n in changed)
        if not changed or said == self._config_said:
            return []
        self._config_said = said
        return [f"config.yaml changed MCP server {n}" for n in changed]

    def start(self) -> None:
        """Start the servers in the background (returns at once)."""
        if self.configs:
            self.hub.start(tuple(self.configs.values()))

    def live(self, name: str) -> tuple[list[Frozen], list[str]]:
        """What server `name` offers now, as frozen tools, and why some are missing."""
        config = self.configs[name]
        server = self.hub.servers.get(name)
        if server is None or server.status == "stopped":
            return [], [f"MCP server {name} is not running"]
        if server.status == "failed":
            return [], [f"MCP server {name} failed to start ({server.error}); the session goes "
                        "on without it"]
        if server.status == "starting" and not server.tools:
            return [], [f"MCP server {name} did not start within {config.start_timeout:g}s; "
                        "the session goes on without it (/mcp shows when it is up)"]
        return current(config, server.tools)

    def freeze(self) -> list[str]:
        """Wait for the servers (up to their start deadline) and fix the list; warnings.
        The current config.yaml is applied first (an edit since the last freeze)."""
        notes: list[str] = []
        try:
            probed = self._probed()
        except ConfigError as exc:
            probed, notes = None, [f"config.yaml: MCP servers unchanged: {exc.message}"]
        if probed is not None:
            self.configs = probed
            self._config_said = None
        self.start()
        if self.configs:
            deadline = time.monotonic() + max(c.start_timeout for c in self.configs.values())
            self.hub.wait(sorted(self.configs), deadline)
        tools, warnings = [], []
        for name in sorted(self.configs):
            got, why = self.live(name)
            tools.extend(got)
            warnings.extend(why)
        self.frozen = sorted(tools, key=lambda t: t.name)
        self._announced = {name: self._key(name) for name in self.configs}
        return notes + warnings

    def restore(self, stored: list[StoredTool]) -> list[str]:
        """Fix the list a stored session had (its exact schemas); warnings."""
        self.frozen = sorted((Frozen(**item) for item in stored), key=lambda t: t.name)
        gone = sorted({t.server for t in self.frozen} - set(self.configs))
        return [f"This session was stored with tools of MCP server {name}, which is not "
                "configured now: they stay in the tool list so the cache holds, calls to them "
                "fail; /mcp reload drops them." for name in gone]

    def thaw(self) -> None:
        """A new session: the next first call freezes the current lists."""
        self.frozen = None
        self._announced = {}

    def changes(self) -> list[str]:
        """Servers whose live tools differ from the frozen list, each said once."""
        if self.frozen is None:
            return []
        changed = []
        for name in sorted(self.configs):
            server = self.hub.servers.get(name)
            if server is None or server.status != "ready":
                continue
            key = self._key(name)
            if self._announced.get(name) == key:
                continue
            self._announced[name] = key
            live, _ = self.live(name)
            if live != [t for t in self.frozen if t.server == name]:
                changed.append(name)
        return changed

    def _key(self, name: str) -> tuple[object, ...]:
        server = self.hub.servers.get(name)
        return (id(server), server.version, server.status) if server else ()

    def tools(self) -> list[Tool]:
        """The frozen list as registry Tools."""
        return [self._tool(t) for t in self.frozen or []]

    def stored(self) -> list[StoredTool]:
        return [t.stored() for t in self.frozen or []]

    def _tool(self, frozen: Frozen) -> Tool:
        hub, configs = self.hub, self.configs

        def run(args: dict[str, Any], ctx: ToolContext) -> str:
            if frozen.server not in configs:  # the hub may run it for another session/key
                raise ToolError(f"MCP server '{frozen.server}' is not configured for this "
                                "session (config.yaml `mcp_servers:`)")
            return render(hub.call(frozen.server, frozen.remote, args))

        return Tool(frozen.name, TOOLSET, frozen.description, frozen.parameters, run,
                    read_only=frozen.read_only, untrusted=True)


def for_config(config: AgentConfig, reader: Callable[[], tuple[ServerConfig, ...]] | None = None
               ) -> McpTools | None:
    """The MCP tools of an agent with `config` (an AgentConfig): the servers offered to
    its source and owner, on the process's shared hub, started in the background.
    `reader()` re-reads config.yaml's servers (edits are announced, then applied by /mcp
    reload or /new). None when no server is configured (nothing of the SDK loads)."""
    from agent.mcp.hub import shared_hub

    def offered(servers: tuple[ServerConfig, ...]) -> tuple[ServerConfig, ...]:
        return tuple(s for s in servers if s.offered_to(config.source, config.owner))

    servers = offered(config.mcp_servers)
    if not servers:
        return None
    probe = None if reader is None else (lambda: offered(reader()))
    tools = McpTools(shared_hub(), servers, probe)
    tools.start()
    return tools
