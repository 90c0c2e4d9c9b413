"""What a gateway tenant's own program reaches (wire tier: real uvicorn, the real openai
client, the fake provider, the real sandbox). The attack: the model writes
probe.py with write_file and runs `python3 probe.py` through the terminal. The probe
reads the operator's home (which holds HERMES_HOME, as ~/.hermes does) and connects to
host unix sockets; the tool results the fake provider recorded carry none of it."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest

from agent.sandbox.backend import backend
from tests.fakes.script import Reply, ToolCall
from tests.helpers import KEY_B, ask
from tests.sandbox.unix_server import REPLY, serving

pytestmark = [pytest.mark.wire, pytest.mark.skipif(backend()[0] is None, reason=f"no sandbox here: {backend()[1]}")]

OPERATOR = {".npmrc": "FAKE-NPM-TOKEN-11", ".pypirc": "FAKE-PYPI-TOKEN-22",
            ".config/gcloud/application_default_credentials.json": "FAKE-GCLOUD-33",
            ".bash_history": "FAKE-HISTORY-44", ".gitconfig": "FAKE-GITCONFIG-55",
            ".cache/pip/x": "FAKE-CACHE-66"}
PROBE = """import os, socket, sys
home = os.environ["HOME"]
for name in NAMES:
    try:
        print(name, open(os.path.join(home, name)).read())
    except OSError as exc:
        print(name, "refused", exc.errno)
print("home lists", sorted(os.listdir(home)) if os.path.isdir(home) else "nothing")
for path in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(path)
        print("connected", path, s.recv(64).decode())
    except OSError as exc:
        print("socket refused", exc.errno)
"""


def _results(harness) -> str:
    out = []
    for record in harness.fake.requests:
        for message in record.body.get("messages", []):
            for block in message.get("content", []) if isinstance(message.get("content"), list) else []:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    out.append(json.dumps(block.get("content")))
    return "\n".join(out)


def probe(harness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *sockets: str) -> str:
    """The operator's home is tmp_path (HERMES_HOME is tmp_path/hermes_home in it); a
    tenant writes and runs the probe; returns every tool result the provider saw."""
    for name, text in OPERATOR.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text + "\n")
    monkeypatch.setenv("HOME", str(tmp_path))
    harness.config["toolsets"] = ["file", "terminal"]
    server = harness.start()
    code = PROBE.replace("NAMES", repr(list(OPERATOR) + ["hermes_home/config.yaml"]))
    harness.fake.script(Reply(tool_calls=[ToolCall("write_file", {"path": "probe.py", "content": code})]),
                        Reply(tool_calls=[ToolCall("terminal", {"command": "python3 probe.py " + " ".join(sockets)})]),
                        Reply(text="done"))
    ask(harness.client(server, KEY_B), "probe", "run the probe")
    return _results(harness)


def test_a_tenant_reads_nothing_of_the_operators_home(harness, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    seen = probe(harness, tmp_path, monkeypatch)
    assert "refused" in seen and "home lists" in seen, seen  # the probe ran
    assert "FAKE-" not in seen and "provider-key" not in seen, seen
    assert ".npmrc" not in seen.split("home lists", 1)[1]


def test_a_tenant_reaches_no_host_socket(harness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    visible = Path(tempfile.mkdtemp(prefix="hermes-sock-", dir="/var/tmp"))  # seen read-only inside
    try:
        with serving(visible / "db.sock"):
            seen = probe(harness, tmp_path, monkeypatch, str(visible / "db.sock"))
    finally:
        shutil.rmtree(visible, ignore_errors=True)
    assert "socket refused" in seen and REPLY.decode() not in seen, seen


def _tool_names(record) -> list[str]:
    return [tool["name"] for tool in record.body.get("tools", [])]


@pytest.mark.parametrize(("network", "offered"), [(None, False), ("off", False), ("public", True)])
def test_network_off_offers_no_web_tool(harness, network: str | None, offered: bool) -> None:
    """The web tools run in hermes' own process: `sandbox.network: off` (the gateway's
    default) must leave them out of the session's tools from its start."""
    harness.config["toolsets"] = ["file", "web"]
    if network is not None:
        harness.config["sandbox"] = {"network": network}
    server = harness.start()
    harness.fake.script(Reply(tool_calls=[ToolCall("web_fetch", {"url": "http://127.0.0.1:9/"})]),
                        Reply(text="done"))
    ask(harness.client(server, KEY_B), "web", "fetch it")
    first, last = harness.fake.requests[0], harness.fake.last
    assert ("web_fetch" in _tool_names(first)) is offered and "read_file" in _tool_names(first)
    assert _tool_names(first) == _tool_names(last)  # frozen for the session
    if not offered:
        assert "unknown tool 'web_fetch'" in json.dumps(last.body["messages"][-1]["content"])
