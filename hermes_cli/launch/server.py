"""The warm server: `python -m hermes_cli.launch.server SOCKET` imports the provider SDKs
and every hermes module once, then forks one keeper per run a client hands it.

Protocol (one connection per run): the byte RUN, then a length-prefixed JSON request
{"argv", "argv0", "env", "cwd", "umask", "limits"} sent with the client's fds 0-2 and a
terminal channel. The server reads the byte only and forks: the request is read by the
run (the keeper's own fork, hermes_cli/launch/child.py), so no run's environment (API
keys), argv or fds ever enter the server's memory, which every later run is forked from.
The keeper (hermes_cli/launch/keeper.py) answers "pid N\\n" and "exit STATUS\\n" (a raw
wait status) when the run ends, whatever became of the server meanwhile; a client that
goes away first takes the run's process group with it. An operation (`hermes warm
status|stop`) is a length-prefixed JSON object without the byte; asking is no activity.
Only a process of the same user in the same namespaces as the server is served: a
command the sandbox runs (its own user and mount namespaces) is refused even if it could
reach the socket. Exits after HERMES_WARM_IDLE seconds without a run (15 minutes unless
configured: hermes_cli/warm/settings.py), or when another server took its socket's name.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib
import json
import os
import selectors
import signal
import socket
import struct
import sys
import time
from pathlib import Path

from hermes_cli.warm import place
from hermes_cli.warm.place import IDLE_SECONDS, PACKAGES
from hermes_cli.warm.protocol import RUN

#: third-party modules every run needs, beside the provider SDKs (most of a cold start's
#: CPU; agent.providers.registry.sdk_modules() names those)
PRELOAD = ("httpx", "httpcore2", "h11", "anyio", "truststore",  # what a first request imports
           "typer", "rich.console", "rich.markdown", "rich.live", "yaml", "pydantic",
           "sqlite_utils", "acp", "genai_prices", "genai_prices.data", "prompt_toolkit",
           "prompt_toolkit.shortcuts")
NAMESPACES = ("mnt", "user", "pid", "net")
NOT_SERVED = ("gateway",)  # its own long-lived process: its chat SDKs would only cost memory
#: which interpreter and hermes source tree a server serves (its fingerprint: which state)
INSTALL = place.installation()
OPERATION_LIMIT = 4096  # {"op": "status"}: never more
POLL_SECONDS = 15.0  # how often an idle server looks at the clock and its socket's name


def preload(skip: tuple[str, ...] = NOT_SERVED) -> None:
    """Import the SDKs, the modules a run needs and every hermes package but `skip`, build
    the SDK models every call validates (`registry.sdk_prebuilt()`), then put it all out
    of the collector's sight (`gc.freeze`): a child's collections no longer walk - and
    copy-on-write - objects that live as long as the process (half of a forked `hermes
    -q`'s CPU). tests/prefork.py's fork server preloads the same way."""
    import gc
    import pkgutil

    from agent.providers.registry import sdk_modules, sdk_prebuilt

    gc.disable()  # nothing to collect while importing
    for name in (*sdk_modules(), *PRELOAD):
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    for package in PACKAGES:
        if package in skip:
            continue
        module = importlib.import_module(package)
        for info in pkgutil.walk_packages(module.__path__, package + "."):
            if not info.name.endswith("__main__") and info.name != __name__:
                with contextlib.suppress(ImportError):  # an optional extra not installed
                    importlib.import_module(info.name)
    for dotted in sdk_prebuilt():
        module_name, _, model = dotted.partition(":")
        with contextlib.suppress(AttributeError, ImportError):  # a newer SDK dropped it
            getattr(importlib.import_module(module_name), model).model_rebuild()
    gc.collect()
    gc.freeze()
    gc.enable()


def peer_allowed(conn: socket.socket) -> bool:
    """The connecting process is this user's and sees the system as the server does."""
    raw = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, _gid = struct.unpack("3i", raw)
    if uid != os.getuid() or pid <= 0:
        return False
    try:
        return all(os.readlink(f"/proc/{pid}/ns/{ns}") == os.readlink(f"/proc/self/ns/{ns}")
                   for ns in NAMESPACES)
    except OSError:
        return False


def read_operation(conn: socket.socket, first: bytes) -> object:
    """An operation's name: {"op": "status" | "stop"}, length-prefixed, no fds."""
    head = first + _exactly(conn, 3)
    (size,) = struct.unpack("!I", head)
    if size > OPERATION_LIMIT:
        raise ValueError("an operation is a short JSON object")
    request = json.loads(_exactly(conn, size))
    if not isinstance(request, dict) or "op" not in request:
        raise ValueError("an operation names its op")
    return request["op"]


def _exactly(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        piece = conn.recv(size - len(data))
        if not piece:
            raise ValueError("truncated request")
        data += piece
    return data


class Server:
    def __init__(self, path: Path, lock: int) -> None:
        self.path = path
        self.lock = lock  # held while the server lives (a child lets go of it)
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.selector = selectors.DefaultSelector()
        self.running: set[int] = set()  # the keepers of the runs not ended yet
        self.inode = 0
        self.last = time.monotonic()
        self.started = time.time()
        self.runs = 0
        self.stopping = False
        self.idle_limit = idle_limit()
        self.closed = False  # the socket is gone: only the running runs are left
        # SIGCHLD wakes the loop through this pipe, so an exit is reported at once
        self.wake_r, self.wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.set_wakeup_fd(self.wake_w, warn_on_full_buffer=False)
        self.selector.register(self.wake_r, selectors.EVENT_READ)

    def bind(self) -> None:
        temporary = self.path.with_name(f"{self.path.name}.{os.getpid()}")
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
        self.listener.bind(str(temporary))
        self.listener.listen(64)
        os.chmod(temporary, 0o600)
        os.rename(temporary, self.path)  # a client only ever sees a listening socket
        self.inode = os.stat(self.path).st_ino
        self.selector.register(self.listener, selectors.EVENT_READ)

    def ours(self) -> bool:
        try:
            return os.stat(self.path).st_ino == self.inode
        except OSError:
            return False

    def serve(self) -> None:
        while True:
            for key, _ in self.selector.select(timeout=self._next_look()):
                if key.fileobj is self.listener:
                    self._start()
                else:  # SIGCHLD: a keeper ended (its run did)
                    with contextlib.suppress(BlockingIOError):
                        os.read(self.wake_r, 512)
            self._reap()
            if self._idle() or self.stopping or not self.ours():
                self._close()  # no new runs; the running ones are seen to their end
            if self.closed and not self.running:
                break

    def _idle(self) -> bool:
        return not self.running and time.monotonic() - self.last >= self.idle_limit

    def _next_look(self) -> float:
        """Until the idle limit is reached (or POLL_SECONDS, to see a taken name)."""
        left = self.last + self.idle_limit - time.monotonic()
        return max(0.05, min(POLL_SECONDS, left if not self.running else POLL_SECONDS))

    def _close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.selector.unregister(self.listener)
        self.listener.close()
        if self.ours():
            with contextlib.suppress(OSError):
                self.path.unlink()
            with contextlib.suppress(OSError):
                self.path.with_suffix(".lock").unlink()

    def retire_older(self) -> None:
        """Stop the servers of this installation's earlier fingerprints (an upgrade, an
        edited module): one resident process per installation, not one per edit."""
        from hermes_cli.warm.protocol import ask

        for other in self.path.parent.glob("*.sock"):
            if other != self.path:
                answer = ask(other, "status", timeout=1.0)
                if answer is not None and answer.get("install") == INSTALL:
                    ask(other, "stop", timeout=1.0)

    def _start(self) -> None:
        """A connection: a run (forked at once: its request is read by the run itself,
        never here) or an operation (answered; not activity: the idle clock goes on)."""
        conn, _ = self.listener.accept()
        try:
            if not peer_allowed(conn):
                raise PermissionError("peer refused")
            conn.settimeout(5.0)  # a client that never says what it wants is dropped
            first = _exactly(conn, 1)
            op = None if first == RUN else read_operation(conn, first)
        except (OSError, ValueError):
            conn.close()
            return
        if op is not None:
            self._operate(conn, op)
            return
        conn.settimeout(None)
        self.runs += 1
        self.last = time.monotonic()
        pid = os.fork()
        if pid == 0:
            signal.set_wakeup_fd(-1)
            os.close(self.wake_r)
            os.close(self.wake_w)
            os.close(self.lock)
            self.selector.close()
            self.listener.close()
            from hermes_cli.launch import keeper  # loaded by preload()

            keeper.keep(conn)
        conn.close()
        self.running.add(pid)

    def _operate(self, conn: socket.socket, op: object) -> None:
        """`hermes warm status` / `hermes warm stop` (hermes_cli/commands/warm.py, hermes_cli/warm/protocol.py)."""
        if op == "stop":
            self.stopping = True
        with contextlib.suppress(OSError):
            conn.sendall(json.dumps(self.status()).encode() + b"\n")
        conn.close()

    def status(self) -> dict[str, object]:
        return {"pid": os.getpid(), "socket": str(self.path), "install": INSTALL,
                "runs": self.runs, "running": len(self.running), "started": self.started,
                "idle_seconds": round(time.monotonic() - self.last, 1),
                "idle_limit": self.idle_limit, **memory_kib(), "stopping": self.stopping}

    def _reap(self) -> None:
        """Each ended keeper (its run ended and its client was told)."""
        while self.running:
            try:
                pid, _status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            self.running.discard(pid)
            self.last = time.monotonic()


def idle_limit() -> float:
    """HERMES_WARM_IDLE seconds, as the client that started us resolved it
    (hermes_cli/warm/settings.py); IDLE_SECONDS without it."""
    try:
        return max(0.0, float(os.environ.get("HERMES_WARM_IDLE", IDLE_SECONDS)))
    except ValueError:
        return IDLE_SECONDS


def memory_kib() -> dict[str, int]:
    """This process' resident memory and its proportional share (pages shared with its
    runs counted once across them), in KiB."""
    found = {"rss_kib": 0, "pss_kib": 0}
    for name, key in (("/proc/self/status", "VmRSS:"), ("/proc/self/smaps_rollup", "Pss:")):
        with contextlib.suppress(OSError, ValueError), open(name, encoding="ascii") as f:
            for line in f:
                if line.startswith(key):
                    found["pss_kib" if key == "Pss:" else "rss_kib"] = int(line.split()[1])
                    break
    return found


def main(path: Path) -> None:
    """Detach (the client that started us does not wait), take the socket's lock (one
    server per socket), import everything, then serve."""
    if os.fork() > 0:
        os._exit(0)
    os.setsid()
    os.chdir("/")  # hold no user folder open
    lock = os.open(path.with_suffix(".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os._exit(0)  # another server has this socket
    try:
        preload()
        server = Server(path, lock)
        server.bind()
        server.retire_older()
        server.serve()
    except BaseException:  # noqa: BLE001 - kept for `hermes warm status`'s reader, then gone
        import traceback

        with contextlib.suppress(OSError):
            path.with_suffix(".log").write_text(traceback.format_exc(), encoding="utf-8")
        os._exit(1)
    os._exit(0)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
