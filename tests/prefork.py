"""A fork server for the real `hermes` CLI in tests (`tests.helpers.hermes` uses it).

Most of a `hermes -q` process' CPU is importing the provider SDKs (anthropic ~1.3 s,
openai ~0.5 s). The server imports those third-party libraries once and forks one child
per `hermes` run: the child is still its own process with the test's argv, environment,
working directory, stdin/stdout/stderr, exit status and signals, and it imports and runs
the CLI (every hermes module) from scratch, exactly as `python -m hermes_cli` would.
Runs whose interpreter settings differ (PYTHON*, LANG, LC_*) or that need a command
wrapper (namespaces) use a plain subprocess instead; HERMES_TEST_PREFORK=0 turns the
server off altogether. Under pytest-xdist the workers share one server (the controller
makes a directory for it, tests/conftest.py; the first worker that needs it starts it).
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import socket
import struct
import sys
import threading
from collections.abc import Callable

from hermes_cli.warm.place import interpreter_env
from hermes_cli.warm.protocol import field as _field

SERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "prefork_server.py")


# ---- the client (the test process) -------------------------------------------------------
SHARED = "HERMES_TEST_PREFORK_DIR"  # set by an xdist controller: one server for its workers


class _Server:
    """A running fork server: started here, or (`shared`) found in the shared directory
    where another worker of the same run started it."""

    def __init__(self, env: dict[str, str], directory: str | None = None) -> None:
        import subprocess
        import tempfile
        import time

        self.key = interpreter_env(env)
        self.shared = directory is not None
        self.dir = directory or tempfile.mkdtemp(prefix="hermes-prefork-")
        self.path = os.path.join(self.dir, "socket")
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        # a shared server lives as long as the xdist controller (this worker's parent),
        # not as long as the worker that happened to start it
        watch = ["--watch", str(os.getppid())] if self.shared else []
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)  # a dead server's
        with open(os.path.join(self.dir, "log"), "wb") as log:
            self.process: subprocess.Popen[bytes] | None = subprocess.Popen(
                [sys.executable, "-m", "tests.prefork_server", self.path, *watch], env=env,
                cwd=root, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                start_new_session=True)
        self.pid = self.process.pid
        deadline = time.monotonic() + 120
        while not os.path.exists(self.path):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.process.kill()
                self.process.wait()
                with open(os.path.join(self.dir, "log"), encoding="utf-8", errors="replace") as f:
                    raise RuntimeError(f"the hermes fork server did not start:\n{f.read()}")
            time.sleep(0.01)  # a start-up wait with a deadline, not a fixed sleep
        if self.shared:
            with open(os.path.join(self.dir, "server.json"), "w", encoding="utf-8") as f:
                json.dump({"pid": self.pid, "key": self.key}, f)

    @classmethod
    def attach(cls, directory: str) -> _Server | None:
        """The server another worker started in `directory`, if it still runs."""
        try:
            with open(os.path.join(directory, "server.json"), encoding="utf-8") as f:
                found = json.load(f)
        except (OSError, ValueError):
            return None
        if not _running(found["pid"]):
            return None
        server = cls.__new__(cls)
        server.key, server.shared, server.dir = found["key"], True, directory
        server.path, server.process, server.pid = os.path.join(directory, "socket"), None, found["pid"]
        return server

    def alive(self) -> bool:
        if self.process is not None and self.process.poll() is not None:
            return False
        return _running(self.pid)

    def stop(self) -> None:
        """Stop a server of this process' own; a shared one is the controller's to stop."""
        import shutil

        if self.shared or self.process is None:
            return
        self.process.kill()
        self.process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def _running(pid: int) -> bool:
    """`pid` is a live process (not a zombie)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        return False


def share_across_workers() -> Callable[[], None]:
    """For an xdist controller: its workers share one fork server (started by the first
    that needs it; one import of the SDKs instead of one per worker). Returns the
    clean-up that stops it at the end of the run."""
    import shutil
    import tempfile

    directory = tempfile.mkdtemp(prefix="hermes-prefork-")
    os.environ[SHARED] = directory

    def stop() -> None:
        server = _Server.attach(directory)
        if server is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(server.pid, signal.SIGKILL)
        os.environ.pop(SHARED, None)
        shutil.rmtree(directory, ignore_errors=True)

    return stop


_server: _Server | None = None
last_pid: int | None = None  # the child of the latest run (for tests of this module)


def _server_for(env: dict[str, str]) -> _Server | None:
    global _server
    if os.environ.get("HERMES_TEST_PREFORK", "1") == "0":
        return None
    if _server is not None and not _server.alive():
        _server.stop()
        _server = None
    if _server is None:
        directory = os.environ.get(SHARED)
        if directory and os.path.isdir(directory):
            _server = _shared_server(env, directory)
        else:
            import atexit

            _server = _Server(env)
            atexit.register(_server.stop)
    return _server if interpreter_env(env) == _server.key else None


def _shared_server(env: dict[str, str], directory: str) -> _Server:
    """The run's shared server: attached to, or started by whichever worker asks first."""
    import fcntl

    with open(os.path.join(directory, "lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when closed
        return _Server.attach(directory) or _Server(env, directory)


def run(command: list[str], args: list[str], env: dict[str, str], cwd: object, timeout: float,
        input_text: str | None):
    """`subprocess.run(command + args, capture_output=True, text=True, ...)` through the
    fork server; None when this run needs a fresh interpreter (the caller runs one)."""
    import locale
    import subprocess

    server = _server_for(env)
    if server is None:
        return None
    encoding = locale.getpreferredencoding(False)
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    in_r, in_w = os.pipe() if input_text is not None else (_stdin(), -1)
    request = json.dumps({"argv": args, "env": env,
                          "cwd": os.fspath(cwd) if cwd is not None else os.getcwd()}).encode()
    data = struct.pack("!I", len(request)) + request
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(server.path)
        sent = socket.send_fds(conn, [data], [in_r, out_w, err_w])
        conn.sendall(data[sent:])
    finally:
        for fd in (out_w, err_w) + ((in_r,) if in_w >= 0 else ()):
            os.close(fd)
    if in_w >= 0:
        payload = input_text.encode(encoding)  # type: ignore[union-attr]
        threading.Thread(target=_feed, args=(in_w, payload), daemon=True).start()
    try:
        out, err, status, timed_out = _collect(conn, out_r, err_r, timeout)
    finally:
        conn.close()
        os.close(out_r)
        os.close(err_r)
    argv = [*command, *args]
    if timed_out:
        raise subprocess.TimeoutExpired(argv, timeout, out, err)
    if status is None:
        raise RuntimeError(f"the hermes fork server lost the run of {args!r}")

    def text(raw: bytes) -> str:  # as subprocess' text mode: locale encoding, \n newlines
        return raw.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")

    return subprocess.CompletedProcess(argv, os.waitstatus_to_exitcode(status), text(out),
                                       text(err))


def _collect(conn: socket.socket, out_r: int, err_r: int, timeout: float,
             ) -> tuple[bytes, bytes, int | None, bool]:
    global last_pid
    """Read stdout and stderr to their ends and the child's wait status; past `timeout`
    kill the child (as subprocess.run does) and report timed_out."""
    import time

    chunks: dict[int, list[bytes]] = {out_r: [], err_r: []}
    control = b""
    last_pid = None
    selector = selectors.DefaultSelector()
    for fd in (out_r, err_r):
        selector.register(fd, selectors.EVENT_READ)
    selector.register(conn, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    timed_out = False
    with selector:
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                if timed_out:
                    break
                timed_out, deadline = True, time.monotonic() + 30
                if last_pid is not None:
                    os.kill(last_pid, signal.SIGKILL)
                continue
            for key, _ in selector.select(timeout=left):
                if key.fileobj is conn:
                    piece = conn.recv(4096)
                    control += piece
                else:
                    piece = os.read(key.fd, 65536)
                    chunks[key.fd].append(piece)
                if not piece:
                    selector.unregister(key.fileobj)
            last_pid = _field(control, b"pid")
    return (b"".join(chunks[out_r]), b"".join(chunks[err_r]), _field(control, b"exit"),
            timed_out)


def _feed(fd: int, payload: bytes) -> None:
    try:
        _write_all(fd, payload)
    except OSError:
        pass  # the child closed its stdin early, as subprocess.run tolerates
    finally:
        os.close(fd)


def tty_command(args: list[str], env: dict[str, str]) -> list[str] | None:
    """The command line that runs `hermes ARGS` in a pty through the fork server (spawn it
    with `env`); None when this run needs a fresh interpreter."""
    server = _server_for(env)
    if server is None:
        return None
    return [sys.executable, "-S", SERVER, "--tty", server.path, *args]


def _stdin() -> int:
    """fd 0, which a plain subprocess would inherit (/dev/null when it is closed)."""
    try:
        os.fstat(0)
        return 0
    except OSError:
        return os.open(os.devnull, os.O_RDONLY)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
