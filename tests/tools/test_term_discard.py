"""The pipe of a finished command that a background child still holds is drained by one
thread (agent/tools/term_output.py `_Discard`); when no thread can be started - hermes is
shutting down after a Ctrl-C mid-command - the pipe is closed instead of the tool failing
with "can't start new thread" (seen in CI as the stored tool result)."""

from __future__ import annotations

import os
import threading

from agent.tools.term_output import _Discard
from tests.helpers import wait_until


class NoThreads(threading.Thread):
    def start(self) -> None:
        raise RuntimeError("can't start new thread")


def test_without_a_thread_the_pipe_is_closed_and_nothing_raises() -> None:
    read, write = os.pipe()
    _Discard(thread=NoThreads).adopt(read)
    try:
        os.fstat(read)
        closed = False
    except OSError:
        closed = True
    assert closed
    try:
        os.write(write, b"x")
        broken = False
    except BrokenPipeError:
        broken = True
    assert broken  # the background writer learns the call is over
    os.close(write)


def test_with_a_thread_the_pipe_is_drained_until_its_writer_closes() -> None:
    read, write = os.pipe()
    discard = _Discard()
    discard.adopt(read)
    os.write(write, b"late output " * 1000)
    os.close(write)
    wait_until(lambda: read not in discard._fds, timeout=10, what="the drained pipe closed")
