"""MCP servers end to end (wire tier): real SDK servers (tests/mcp/server.py) over stdio
and streamable HTTP on 127.0.0.1, the real agent, the fake provider's recorded bytes.

The cache promise: the tool bytes sent are identical across turns, across a
`list_changed`, across a server restart and across --resume; only /mcp reload changes
them, and that one miss is diagnosed `tools_changed`."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agent.agent import AIAgent
from agent.config import AgentConfig
from agent.events import Done, Notice
from agent.mcp import hooks
from agent.mcp.config import parse_servers
from agent.mcp.frozen import McpTools
from agent.mcp.hub import McpHub
from agent.providers.base import ProviderSettings
from memory.store import SessionStore
from tests.fakes import Reply, ToolCall
from tests.helpers import MODEL, wait_until

pytestmark = pytest.mark.wire
SERVER = str(Path(__file__).with_name("server.py"))


@pytest.fixture
def hub():
    made = McpHub()
    yield made
    made.close()


@pytest.fixture
def http_server(tmp_path):
    """The test server on streamable HTTP; its URL."""
    port_file = tmp_path / "port"
    proc = subprocess.Popen([sys.executable, SERVER, "http", str(port_file)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port = wait_until(lambda: port_file.exists() and port_file.read_text(), 30, "the HTTP server")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.kill()
        proc.wait(10)


def stdio(name: str, state: Path | None = None, **env: str) -> dict:
    if state is not None:
        env["MCP_TEST_STATE"] = str(state)
    return {name: {"command": sys.executable, "args": [SERVER, "stdio"], "env": env,
                   "start_timeout": 30}}


def agent_for(fake, home: Path, cwd: Path, hub: McpHub, raw: dict, session_id=None) -> AIAgent:
    servers = parse_servers(raw)
    settings = ProviderSettings("anthropic", MODEL, "test-key", fake.anthropic_base_url)
    config = AgentConfig(provider=settings, home=home, cwd=cwd, mcp_servers=servers)
    mcp = McpTools(hub, servers) if servers else None  # None: as the factory does
    if mcp is not None:
        mcp.start()
    return AIAgent(config, SessionStore(home / "state.db"), clock=fake.clock.now,
                   session_id=session_id, mcp=mcp)


def turn(agent: AIAgent, text: str) -> list:
    events = list(agent.run_turn(text))
    assert isinstance(events[-1], Done) and events[-1].reason == "answer", events
    return events


def tool_bytes(record) -> str:
    return json.dumps(record.body["tools"], sort_keys=True)


def results(record) -> list[str]:
    """The tool results' text, out of the untrusted-data frame every MCP result has."""
    blocks = record.body["messages"][-1]["content"]
    texts = [str(b["content"]) for b in blocks if b.get("type") == "tool_result"]
    framed = [re.fullmatch(r'<untrusted source="mcp__\w+">\n(.*)\n</untrusted>', t, re.DOTALL)
              for t in texts]
    assert all(framed), texts
    return [m.group(1) for m in framed if m]


def warnings(events) -> list[str]:
    return [e.text for e in events if isinstance(e, Notice) and e.level == "warning"]


def test_mcp_tools_end_to_end_and_frozen_bytes(fake_provider, hermes_home, tmp_path, hub,
                                               http_server):
    state = tmp_path / "state"
    raw = {**stdio("t", state), "w": {"url": http_server, "start_timeout": 30}}
    fake = fake_provider
    fake.script(
        Reply(tool_calls=[ToolCall("mcp__t__echo", {"text": "hello mcp"}),
                          ToolCall("mcp__w__add", {"a": 2, "b": 3}),
                          ToolCall("mcp__t__picture", {})]),
        Reply(text="done one"),
        Reply(tool_calls=[ToolCall("mcp__t__announce", {})]),  # list_changed, new tool
        Reply(text="done two"),
        Reply(tool_calls=[ToolCall("mcp__t__crash", {})]),  # the server dies mid-call
        Reply(text="done three"),
        Reply(tool_calls=[ToolCall("mcp__t__echo", {"text": "back"})]),
        Reply(text="done four"),
        Reply(text="after reload"),
    )
    agent = agent_for(fake, hermes_home, tmp_path, hub, raw)
    first = turn(agent, "use the tools")
    assert warnings(first) == []
    sent = fake.requests
    names = [t["name"] for t in sent[0].body["tools"]]
    assert {"mcp__t__echo", "mcp__w__add", "mcp__t__picture"} <= set(names)
    assert names == sorted(names)  # the same order as our own tools
    echo, add, picture = results(sent[1])
    assert echo == "hello mcp" and add == "5"
    assert "[image image/png, 100 bytes - not shown to the model]" in picture
    assert "[embedded resource file:///tmp/notes.txt (text/plain, 5 bytes)]" in picture

    # list_changed: the server now offers `extra`; announced, not applied
    state.write_text("v2")
    turn(agent, "announce")
    wait_until(lambda: any(t["name"] == "extra" for t in hub.servers["t"].tools), 15,
               "the re-listed tools")
    events = turn(agent, "crash it")
    assert any("MCP server t changed its tools; /mcp reload or /new to use them; this rewrites ~"
               in w for w in warnings(events)), warnings(events)
    crash_result = results(fake.requests[-1])[0]
    assert "crashed during crash" in crash_result and "restarted" in crash_result
    wait_until(lambda: hub.servers["t"].status == "ready" and hub.servers["t"].restarts == 1, 30,
               "the restarted server")
    turn(agent, "echo again")
    assert results(fake.requests[-1]) == ["back"]
    before_reload = fake.requests[-1]
    assert {tool_bytes(r) for r in fake.requests} == {tool_bytes(sent[0])}  # 8 requests, one set

    # --resume: a new agent (new process in real life) sends the same tool bytes
    resumed = agent_for(fake, hermes_home, tmp_path, McpHub(), {}, session_id=agent.session_id)
    assert any("server t, which is not configured now" in n.text for n in resumed.startup_notices)
    assert [s.canonical() for s in resumed.registry.schemas()] == \
        [s.canonical() for s in agent.registry.schemas()]

    # /mcp reload: the new list, one deliberate miss diagnosed tools_changed
    notices = hooks.reload(agent)
    assert "MCP tools reloaded" in notices[-1].text
    turn(agent, "now with extra")
    last = fake.requests[-1]
    assert tool_bytes(last) != tool_bytes(before_reload)
    assert "mcp__t__extra" in [t["name"] for t in last.body["tools"]]
    rows = agent.store.usage_rows(agent.session_id)
    assert rows[-1]["miss_cause"] == "tools_changed", rows[-1]
    assert all(r["miss_cause"] != "tools_changed" for r in rows[:-1])


def test_resume_with_the_server_up_sends_the_same_bytes(fake_provider, hermes_home, tmp_path, hub):
    raw = stdio("t")
    fake_provider.script(Reply(text="one"), Reply(tool_calls=[ToolCall("mcp__t__echo", {"text": "x"})]),
                         Reply(text="two"))
    agent = agent_for(fake_provider, hermes_home, tmp_path, hub, raw)
    turn(agent, "hi")
    again = agent_for(fake_provider, hermes_home, tmp_path, McpHub(), raw, session_id=agent.session_id)
    assert not [n for n in again.startup_notices if "tool set" in n.text]
    turn(again, "echo")
    first, second, third = fake_provider.requests
    assert tool_bytes(first) == tool_bytes(second) == tool_bytes(third)
    assert results(third) == ["x"]
    again.mcp.hub.close()


def test_hanging_and_malformed_servers_cost_one_line_each(fake_provider, hermes_home, tmp_path, hub):
    raw = {**stdio("bad", MCP_TEST_MALFORMED="1"),
           "slow": {"command": sys.executable, "args": [SERVER, "stdio"],
                    "env": {"MCP_TEST_HANG": "1"}, "start_timeout": 2},
           "dies": {"command": sys.executable,  # its own words are the reason
                    "args": ["-c", "import sys; sys.stderr.write('starting\\nFOO_TOKEN is not "
                                   "set\\n'); sys.exit(3)"]}}
    fake_provider.script(Reply(text="fine"))
    agent = agent_for(fake_provider, hermes_home, tmp_path, hub, raw)
    events = turn(agent, "hello")
    said = sorted(warnings(events))
    assert said[0] == "MCP server bad: tool broken left out: `properties.x` has unknown type 'strnig'"
    assert said[1].startswith("MCP server dies failed to start (") and said[1].endswith(
        "; its stderr: starting | FOO_TOKEN is not set); the session goes on without it"), said[1]
    assert said[2] == ("MCP server slow failed to start (no answer within 2s); the session goes "
                       "on without it")
    names = [t["name"] for t in fake_provider.requests[0].body["tools"]]
    assert "mcp__bad__echo" in names and not any(n.startswith("mcp__slow") for n in names)


def test_servers_get_only_the_named_environment(fake_provider, hermes_home, tmp_path, hub,
                                                monkeypatch):
    monkeypatch.setenv("HERMES_API_KEY", "gateway-secret")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "provider-secret")
    fake_provider.script(Reply(tool_calls=[ToolCall("mcp__t__env", {"name": "HERMES_API_KEY"}),
                                           ToolCall("mcp__t__env", {"name": "ANTHROPIC_API_KEY"}),
                                           ToolCall("mcp__t__env", {"name": "MY_VAR"})]),
                         Reply(text="ok"))
    agent = agent_for(fake_provider, hermes_home, tmp_path, hub, stdio("t", MY_VAR="mine"))
    turn(agent, "env")
    assert results(fake_provider.requests[-1]) == ["<unset>", "<unset>", "mine"]


def test_plan_mode_allows_only_the_tools_a_server_marks_read_only(fake_provider, hermes_home,
                                                                   tmp_path, hub):
    """`readOnlyHint` (echo has it, add has not): allowed in plan mode, the rest refused."""
    agent = agent_for(fake_provider, hermes_home, tmp_path, hub, stdio("t"))
    agent.set_mode("plan")
    fake_provider.script(Reply(tool_calls=[ToolCall("mcp__t__echo", {"text": "looked"}),
                                           ToolCall("mcp__t__add", {"a": 1, "b": 2})]),
                         Reply(text="planned"))
    turn(agent, "look around")
    blocks = fake_provider.requests[-1].body["messages"][-1]["content"]
    echo, add = [str(b["content"]) for b in blocks if b.get("type") == "tool_result"]
    assert "looked" in echo and "plan mode" not in echo
    assert "plan mode is on: mcp__t__add changes things and is refused" in add
    stored = json.loads(agent.store.get_session(agent.session_id)["mcp_tools"])
    assert [t["name"] for t in stored if t.get("read_only")] == ["mcp__t__echo"]
