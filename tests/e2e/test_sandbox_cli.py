"""End to end: the real CLI with `-q --yolo` against the fake provider; the model's
tool calls try to destroy a planted fake home and read planted secrets. Nothing changes,
and no planted secret reaches the provider or the store.

The child's temp dir is tmp_path/tmp (TMPDIR), so its writable roots are the workspace
and that: the fake home beside them is outside both, as a real home is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.sandbox.backend import backend
from tests.fakes import Reply, ToolCall
from tests.helpers import anthropic_env, hermes
from tests.sandbox.corpus import VERBATIM
from tests.sandbox.harness import SECRETS, snapshot

pytestmark = pytest.mark.skipif(backend()[0] is None, reason=f"no sandbox here: {backend()[1]}")

COMMANDS = ["$(echo rm) -rf ~", "rm -rf ${HOME:?}", "> ~/.bashrc", "mv ~ /tmp", "env",
            "env | grep API_KEY", "cat ~/.ssh/id_rsa", "cat $HERMES_HOME/.env",
            "python3 -c 'import os; os.system(\"rm -rf \" + os.path.expanduser(\"~\"))'",
            "echo ok > in-workspace.txt"]


def test_yolo_oneshot_cannot_touch_home_or_leak(fake_provider, hermes_home: Path, tmp_path: Path) -> None:
    home, ws, tmp = tmp_path / "home", tmp_path / "ws", tmp_path / "tmp"
    for d in (home / ".ssh", ws, tmp):
        d.mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(SECRETS["ssh"])
    (home / ".bashrc").write_text("alias ll='ls -l'\n")
    (hermes_home / ".env").write_text(f"MY_SERVICE_CONFIG={SECRETS['custom']}\n")
    assert set(COMMANDS[:4]) <= set(VERBATIM) | set(COMMANDS)
    calls = [ToolCall("terminal", {"command": c}) for c in COMMANDS]
    calls += [ToolCall("read_file", {"path": "~/.ssh/id_rsa"}),
              ToolCall("read_file", {"path": str(hermes_home / ".env")}),
              ToolCall("write_file", {"path": "~/.bashrc", "content": "pwned"}),
              ToolCall("write_file", {"path": "../outside.txt", "content": "pwned"})]
    fake_provider.script(Reply(tool_calls=calls), Reply(text="done"))
    before = snapshot(home)
    env = anthropic_env(hermes_home, fake_provider)
    env.update(HOME=str(home), TMPDIR=str(tmp), HERMES_API_KEY=SECRETS["hermes_key"],
               ANTHROPIC_API_KEY=SECRETS["provider"])
    result = hermes(["-q", "clean up", "--yolo"], env, cwd=ws, timeout=120)
    assert result.returncode == 0, result.stderr
    assert snapshot(home) == before
    assert not (tmp_path / "outside.txt").exists() and (ws / "in-workspace.txt").read_text() == "ok\n"
    sent = json.dumps([r.body for r in fake_provider.requests])
    stored = (hermes_home / "state.db").read_bytes() + (hermes_home / "state.db-wal").read_bytes() \
        if (hermes_home / "state.db-wal").exists() else (hermes_home / "state.db").read_bytes()
    for secret in SECRETS.values():
        assert secret not in sent and secret.encode() not in stored
    assert sent.count("[exit code") == len(COMMANDS) and "Read-only file system" in sent
    assert "secret location" in sent and "outside the directories tools may write" in sent


def test_no_sandbox_is_warned_and_still_keeps_secrets_out(fake_provider, hermes_home: Path, tmp_path: Path) -> None:
    fake_provider.script(Reply(tool_calls=[ToolCall("terminal", {"command": "env"})]), Reply(text="ok"))
    env = anthropic_env(hermes_home, fake_provider)
    env.update(HERMES_API_KEY=SECRETS["hermes_key"], ANTHROPIC_API_KEY=SECRETS["provider"])
    result = hermes(["-q", "hi", "--yolo", "--no-sandbox"], env, cwd=tmp_path, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("the tool sandbox is OFF") == 1
    sent = json.dumps([r.body for r in fake_provider.requests])
    assert "[exit code 0]" in sent and SECRETS["hermes_key"] not in sent and SECRETS["provider"] not in sent
