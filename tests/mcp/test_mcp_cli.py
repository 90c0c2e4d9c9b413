"""`hermes mcp list|test`, a config mistake, and one-shot with an MCP tool (wire tier:
the real CLI in a subprocess, the SDK test server over stdio)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml

from tests.fakes import Reply, ToolCall
from tests.helpers import anthropic_env, child_env, hermes

pytestmark = pytest.mark.wire
SERVER = str(Path(__file__).with_name("server.py"))


def configure(home: Path, servers: dict) -> None:
    (home / "config.yaml").write_text(yaml.safe_dump({"mcp_servers": servers}))


def test_list_and_test_a_server(hermes_home):
    configure(hermes_home, {"t": {"command": sys.executable, "args": [SERVER, "stdio"],
                                  "start_timeout": 30},
                            "off": {"url": "http://127.0.0.1:9/mcp", "enabled": False}})
    env = child_env(hermes_home)
    listed = hermes(["mcp", "list"], env)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0].startswith("off  http  disabled, CLI only  http://127.0.0.1:9/mcp")
    assert lines[1].startswith("t  stdio  enabled, CLI only")
    tested = hermes(["mcp", "test", "t"], env)
    assert tested.returncode == 0, tested.stderr
    assert "mcp__t__echo  ~" in tested.stdout
    assert "t: ready in" in tested.stdout and "6 tools" in tested.stdout
    missing = hermes(["mcp", "test", "nope"], env)
    assert missing.returncode == 1
    assert missing.stderr.splitlines() == ["hermes: error: no MCP server named 'nope' in config.yaml",
                                           "  hint: configured: off, t"]


def test_a_config_mistake_is_one_clear_line(hermes_home):
    configure(hermes_home, {"t": {"command": "x", "url": "http://127.0.0.1:9/mcp"}})
    out = hermes(["-q", "hi"], child_env(hermes_home, ANTHROPIC_API_KEY="k"))
    assert out.returncode != 0
    assert "Traceback" not in out.stderr
    assert "mcp_servers.t: give exactly one of `command:` (stdio) or `url:`" in out.stderr


def test_oneshot_calls_an_mcp_tool(fake_provider, hermes_home):
    configure(hermes_home, {"t": {"command": sys.executable, "args": [SERVER, "stdio"],
                                  "start_timeout": 30}})
    fake_provider.script(Reply(tool_calls=[ToolCall("mcp__t__add", {"a": 40, "b": 2})]),
                         Reply(text="forty-two"))
    out = hermes(["-q", "add", "--json"], anthropic_env(hermes_home, fake_provider))
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["answer"] == "forty-two"
    last = fake_provider.requests[-1].body["messages"][-1]["content"]
    framed = '<untrusted source="mcp__t__add">\n42\n</untrusted>'
    assert [b["content"] for b in last if b["type"] == "tool_result"] in ([framed], [[{"type": "text", "text": framed}]])
