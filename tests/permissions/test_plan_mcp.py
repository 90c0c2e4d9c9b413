"""Plan mode and MCP tools: a server's `readOnlyHint` makes a tool read-only (allowed in
plan mode); it is kept with the stored list, and a list stored before it is read as not."""

from __future__ import annotations

from agent.mcp.config import parse_servers
from agent.mcp.frozen import Frozen, McpTools, current
from agent.mcp.hub import McpHub
from agent.permissions.gate import refusal
from agent.tools.registry import ToolContext

LISTING = [{"name": "search", "description": "", "inputSchema": {"type": "object"}, "readOnlyHint": True},
           {"name": "delete", "description": "", "inputSchema": {"type": "object"}, "readOnlyHint": False},
           {"name": "other", "description": "", "inputSchema": {"type": "object"}}]


def test_read_only_hint_is_what_plan_mode_allows(tmp_path):
    (config,) = parse_servers({"docs": {"command": "true"}})
    frozen, warnings = current(config, LISTING)
    assert warnings == [] and [(f.remote, f.read_only) for f in frozen] == [
        ("delete", False), ("other", False), ("search", True)]
    tools = McpTools(McpHub(), (config,))
    tools.frozen = frozen
    ctx = ToolContext(session_id="s", home=tmp_path, cwd=tmp_path, mode="plan")
    said = {t.name: refusal(t, {}, ctx) for t in tools.tools()}
    assert said["mcp__docs__search"] is None
    assert "plan mode is on" in said["mcp__docs__delete"] and "plan mode is on" in said["mcp__docs__other"]
    stored = tools.stored()
    assert [t.get("read_only") for t in stored] == [None, None, True]  # old rows keep their bytes
    tools.restore(stored)
    assert tools.frozen == frozen
    assert Frozen(**{k: v for k, v in stored[2].items() if k != "read_only"}).read_only is False
