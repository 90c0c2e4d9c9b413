"""The keeper of one run: the server's fork that forks the run itself, tells the client
the run's pid, takes the run's process group down when the client goes away first, and
reports the run's wait status ("exit STATUS") when it ends.

It is a process of its own, not the server, so that a run already forked ends with its
own exit status whatever happens to the server (stopped, superseded, killed). It never
reads the client's request: the run does (hermes_cli/launch/child.py `serve`), so the
run's environment, argv and fds reach that process only.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import socket
from typing import NoReturn

from hermes_cli.launch.title import set_title

#: the client is gone (killed, its terminal closed) or its end of the socket broke
GONE = select.POLLRDHUP | select.POLLHUP | select.POLLERR


def keep(conn: socket.socket) -> NoReturn:
    """In the server's fork for one accepted run; never returns."""
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    os.setpgid(0, 0)  # a signal to the server's group is not one to its runs
    set_title(["hermes-warm", "keeper"])
    try:
        pid = os.fork()
    except OSError:  # the client reads no pid: it runs cold
        os._exit(1)
    if pid == 0:
        from hermes_cli.launch import child  # loaded by the server already

        child.serve(conn)
    with contextlib.suppress(OSError):
        os.setpgid(pid, pid)  # before the client learns the pid: its signals reach the run
    try:
        conn.sendall(b"pid %d\n" % pid)
        _watch(conn, pid)
    except OSError:
        _kill(pid)
    _, status = os.waitpid(pid, 0)
    with contextlib.suppress(OSError):
        conn.sendall(b"exit %d\n" % status)
    os._exit(0)


def _watch(conn: socket.socket, pid: int) -> None:
    """Until the run ends: if the client goes first, its run's group goes too. Only a
    hang-up is watched on the socket, never data (the run reads the request from it)."""
    handle = os.pidfd_open(pid)
    poller = select.poll()
    poller.register(handle, select.POLLIN)
    poller.register(conn, GONE)
    try:
        while True:
            ready = dict(poller.poll())
            if handle in ready:
                return
            if ready.get(conn.fileno(), 0) & GONE:
                poller.unregister(conn)
                _kill(pid)
    finally:
        os.close(handle)


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)
