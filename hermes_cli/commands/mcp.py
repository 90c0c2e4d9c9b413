"""`hermes mcp list` and `hermes mcp test NAME`: the configured MCP servers from the shell."""

from __future__ import annotations

import sys
import time

from agent.errors import ConfigError

# Function-level imports below: `hermes mcp` loads the MCP SDK and its hub only when it
# runs (start-up speed of every other command).

def _servers():
    from agent.mcp.config import parse_servers
    from frontend.setup import load_settings

    return parse_servers(load_settings().raw.get("mcp_servers"))


def run_list() -> int:
    """One line per configured server (nothing is started)."""
    servers = _servers()
    if not servers:
        print("no MCP servers configured (add `mcp_servers:` to config.yaml; see README.md)")
        return 0
    for s in servers:
        where = f"{s.command} {' '.join(s.args)}".strip() if s.command else s.url
        state = "enabled" if s.enabled else "disabled"
        keys = f", gateway keys: {len(s.gateway_keys)}" if s.gateway_keys else ", CLI only"
        print(f"{s.name}  {s.transport}  {state}{keys}  {where}")
    return 0


def run_test(name: str) -> int:
    """Start one server, list its tools as the session would send them, stop it."""
    from agent.mcp.frozen import McpTools
    from agent.mcp.hub import McpHub
    from agent.tokens import estimate_tokens

    found = [s for s in _servers() if s.name == name]
    if not found:
        known = ", ".join(s.name for s in _servers()) or "none"
        raise ConfigError(f"no MCP server named {name!r} in config.yaml", f"configured: {known}")
    hub = McpHub()
    tools = McpTools(hub, tuple(found))
    started = time.monotonic()
    try:
        warnings = tools.freeze()
        took = time.monotonic() - started
        for warning in warnings:
            sys.stderr.write(f"warning: {warning}\n")
        frozen = tools.tools()
        if not frozen and hub.servers[name].status != "ready":
            return 1
        total = 0
        for tool in frozen:
            tokens = estimate_tokens(tool.schema.canonical())
            total += tokens
            print(f"{tool.name}  ~{tokens:,} tokens")
        print(f"{name}: ready in {took:.2f}s, {len(frozen)} tools, ~{total:,} tokens per request")
        return 0
    finally:
        hub.close()
