"""terminal: output and exit code, persistent cwd, caps, timeouts, dangerous commands."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from agent.tools import terminal as terminal_module
from tests.helpers import host_pid, wait_until

pytestmark = pytest.mark.wire  # runs a process or opens a socket


def _alive(pid: int) -> bool:
    """Running (not gone, not a zombie waiting for a reaper)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_output_and_exit_code(call):
    result = call("terminal", command="echo out; echo err >&2; exit 3")
    assert result.ok
    assert result.content == "out\nerr\n[exit code 3]"


def test_stdin_is_closed(call):
    result = call("terminal", command="cat; echo done", timeout=10)
    assert result.content == "done\n[exit code 0]"  # an open stdin would have timed out


def test_cwd_persists_across_calls(call, ctx):
    (ctx.cwd / "sub" / "deeper").mkdir(parents=True)
    call("terminal", command="cd sub/deeper")
    assert call("terminal", command="pwd").content == f"{ctx.cwd}/sub/deeper\n[exit code 0]"
    assert ctx.state.cwd == str(ctx.cwd / "sub" / "deeper")
    failed = call("terminal", command="cd /does/not/exist")
    assert "[exit code 1]" in failed.content
    assert ctx.state.cwd == str(ctx.cwd / "sub" / "deeper")
    # file tools follow the same directory
    call("terminal", command="echo hi > note.txt")
    assert call("read_file", path="note.txt").content == "     1|hi"


def test_vanished_cwd_falls_back_to_the_session_start(call, ctx):
    (ctx.cwd / "gone").mkdir()
    call("terminal", command="cd gone")
    (ctx.cwd / "gone").rmdir()
    result = call("terminal", command="pwd")
    assert "previous working directory is gone" in result.content
    assert f"{ctx.cwd}\n[exit code 0]" in result.content


def test_output_is_capped_keeping_head_and_tail(call):
    result = call("terminal", command="echo START; head -c 200000 /dev/zero | tr '\\0' x; echo; echo END")
    assert result.ok
    assert result.content.startswith("START\n")
    assert result.content.endswith("END\n[exit code 0]")
    assert "characters of output cut" in result.content
    assert len(result.content) < terminal_module.MAX_OUTPUT + 200


def test_timeout_kills_the_whole_process_group(call, ctx):
    result = call(
        "terminal",
        command="echo $$ > pids; sleep 30 & echo $! >> pids; sleep 30",
        timeout=1,
    )
    assert not result.ok and "timed out after 1s" in result.content
    pids = [int(p) for p in (ctx.cwd / "pids").read_text().split()]  # the session's PID namespace
    assert len(pids) == 2
    wait_until(lambda: not any(host_pid(ctx, p) for p in pids), timeout=30, what="the group to die")


def test_background_process_holding_output_does_not_block(call, ctx):
    result = call("terminal", command="sleep 20 & echo $! > bg.pid; echo started")
    pid = host_pid(ctx, int((ctx.cwd / "bg.pid").read_text()))
    try:
        assert result.content == "started\n[exit code 0]"
        assert pid is not None and _alive(pid)  # returned before the sleeper ended
    finally:
        if pid is not None:
            os.kill(pid, signal.SIGKILL)


def test_dangerous_command_refused_without_approver(call):
    result = call("terminal", command="git push --force origin main")
    assert not result.ok
    assert "refused" in result.content and "--yolo" in result.content


def test_dangerous_command_asks_the_approver(call, ctx):
    asked: list[tuple[str, str]] = []
    ctx.approve = lambda command, reason: asked.append((command, reason)) or False
    declined = call("terminal", command="git push -f origin main")
    assert not declined.ok and "declined" in declined.content
    assert asked and asked[0][0] == "git push -f origin main" and "force-push" in asked[0][1]
    ctx.approve = lambda command, reason: True
    approved = call("terminal", command="git push -f origin main")
    assert approved.ok and "[exit code 128]" in approved.content  # not a repository: harmless


def test_yolo_runs_without_asking(call, ctx):
    ctx.yolo = True
    ctx.approve = lambda command, reason: (_ for _ in ()).throw(AssertionError("asked"))
    result = call("terminal", command="git push -f origin main")
    assert result.ok and "[exit code 128]" in result.content


def test_ordinary_command_never_asks(call, ctx):
    ctx.approve = lambda command, reason: (_ for _ in ()).throw(AssertionError("asked"))
    assert call("terminal", command="mkdir -p build && rm -rf build/").ok
