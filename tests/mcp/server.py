"""A real MCP server for the tests, written with the official SDK's low-level Server.

    python server.py stdio            serve on stdin/stdout
    python server.py http PORTFILE    serve streamable HTTP on 127.0.0.1 (port written to PORTFILE)

Behaviour comes from the environment the test configures (the `env:` of the server):
MCP_TEST_STATE: a file; when it says "v2" the server also offers `extra` (a changed
list); MCP_TEST_HANG=1: never answers the handshake; MCP_TEST_MALFORMED=1: adds a tool
whose schema names an unknown JSON type; `crash` ends the process mid-call; `announce`
sends notifications/tools/list_changed.
"""

from __future__ import annotations

import base64
import os
import sys
import time
from pathlib import Path

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server


def _state() -> str:
    path = os.environ.get("MCP_TEST_STATE")
    return Path(path).read_text().strip() if path and Path(path).exists() else ""


def _tools() -> list[types.Tool]:
    obj = {"type": "object"}
    tools = [
        types.Tool(name="echo", description="Echo the text back.",
                   input_schema={"type": "object", "required": ["text"],
                                 "properties": {"text": {"type": "string", "description": "what to echo"}}},
                   annotations=types.ToolAnnotations(read_only_hint=True)),  # plan mode allows it
        types.Tool(name="add", description="Add two integers.",
                   input_schema={"properties": {"b": {"type": "integer"}, "a": {"type": "integer"}},
                                 "type": "object", "required": ["a", "b"], "$schema": "http://json-schema.org/draft-07/schema#"}),
        types.Tool(name="picture", description="Return a tiny image and a resource.", input_schema=obj),
        types.Tool(name="crash", description="Exit the server process mid-call.", input_schema=obj),
        types.Tool(name="announce", description="Send tools/list_changed.", input_schema=obj),
        types.Tool(name="env", description="Show one environment variable.",
                   input_schema={"type": "object", "properties": {"name": {"type": "string"}}}),
    ]
    if _state() == "v2":
        tools.append(types.Tool(name="extra", description="A tool added later.", input_schema=obj))
    if os.environ.get("MCP_TEST_MALFORMED"):
        tools.append(types.Tool(name="broken", description="Its schema names an unknown type (the SDK lets it through).",
                                input_schema={"type": "object", "properties": {"x": {"type": "strnig"}}}))
    return tools


async def list_tools(ctx, params) -> types.ListToolsResult:
    return types.ListToolsResult(tools=_tools())


def _text(text: str, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=error)


async def call_tool(ctx, params) -> types.CallToolResult:
    args = params.arguments or {}
    name = params.name
    if name == "echo":
        return _text(str(args.get("text", "")))
    if name == "add":
        return _text(str(int(args["a"]) + int(args["b"])))
    if name == "crash":
        sys.stdout.flush()
        os._exit(3)
    if name == "announce":
        await ctx.session.send_tool_list_changed()
        return _text("announced")
    if name == "env":
        return _text(os.environ.get(str(args.get("name")), "<unset>"))
    if name == "picture":
        png = base64.b64encode(b"\x89PNG" + b"0" * 96).decode()
        return types.CallToolResult(content=[
            types.TextContent(type="text", text="here:"),
            types.ImageContent(type="image", data=png, mime_type="image/png"),
            types.EmbeddedResource(type="resource", resource=types.TextResourceContents(
                uri="file:///tmp/notes.txt", mime_type="text/plain", text="hello")),
        ])
    return _text(f"unknown tool {name}", error=True)


def _options(server: Server):
    from mcp.server.lowlevel.server import NotificationOptions

    return server.create_initialization_options(NotificationOptions(tools_changed=True))


def main() -> None:
    if os.environ.get("MCP_TEST_HANG"):
        while True:
            time.sleep(3600)
    server = Server("hermes-test", on_list_tools=list_tools, on_call_tool=call_tool)
    if sys.argv[1] == "stdio":
        from mcp.server.stdio import stdio_server

        async def run() -> None:
            async with stdio_server() as (read, write):
                await server.run(read, write, _options(server))

        anyio.run(run)
        return
    import socket

    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)  # connections wait in the backlog until uvicorn accepts them
    Path(sys.argv[2]).write_text(str(sock.getsockname()[1]))
    app = server.streamable_http_app()
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])


if __name__ == "__main__":
    main()
