"""MCP in the REPL (wire tier, a real pty): the prompt does not wait for the servers,
the first message does (up to the deadline, one warning line for a server that hangs),
/mcp shows the servers, /tools the MCP tools by server with their size."""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

from tests.fakes import Reply

SERVER = str(Path(__file__).resolve().parent.parent / "mcp" / "server.py")


def test_repl_with_mcp_servers(spawn_repl, hermes_home, fake_provider):
    (hermes_home / "config.yaml").write_text(yaml.safe_dump({"mcp_servers": {
        "t": {"command": sys.executable, "args": [SERVER, "stdio"], "start_timeout": 30},
        "slow": {"command": sys.executable, "args": [SERVER, "stdio"],
                 "env": {"MCP_TEST_HANG": "1"}, "start_timeout": 4},
    }}))
    fake_provider.script(Reply(text="first answer"))
    repl = spawn_repl()  # the prompt is drawn while the servers start (within 10 s)
    repl.send("/mcp")
    out = repl.expect("the session's MCP tool list is frozen at its first request", timeout=30)
    assert "slow" in out and "not frozen yet" in out
    repl.prompt()
    repl.send("hello")
    out = repl.expect("first answer", timeout=60)
    assert "MCP server slow failed to start (no answer within 4s); the session goes on " \
           "without it" in " ".join(out.split())
    repl.prompt()
    tools = [t["name"] for t in fake_provider.requests[0].body["tools"]]
    assert "mcp__t__echo" in tools and not [t for t in tools if "slow" in t]
    repl.send("/tools")
    out = repl.expect("the tool set is fixed")
    assert "MCP server" in out and "mcp__t__echo" in out and "schema tokens" in out
    repl.prompt()
    repl.send("/mcp")
    out = repl.expect("the session's MCP tool list is frozen")
    assert "ready" in out and "failed" in out
    repl.prompt()
    repl.send("/mcp reload")
    repl.expect("MCP tools unchanged", timeout=30)
