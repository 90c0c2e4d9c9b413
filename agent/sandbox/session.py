"""A session's namespaces, kept across its commands: mounts, private /tmp, PID, network.

One holder per session, started before its first sandboxed command. hermes starts a
child in a new PID namespace (root: `unshare(CLONE_NEWPID)` on the calling thread, so
the child is born PID 1; else the child unshares user + PID namespaces and forks PID 1,
which it reports on stdout). Before exec it unshares a mount namespace (plus a network
namespace for `network: off`) and lays out the mounts (agent/sandbox/linux.py
`lay_out`: read-only tree, a private tmpfs on /tmp with the workspace, HOME and
writable roots that live under /tmp bound back, writable roots, hidden covers); PID 1
mounts a /proc of its own, brings up loopback (network off), ignores SIGCHLD (orphans
are reaped by the kernel) and becomes `cat` (~1.6 MB) reading a pipe from hermes: when
hermes closes it (session end) or dies, PID 1 exits and the kernel kills everything in
the namespace. Background servers started by one command live on for the next and end
with the session.
Each command enters with setns (user, mount, network) and is born in the PID namespace
(root: setns of the thread's pid_for_children around the fork; else one more fork),
see agent/sandbox/joining.py `enter`.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from agent.sandbox.preexec_report import reporting

if TYPE_CHECKING:
    from agent.sandbox.egress import Egress

START_TIMEOUT = 10.0

CAT = shutil.which("cat", path=os.defpath) or "/bin/cat"


class Namespace:
    """A running holder: PID 1's host pid, a pidfd for it, and the namespace fds."""

    def __init__(self, init_pid: int, keep_open: int, network: str,
                 child: subprocess.Popen[bytes] | None = None) -> None:
        self.pid = init_pid
        self._child = child  # PID 1 itself when it is our child (root): reaped by close()
        self.network = network
        self._keep_open = keep_open  # the write end PID 1 waits on
        self._pidfd = os.pidfd_open(init_pid)
        kinds = ["mnt", "pid"] + (["net"] if network in ("off", "public") else [])
        if os.geteuid() != 0:
            kinds.insert(0, "user")
        self.fds = {kind: os.open(f"/proc/{init_pid}/ns/{kind}", os.O_RDONLY | os.O_CLOEXEC)
                    for kind in kinds}
        self._ids = {fd: _identity(fd) for fd in [keep_open, self._pidfd, *self.fds.values()]}
        self.opened = {kind: _describe(fd) for kind, fd in self.fds.items()}  # "mnt:[4026532912]"
        self.ruleset = -1  # the session's Landlock ruleset (set by the backend)
        self.egress: Egress | None = None  # for network: public
        self.workspace = "/"  # where a command starts when its cwd is not in the session

    def root(self, path: str) -> str:
        """`path` as seen inside the namespace, reachable from hermes (PID 1's root)."""
        return f"/proc/{self.pid}/root{path}"

    def alive(self) -> bool:
        return not select.select([self._pidfd], [], [], 0)[0]

    def occupied(self) -> bool:
        """Whether a process besides PID 1 lives in the session (between commands: one an
        earlier command left running; orphans in a PID namespace become PID 1's children)."""
        try:
            with open(f"/proc/{self.pid}/task/{self.pid}/children", "rb") as listing:
                return bool(listing.read().strip())
        except OSError:
            return False  # PID 1 gone: nothing lives in the namespace

    def damaged(self) -> str | None:
        """None while every descriptor the session holds is still the file it opened; else
        which one something else in this process closed (and what the number is now)."""
        named = {self._keep_open: "holder pipe", self._pidfd: "PID 1 pidfd",
                 **{fd: f"{kind} namespace" for kind, fd in self.fds.items()}}
        for fd, what in named.items():
            if fd >= 0 and _identity(fd) != self._ids.get(fd):
                return (f"the session's {what} descriptor (fd {fd}) was closed by something else "
                        f"in this process and its number reused (now {_describe(fd)})")
        return None

    def _release(self, fd: int) -> None:
        """Close `fd` only if it still is the file the session opened: a number something
        else closed and reused belongs to its new owner."""
        if fd >= 0 and (fd not in self._ids or _identity(fd) == self._ids[fd]):
            with contextlib.suppress(OSError):
                os.close(fd)

    def close(self) -> None:
        """End the session's namespace: PID 1 is killed, and with it every process in it."""
        if self.egress is not None:
            self.egress.close()
            self.egress = None
        for fd in [self._keep_open, *self.fds.values(), self.ruleset]:
            self._release(fd)
        self._keep_open, self.fds, self.ruleset = -1, {}, -1
        if self._pidfd >= 0 and _identity(self._pidfd) == self._ids[self._pidfd]:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
            select.select([self._pidfd], [], [], 5.0)  # gone
            os.close(self._pidfd)
        self._pidfd = -1  # (taken by another: the closed holder pipe still ends PID 1)
        if self._child is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._child.wait(5.0)


def start(setup: Callable[[], None], network: str,
          launching: contextlib.AbstractContextManager[object]) -> Namespace:
    """Start a holder: `setup` runs in its child before exec (agent/sandbox/linux.py
    `lay_out`), inside `launching` (root: a new PID namespace for the calling thread's
    child, which is then PID 1 itself; else the child forks PID 1 and says its pid)."""
    keep_r, keep_w = os.pipe2(os.O_CLOEXEC)
    said_r, said_w = os.pipe2(os.O_CLOEXEC)
    try:
        with launching, reporting(setup) as confine:
            proc = subprocess.Popen(["hermes-session-init"], executable=CAT, stdin=keep_r,
                                    stdout=said_w, stderr=subprocess.DEVNULL, preexec_fn=confine,
                                    start_new_session=True, close_fds=True)
    except BaseException as exc:
        os.close(said_w)
        said_w = -1
        lines = _read_lines(said_r, 1.0)
        detail = next((line for line in lines if line.startswith("error")), str(exc))
        os.close(keep_w)
        raise OSError(f"the session namespace did not start ({detail})") from exc
    finally:
        os.close(keep_r)
        if said_w >= 0:
            os.close(said_w)
    lines = _read_lines(said_r, START_TIMEOUT)
    said = next((int(line[4:]) for line in lines if line.startswith("pid ")), 0)
    if said:  # not root: proc was the forking parent, already gone
        proc.wait()
    return Namespace(said or proc.pid, keep_w, network, None if said else proc)


def _identity(fd: int) -> tuple[int, int] | None:
    """(device, inode) of the open file `fd`, None when the number is not open."""
    try:
        info = os.fstat(fd)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _describe(fd: int) -> str:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return "closed"


def _read_lines(fd: int, timeout: float) -> list[str]:
    """Lines until end of file (every writer closed), or the deadline; closes `fd`."""
    deadline, data = time.monotonic() + timeout, b""
    try:
        while (left := deadline - time.monotonic()) > 0:
            if not select.select([fd], [], [], left)[0]:
                break
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            data += chunk
    finally:
        os.close(fd)
    return data.decode(errors="replace").splitlines()
