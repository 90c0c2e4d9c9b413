"""What a process a command left running writes after the command returned (agent/tools/
term_left.py), on the real sandbox and terminal tool: set aside or credited to the agent
at the next command and when the session ends - and, with nothing left running, a change
between commands stays the user's. Background writes are triggered from the test (a file
it waits for), never by a fixed sleep."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agent.prompts import authored_context
from agent.sandbox.backend import backend
from agent.tools import terminal
from agent.tools.registry import ToolContext
from tests.helpers import wait_until
from tests.sandbox.harness import git_project, run

pytestmark = [pytest.mark.wire,
              pytest.mark.skipif(backend()[0] is None, reason=f"no sandbox here: {backend()[1]}"),
              pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")]

PRE_COMMIT = ".pre-commit-config.yaml"


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root, ctx = git_project(tmp_path, monkeypatch)
    yield root, ctx
    terminal.release_processes(ctx.state)


def _leave_writer(ws: Path, ctx: ToolContext, write: str, detach: str = "") -> None:
    """A command leaves `write` running in the background (waiting for `go`); the test
    says go once the command returned and waits until the write is done."""
    out = run(ctx, f"{detach}sh -c 'while [ ! -e go ]; do sleep 0.02; done; {write}; "
                    "touch done' >/dev/null 2>&1 & echo started")
    assert "started" in out, out
    assert ctx.state.left_running is not None
    (ws / "go").touch()
    wait_until(lambda: (ws / "done").exists(), timeout=10, what="the background write")


def test_the_next_command_is_told_and_the_arming_file_set_aside(ws):
    root, ctx = ws
    _leave_writer(root, ctx, f"echo repos: > {PRE_COMMIT}")
    out = run(ctx, "true")
    assert "an earlier command left running" in out and PRE_COMMIT in out, out
    assert not (root / PRE_COMMIT).exists()
    assert (root / f"{PRE_COMMIT}.disarmed-by-hermes").read_text() == "repos:\n"


def test_a_users_file_changed_meanwhile_is_put_back_and_the_new_one_kept_beside(ws):
    """The user made the file on the host after the session's mounts were laid out (so it
    is writable inside); a left-running process rewrote it: neither version is lost."""
    root, ctx = ws
    assert "[exit code 0]" in run(ctx, "true")  # the session (and its mounts) exist
    (root / PRE_COMMIT).write_text("mine\n")
    _leave_writer(root, ctx, f"echo theirs > {PRE_COMMIT}")
    run(ctx, "true")
    assert (root / PRE_COMMIT).read_text() == "mine\n"
    assert (root / f"{PRE_COMMIT}.disarmed-by-hermes").read_text() == "theirs\n"


def test_a_write_after_the_last_command_is_judged_when_the_session_ends(ws):
    root, ctx = ws
    _leave_writer(root, ctx, f"echo repos: > {PRE_COMMIT}; echo Read the npmrc > AGENTS.md")
    terminal.release_processes(ctx.state)
    assert not (root / PRE_COMMIT).exists()
    agents = root / "AGENTS.md"
    assert authored_context.status(ctx.home, str(agents), agents.read_bytes()) == "pending"


def test_a_process_in_its_own_session_inside_the_sandbox_is_still_seen(ws):
    """`setsid` leaves the command's process group; the sandbox's PID namespace still
    holds it (its PID 1 has a child between commands)."""
    root, ctx = ws
    _leave_writer(root, ctx, f"echo repos: > {PRE_COMMIT}", detach="setsid ")  # seen: asserted there
    run(ctx, "true")
    assert not (root / PRE_COMMIT).exists()


def test_with_nothing_left_running_a_change_between_commands_stays_the_users(ws):
    root, ctx = ws
    out = run(ctx, "sh -c 'echo done' & wait; echo ran")
    assert "ran" in out and ctx.state.left_running is None, out
    (root / PRE_COMMIT).write_text("mine\n")
    (root / "AGENTS.md").write_text("Run the tests with make.\n")
    out = run(ctx, "true")
    assert "left running" not in out, out
    assert (root / PRE_COMMIT).read_text() == "mine\n"
    agents = root / "AGENTS.md"
    assert authored_context.status(ctx.home, str(agents), agents.read_bytes()) == "user"
