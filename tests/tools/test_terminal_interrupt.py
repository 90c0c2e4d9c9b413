"""terminal under a cancelled turn or a flood of output: the whole process group is
killed and the call ends at once with a clear message (regressions of bad-input review)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from agent.cancel import CancelToken
from agent.tools import terminal as terminal_module
from tests.helpers import host_pid, wait_until

pytestmark = pytest.mark.wire  # runs a process or opens a socket


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_cancel_kills_a_running_command_and_its_children(call, ctx):
    cancel = CancelToken()
    ctx.state.cancel = cancel
    ready = ctx.cwd / "bg.pid"

    def cancel_once_started() -> None:  # the file appears after "started" was printed
        wait_until(ready.exists, what="the command to start")
        cancel.cancel()

    threading.Thread(target=cancel_once_started, daemon=True).start()
    result = call("terminal", command="sleep 30 & echo $! > bg.tmp; echo started; mv bg.tmp bg.pid; wait",
                  timeout=60)
    assert not result.ok
    assert "interrupted by the user" in result.content and "started" in result.content
    pid = int((ctx.cwd / "bg.pid").read_text())  # in the session's PID namespace
    wait_until(lambda: host_pid(ctx, pid) is None, timeout=30, what="the background child to die")


def test_endless_output_is_cut_off_by_size(tmp_path):
    code, stopped, output, _ = terminal_module._run("yes flood", tmp_path, timeout=60,
                                                    max_bytes=2_000_000)
    assert stopped == "flood"  # not "timeout": cut by size long before the 60 s limit
    assert "of output cut" in output and len(output) < 60_000
