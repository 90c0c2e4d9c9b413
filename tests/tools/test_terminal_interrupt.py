"""terminal under a cancelled turn or a flood of output: the whole process group is
killed and the call ends at once with a clear message (regressions of bad-input review)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from agent.cancel import CancelToken
from agent.tools import terminal as terminal_module

pytestmark = pytest.mark.wire  # runs a process or opens a socket


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_cancel_kills_a_running_command_and_its_children(call, ctx):
    cancel = CancelToken()
    ctx.state["cancel"] = cancel
    threading.Timer(0.5, cancel.cancel).start()
    start = time.monotonic()
    result = call("terminal", command="sleep 30 & echo $! > bg.pid; echo started; wait", timeout=60)
    assert time.monotonic() - start < 5
    assert not result.ok
    assert "interrupted by the user" in result.content and "started" in result.content
    pid = int((ctx.cwd / "bg.pid").read_text())
    deadline = time.monotonic() + 3
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)


def test_endless_output_is_cut_off_by_size(tmp_path):
    out, cwd_file = tmp_path / "out", tmp_path / "cwd"
    start = time.monotonic()
    code, stopped = terminal_module._run("yes flood", tmp_path, out, cwd_file, timeout=60,
                                         max_bytes=2_000_000)
    assert stopped == "flood"
    assert time.monotonic() - start < 10
    assert out.stat().st_size < 200_000_000
