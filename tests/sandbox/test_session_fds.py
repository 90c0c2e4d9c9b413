"""A session's namespace descriptors closed by someone else in hermes (the flaky
"sandbox setns mnt: Invalid argument" on a fresh session's first command, and a session's
background server gone at its second): the number is reused by another file, so setns
gets a file that is not a namespace. The session notices before the fork and says which
descriptor broke, never closes the number's new owner, and the next command gets a
fresh session."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agent.sandbox.backend import SetupError, backend, make_sandbox
from agent.sandbox.policy import SandboxSettings
from agent.tools import terminal
from agent.tools.registry import ToolContext, ToolState

pytestmark = [pytest.mark.wire, pytest.mark.skipif(backend()[0] is None, reason=f"no sandbox here: {backend()[1]}")]


@pytest.mark.parametrize("kind", ["mnt", "pid"])
def test_a_namespace_fd_closed_elsewhere_is_named_and_its_new_owner_kept(tmp_path: Path, kind: str) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    box = make_sandbox(SandboxSettings(network="on"), tmp_path / "hh", ws)
    reused = -1
    try:
        with box.launch(ws) as confine:  # the session starts; one command runs
            assert subprocess.Popen(["true"], preexec_fn=confine).wait(timeout=20) == 0
        number = box.session.fds[kind]  # type: ignore[union-attr]
        os.close(number)  # the stray close: someone else's double close hits this number ...
        reused = os.open("/dev/null", os.O_RDONLY | os.O_CLOEXEC)  # ... and it is taken again
        if reused != number:
            os.dup2(reused, number)
            os.close(reused)
            reused = number
        with pytest.raises(SetupError) as raised, box.launch(ws):
            pass
        said = str(raised.value)
        assert f"{kind} namespace descriptor (fd {number})" in said and "/dev/null" in said, said
        assert box.session is None
        assert os.readlink(f"/proc/self/fd/{reused}") == "/dev/null"  # its new owner's, still open
        with box.launch(ws) as confine:  # the next command: a fresh session
            assert subprocess.Popen(["true"], preexec_fn=confine).wait(timeout=20) == 0
    finally:
        box.close()
        if reused >= 0:
            os.close(reused)


def test_the_terminal_says_when_its_session_was_restarted_broken(tmp_path: Path) -> None:
    """The command after the break runs (in a fresh session) and the model is told that
    the old session's background processes and /tmp are gone, and why."""
    ws, hh = tmp_path / "ws", tmp_path / "hh"
    ws.mkdir()
    box = make_sandbox(SandboxSettings(network="on"), hh, ws)
    ctx = ToolContext(session_id="s", home=hh, cwd=ws, state=ToolState(sandbox=box), yolo=True)
    reused = -1
    try:
        assert "[exit code 0]" in terminal.terminal({"command": "echo kept > /tmp/k"}, ctx)
        number = box.session.fds["mnt"]  # type: ignore[union-attr]
        os.close(number)
        reused = os.open("/dev/null", os.O_RDONLY | os.O_CLOEXEC)
        if reused != number:
            os.dup2(reused, number)
            os.close(reused)
            reused = number
        out = terminal.terminal({"command": "cat /tmp/k 2>&1; echo ran"}, ctx)
        assert "the sandbox session was restarted" in out and f"mnt namespace descriptor (fd {number})" in out, out
        assert "ran" in out and "kept" not in out, out
        assert "restarted" not in terminal.terminal({"command": "true"}, ctx)  # said once
    finally:
        terminal.release_processes(ctx.state)
        if reused >= 0:
            os.close(reused)
