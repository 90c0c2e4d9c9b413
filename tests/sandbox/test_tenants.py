"""Gateway tenants through the real sandbox: each key's tools see their own workspace
(under HERMES_HOME) and nothing else of HERMES_HOME: not the store, not the config, not
another tenant's workspace, not the keys in the environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.errors import ToolError
from agent.sandbox.backend import backend, make_sandbox
from agent.sandbox.policy import SandboxSettings
from agent.tools import terminal
from agent.tools.registry import ToolContext, ToolState
from gateway.auth import owner_id
from gateway.workspaces import tenant_workspace

pytestmark = [pytest.mark.wire, pytest.mark.skipif(backend()[0] is None, reason=f"no sandbox here: {backend()[1]}")]


def _run(box, ws: Path, hh: Path, command: str) -> str:
    ctx = ToolContext(session_id="t", home=hh, cwd=ws, state=ToolState(sandbox=box), yolo=True)
    try:
        return terminal.terminal({"command": command, "timeout": 20}, ctx)
    except ToolError as exc:
        return str(exc)


def test_tenant_sees_only_its_own_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hh = tmp_path / "hh"
    hh.mkdir()
    (hh / "state.db").write_text("SECRET-MESSAGES-OF-A")
    (hh / "config.yaml").write_text("gateway: {api_keys: [SECRET-KEY-A]}")
    (hh / ".env").write_text("HERMES_API_KEY=SECRET-HERMES-KEY\n")
    monkeypatch.setenv("HERMES_API_KEY", "SECRET-HERMES-KEY")
    monkeypatch.setenv("OPENAI_API_KEY", "SECRET-PROVIDER-KEY")
    ws_a = tenant_workspace(hh, owner_id("key-a"))
    ws_b = tenant_workspace(hh, owner_id("key-b"))
    (ws_a / "a-notes.txt").write_text("SECRET-WORK-OF-A")
    box_b = make_sandbox(SandboxSettings(), hh, ws_b)
    assert box_b.active and box_b.policy.exposed == (str(ws_b),)

    out = _run(box_b, ws_b, hh, f"cat {ws_a}/a-notes.txt {hh}/state.db {hh}/config.yaml {hh}/.env; "
                                f"env; grep -r SECRET {hh} ..; echo mine > own.txt && cat own.txt")
    assert "SECRET" not in out, out
    assert "mine" in out and (ws_b / "own.txt").read_text() == "mine\n"
    listing = _run(box_b, ws_b, hh, f"ls -aR {hh}")
    assert "a-notes.txt" not in listing and ws_a.name not in listing and "own.txt" in listing
    assert ws_a != ws_b and oct(ws_b.stat().st_mode & 0o777) == "0o700"
