"""The arming guard never touches hermes' own home: `cd ~ && ls` (and `cd ..`, `cd /`,
`pushd ~`) in a workspace under $HOME, with HERMES_HOME = ~/.hermes, leaves every byte
of ~/.hermes as it was. Through the terminal tool in the kernel sandbox (wire): the bug
was the guard scanning the command's final working directory, whose `.hermes/` it had
never snapshotted, and deleting it as "planted"."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.sandbox.backend import backend
from agent.tools import terminal
from agent.tools.registry import ToolContext
from tests.sandbox.harness import snapshot

pytestmark = [pytest.mark.wire,
              pytest.mark.skipif(backend()[0] is None, reason=f"no sandbox here: {backend()[1]}")]

STORE = {"config.yaml": "model: x\n", ".env": "KEY=secret\n",
         "state.db": "SQLite format 3\0rows\n", "state.db-wal": "wal\n",
         "memories/MEMORY.md": "the user likes tea\n", "hooks.yaml": "on_start: x\n"}


@pytest.mark.parametrize("command", ["cd ~ && ls", "cd .. && ls -a", "cd / && pwd",
                                     "pushd ~ >/dev/null && ls -a", "cd ~/.hermes; ls"])
def test_moving_out_of_the_workspace_leaves_hermes_home_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    home = tmp_path / "home"
    store, ws = home / ".hermes", home / "project"
    for rel, text in STORE.items():
        (store / rel).parent.mkdir(parents=True, exist_ok=True)
        (store / rel).write_text(text)
    ws.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("HERMES_HOME", str(store))
    before = snapshot(store)
    ctx = ToolContext(session_id="s", home=store, cwd=ws, yolo=True)
    try:
        result = terminal.terminal({"command": command}, ctx)
        assert "[exit code 0]" in result, result
        assert "put back" not in result and "removed" not in result, result
        assert snapshot(store) == before
        # and a second command from there (the session's cwd is now outside the workspace)
        again = terminal.terminal({"command": "pwd; ls -a; mkdir -p .hermes 2>/dev/null; true"}, ctx)
        assert "[exit code 0]" in again, again
        assert snapshot(store) == before
    finally:
        terminal.release_processes(ctx.state)
