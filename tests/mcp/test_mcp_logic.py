"""MCP logic in process (fast tier): names, schemas, results, config, freezing decisions.

The freezing tests use a real McpHub whose server states are set by hand (no loop, no
process): what the session does with a changed, failed or restarted server."""

from __future__ import annotations

import base64
import re

import mcp_types as types
import pytest

from agent.errors import ConfigError, ToolError
from agent.mcp.config import parse_servers
from agent.mcp.frozen import McpTools
from agent.mcp.hub import McpHub, Server
from agent.mcp.results import render
from agent.mcp.schema import SchemaError, normalise, tool_name
from agent.tools.read_file import MAX_CHARS

PROVIDER_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def test_names_are_prefixed_and_shortened_deterministically():
    assert tool_name("docs", "search") == "mcp__docs__search"
    long = tool_name("server", "x" * 80)
    dotted = tool_name("srv", "get.issue")
    for name in (long, dotted, tool_name("s", "ünïcode tool")):
        assert PROVIDER_NAME.match(name), name
    assert len(long) == 64 and long == tool_name("server", "x" * 80)
    assert long != tool_name("server", "x" * 81)  # the hash keeps long names apart
    assert dotted != tool_name("srv", "get_issue")  # a changed name never collides


def test_schemas_are_canonical_and_repaired():
    raw = {"$schema": "http://json-schema.org/draft-07/schema#", "required": ["b", "a", "zz"],
           "properties": {"b": {"type": "integer"}, "a": {"type": "integer"}}}
    out = normalise(raw)
    assert out == {"type": "object", "properties": {"a": {"type": "integer"},
                                                    "b": {"type": "integer"}},
                   "required": ["a", "b"]}
    assert list(out) == sorted(out)  # keys sorted: the same bytes every time
    assert normalise({}) == {"type": "object", "properties": {}}
    for bad, why in (([], "not an object schema"), ({"type": "array"}, "not 'object'"),
                     ({"properties": {"x": {"type": "strnig"}}}, "unknown type"),
                     ({"properties": {"x": 5}}, "not a schema"),
                     ({"properties": {}, "required": "x"}, "not a list")):
        with pytest.raises(SchemaError, match=why):
            normalise(bad)


def test_results_text_media_caps_and_errors():
    png = base64.b64encode(b"x" * 300).decode()
    result = types.CallToolResult(content=[
        types.TextContent(type="text", text="line"),
        types.ImageContent(type="image", data=png, mime_type="image/png"),
        types.EmbeddedResource(type="resource", resource=types.BlobResourceContents(
            uri="file:///a.bin", mime_type="application/octet-stream", blob=png)),
    ])
    text = render(result)
    assert text.splitlines() == ["line", "[image image/png, 300 bytes - not shown to the model]",
                                 "[embedded resource file:///a.bin (application/octet-stream, "
                                 "300 bytes)]"]
    huge = types.CallToolResult(content=[types.TextContent(type="text", text="y" * (MAX_CHARS + 5))])
    assert "[output capped at" in render(huge) and len(render(huge)) < MAX_CHARS + 100
    with pytest.raises(ToolError, match="no such file"):
        render(types.CallToolResult(content=[types.TextContent(type="text", text="no such file")],
                                    is_error=True))


def test_config_validation_says_what_and_how():
    servers = parse_servers({"b": {"url": "http://127.0.0.1:1/mcp", "headers": {"X": "t ${TOK}"}},
                             "a": {"command": "srv", "env": {"K": "${TOK}"}, "exclude": ["x"]}},
                            {"TOK": "s3cret"})
    assert [s.name for s in servers] == ["a", "b"]
    assert servers[1].headers == (("X", "t s3cret"),) and servers[0].env == (("K", "s3cret"),)
    assert servers[0].transport == "stdio" and not servers[0].wants("x")
    cases = [({"a": {}}, "exactly one of"), ({"a": {"command": "x", "url": "http://h"}}, "exactly one"),
             ({"a b": {"command": "x"}}, "server name"), ([1], "must be a mapping"),
             ({"a": {"command": "x", "env": {"HERMES_API_KEY": "k"}}}, "never given"),
             ({"a": {"url": "http://h", "headers": {"A": "${NOPE}"}}}, r"\$\{NOPE\} is not set"),
             ({"a": {"command": "x", "start_timeout": 0}}, "number of seconds"),
             ({"a": {"command": "x", "comand": 1}}, "unknown setting")]
    for raw, message in cases:
        with pytest.raises(ConfigError, match=message):
            parse_servers(raw, {})


def test_gateway_gets_a_server_only_for_the_keys_it_lists():
    import hashlib

    (server,) = parse_servers({"a": {"command": "x", "gateway_keys": ["${K}"]}}, {"K": "key-1234"})
    alice = hashlib.sha256(b"key-1234").hexdigest()
    assert server.offered_to("cli", None)
    assert server.offered_to("gateway", alice)
    assert not server.offered_to("gateway", hashlib.sha256(b"other").hexdigest())
    assert not server.offered_to("gateway", None)


def _listing(*names: str, schema=None) -> list[dict]:
    return [{"name": n, "description": f"{n} tool", "inputSchema": schema or {"type": "object"}}
            for n in names]


def _hub(**states) -> McpHub:
    hub = McpHub()
    for name, (status, tools) in states.items():
        (config,) = parse_servers({name: {"command": "x"}}, {})
        hub.servers[name] = Server(config, status=status, tools=tools, version=1)
    return hub


def test_the_list_is_frozen_and_changes_are_announced_once():
    hub = _hub(a=("ready", _listing("one", "two")), b=("failed", []))
    hub.servers["b"].error = "no answer within 10s"
    hub.servers["b"].settled.set()
    for server in hub.servers.values():
        server.settled.set()
    tools = McpTools(hub, tuple(s.config for s in hub.servers.values()))
    tools.start = lambda: None  # the servers' states are set by hand here
    warnings = tools.freeze()
    assert warnings == ["MCP server b failed to start (no answer within 10s); the session goes "
                        "on without it"]
    frozen = [t.name for t in tools.tools()]
    assert frozen == ["mcp__a__one", "mcp__a__two"]
    assert tools.changes() == []
    # a list_changed that reorders nothing and changes nothing: no announcement
    hub.servers["a"].version += 1
    assert tools.changes() == []
    # a new tool: announced once, the frozen list unchanged
    hub.servers["a"].tools = _listing("one", "two", "three")
    hub.servers["a"].version += 1
    assert tools.changes() == ["a"] and tools.changes() == []
    assert [t.name for t in tools.tools()] == frozen
    # the failed server comes back later: announced, still not used
    hub.servers["b"].status, hub.servers["b"].tools = "ready", _listing("x")
    assert tools.changes() == ["b"]
    assert [t.name for t in tools.tools()] == frozen
    # a deliberate reload takes the current lists
    tools.freeze()
    assert [t.name for t in tools.tools()] == ["mcp__a__one", "mcp__a__three", "mcp__a__two",
                                               "mcp__b__x"]


def test_restore_keeps_stored_bytes_even_without_the_server():
    hub = _hub(a=("ready", _listing("one")))
    tools = McpTools(hub, (hub.servers["a"].config,))
    stored = [{"server": "gone", "remote": "t", "name": "mcp__gone__t", "description": "d",
               "parameters": {"properties": {}, "type": "object"}}]
    warnings = tools.restore(stored)
    assert "server gone, which is not configured now" in warnings[0]
    assert tools.stored() == stored
    with pytest.raises(ToolError, match="not configured for this session"):
        tools.tools()[0].run({}, None)
    # a server the hub runs for another session (another gateway key) is not reachable
    hub.servers["gone"] = hub.servers["a"]
    with pytest.raises(ToolError, match="not configured for this session"):
        tools.tools()[0].run({}, None)


def test_include_exclude_and_malformed_tools():
    hub = _hub(a=("ready", _listing("keep", "drop") + _listing("bad", schema={"type": "array"})))
    (config,) = parse_servers({"a": {"command": "x", "exclude": ["drop"]}}, {})
    hub.servers["a"].config = config
    hub.servers["a"].settled.set()
    tools = McpTools(hub, (config,))
    tools.start = lambda: None
    warnings = tools.freeze()
    assert warnings == ["MCP server a: tool bad left out: the input schema's type is 'array', "
                        "not 'object'"]
    assert [t.name for t in tools.tools()] == ["mcp__a__keep"]


def test_a_config_edit_is_announced_once_and_applied_at_the_next_freeze():
    hub = _hub(a=("ready", _listing("one")), b=("ready", _listing("two")))
    for server in hub.servers.values():
        server.settled.set()
    current = {"servers": (hub.servers["a"].config,)}

    def probe():
        if isinstance(current["servers"], ConfigError):
            raise current["servers"]
        return current["servers"]

    tools = McpTools(hub, current["servers"], probe)
    tools.start = lambda: None
    assert tools.freeze() == [] and [t.name for t in tools.tools()] == ["mcp__a__one"]
    assert tools.config_changes() == []
    current["servers"] = (hub.servers["a"].config, hub.servers["b"].config)  # b added
    assert tools.config_changes() == ["config.yaml changed MCP server b"]
    assert tools.config_changes() == []  # said once
    assert [t.name for t in tools.tools()] == ["mcp__a__one"]  # not applied
    current["servers"] = ConfigError("config.yaml: mcp_servers.b.url must be an http URL")
    assert tools.config_changes() == ["config.yaml has an error, MCP servers unchanged: "
                                      "config.yaml: mcp_servers.b.url must be an http URL"]
    current["servers"] = (hub.servers["a"].config, hub.servers["b"].config)
    tools.freeze()  # /mcp reload or /new
    assert [t.name for t in tools.tools()] == ["mcp__a__one", "mcp__b__two"]
    assert tools.config_changes() == []
