"""The fork server behind tests/prefork.py, and the pty trampoline.

`python -m tests.prefork_server PATH` imports the provider SDKs and every hermes module
once, listens on the Unix socket PATH and forks one child per request: the child takes
the request's fds 0-2, environment, working directory and argv and runs `hermes_cli` as
`python -m hermes_cli` would (CPython's stdio set-up, exit status, atexit, threads
joined). Importing hermes' own modules ahead is faithful because importing them does
nothing (tests/test_architecture.py `test_nothing_happens_at_import`: no file, no output,
no SDK, no environment read); what a process must import lazily is checked on fresh
interpreters (tests/test_startup_imports.py), never through this server.
`python -S tests/prefork_server.py --tty PATH ARGS` is the trampoline a pty starts.

Protocol (one connection per run): a length-prefixed JSON request {"argv", "env",
"cwd"} with the fds for 0, 1 and 2; the server answers "pid N\\n" after the fork and
"exit STATUS\\n" (a raw wait status) when the child ends. A client that goes away
first (a timeout, a killed pty) takes the child's process group with it.
"""

from __future__ import annotations

import contextlib
import json
import os
import runpy
import selectors
import signal
import socket
import struct
import sys

# The pty trampoline runs under `python -S` (no site-packages, so no editable install):
# the repository root goes first on its path, and hermes_cli's pieces shared with the
# product's warm start (hermes_cli/launch/) are imported where they are used.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from hermes_cli.warm.protocol import field  # noqa: E402 - after the path line above


def _child(request: dict, fds: list[int]) -> None:
    from hermes_cli.launch.child import run_to_end, stdio  # the server has them loaded

    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    for fd in fds:
        if fd > 2:
            os.close(fd)
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    sys.path[0] = os.getcwd()
    stdio()
    sys.argv = [request["main"], *request["argv"]]
    run_to_end(lambda: runpy.run_module("hermes_cli", run_name="__main__", alter_sys=True))


# ---- the server --------------------------------------------------------------------------
def serve(path: str, watch: int | None = None) -> None:
    """Serve on `path` while this process' parent lives (or, given `watch`, that pid)."""
    import importlib.util

    # imported, built and frozen as the warm start server does it (gateway workers too)
    from hermes_cli.launch.server import preload

    preload(skip=())
    spec = importlib.util.find_spec("hermes_cli.__main__")  # not imported: each child does
    assert spec is not None and spec.origin
    main = spec.origin
    parent = os.getppid()
    alive = (lambda: os.getppid() == parent) if watch is None else (lambda: _alive(watch))
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".tmp")
    listener.listen(64)
    os.rename(path + ".tmp", path)  # the client waits for the final name
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    running: dict[int, socket.socket] = {}
    while alive():
        for key, _ in selector.select(timeout=0.02):
            if key.fileobj is listener:
                _start(listener, selector, running, main)
            else:  # a client went away before its child ended (a timeout, a killed pty)
                selector.unregister(key.fileobj)
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(key.data, signal.SIGKILL)
        reap(selector, running)
    for pid in running:
        os.kill(pid, signal.SIGKILL)


def reap(selector: selectors.BaseSelector, running: dict[int, socket.socket]) -> None:
    """Tell each ended child's client its wait status ("exit STATUS")."""
    while running:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
        conn = running.pop(pid, None)
        if conn is not None:
            with contextlib.suppress(KeyError, ValueError):
                selector.unregister(conn)
            with contextlib.suppress(OSError):
                conn.sendall(b"exit %d\n" % status)
            conn.close()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def _start(listener: socket.socket, selector: selectors.BaseSelector,
           running: dict[int, socket.socket], main: str) -> None:
    from hermes_cli.launch.child import read_request  # loaded by the server already

    conn, _ = listener.accept()
    try:
        request, fds = read_request(conn)
    except (OSError, ValueError):
        conn.close()
        return
    request["main"] = main
    pid = os.fork()
    if pid == 0:
        selector.close()
        listener.close()
        for other in running.values():
            other.close()
        conn.close()
        os.setpgid(0, 0)  # its own process group: what a signal to the "job" reaches
        _child(request, fds)
    for fd in fds:
        os.close(fd)
    running[pid] = conn
    conn.sendall(b"pid %d\n" % pid)
    selector.register(conn, selectors.EVENT_READ, pid)


# ---- the pty trampoline ------------------------------------------------------------------
FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGWINCH,
             signal.SIGCONT, signal.SIGUSR1, signal.SIGUSR2)


def _forward(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signum)


def trampoline(path: str, args: list[str]) -> None:
    """The process a pty starts instead of `python -m hermes_cli`: it hands its terminal
    (fds 0-2) to a forked hermes, passes on the signals the terminal sends it (Ctrl-C
    reaches hermes' process group as in a shell) and ends as hermes ended."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(path)
    request = json.dumps({"argv": args, "env": dict(os.environ), "cwd": os.getcwd()}).encode()
    data = struct.pack("!I", len(request)) + request
    sent = socket.send_fds(conn, [data], [0, 1, 2])
    conn.sendall(data[sent:])
    control = b""
    pid = None
    while True:
        piece = conn.recv(4096)
        if not piece:
            os._exit(1)  # the server is gone
        control += piece
        if pid is None and (pid := field(control, b"pid")) is not None:
            for signum in FORWARDED:
                signal.signal(signum, lambda signum, _frame, child=pid: _forward(child, signum))
        status = field(control, b"exit")
        if status is not None:
            break
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
    os._exit(os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    if sys.argv[1] == "--tty":
        trampoline(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) == 4 and sys.argv[2] == "--watch":
        serve(sys.argv[1], int(sys.argv[3]))
    else:
        serve(sys.argv[1])
