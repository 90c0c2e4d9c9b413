"""(root) A command is born in its session's PID namespace by setting the calling thread's
pid_for_children around the fork; after it the thread must be back in hermes' own, or it
can start no thread ("can't start new thread", seen in CI after a Ctrl-C) and its later
children are born in the session's namespace."""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

import pytest

from agent.sandbox import landlock
from agent.sandbox.backend import backend, make_sandbox
from agent.sandbox.joining import CLONE_NEWPID, back_to_own_pid_ns
from agent.sandbox.policy import SandboxSettings

pytestmark = [pytest.mark.wire,
              pytest.mark.skipif(backend()[0] is None, reason=f"no sandbox here: {backend()[1]}"),
              pytest.mark.skipif(os.geteuid() != 0, reason="pid_for_children is set as root only")]


def _children_ns() -> str:
    return os.readlink("/proc/thread-self/ns/pid_for_children")


def _can_start_a_thread() -> bool:
    try:
        thread = threading.Thread(target=lambda: None)
        thread.start()
    except RuntimeError:
        return False
    thread.join(timeout=10)
    return True


def test_after_a_command_the_thread_is_back_in_its_own_pid_namespace(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    box = make_sandbox(SandboxSettings(network="on"), tmp_path / "hh", ws)
    own = os.readlink("/proc/thread-self/ns/pid")
    try:
        for _ in range(3):
            with box.launch(ws) as confine:
                assert subprocess.Popen(["true"], preexec_fn=confine).wait(timeout=20) == 0
            assert _children_ns() == own
            assert _can_start_a_thread()
    finally:
        box.close()


def test_back_to_own_pid_ns_undoes_a_thread_left_in_a_sessions_namespace(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    box = make_sandbox(SandboxSettings(network="on"), tmp_path / "hh", ws)
    own = os.readlink("/proc/thread-self/ns/pid")
    lib = landlock.libc()
    try:
        with box.launch(ws):
            pass  # the session is started
        session_pid = box.session.fds["pid"]  # type: ignore[union-attr]
        assert lib.setns(session_pid, CLONE_NEWPID) == 0  # what a wrong "back" left behind
        assert _children_ns() != own and not _can_start_a_thread()
        back_to_own_pid_ns(lib)
        assert _children_ns() == own and _can_start_a_thread()
    finally:
        back_to_own_pid_ns(lib)
        box.close()
