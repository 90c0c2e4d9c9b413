"""A session's namespaces, kept across its commands: mounts, private /tmp, PID, network.

One holder per session, started before its first sandboxed command:
- `hermes` forks a child that unshares a mount and a PID namespace (plus a network
  namespace for `network: off`, plus a user namespace when not root), lays out the
  mounts (agent/sandbox/linux.py `lay_out`: read-only tree, writable roots, hidden
  covers, and a private tmpfs on /tmp with the workspace, HOME and writable roots that
  live under /tmp bound back), then execs a tiny Python program (agent/sandbox/ns_init.py, run as a script);
- that program forks the namespace's PID 1, which mounts a /proc of its own, brings up
  loopback (network off), ignores SIGCHLD (so orphans are reaped by the kernel) and
  becomes `cat` (~1.6 MB) reading a pipe from hermes: when hermes closes it (session
  end) or dies, PID 1 exits and the kernel kills everything in the namespace. Background servers started by one
  command therefore live on for the next and end with the session.
Each command then enters with setns (user, mount, network, PID) and forks once, so it is
a process of the session's PID namespace (agent/sandbox/linux.py `enter`).
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Callable

START_TIMEOUT = 10.0

INIT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ns_init.py")


class Namespace:
    """A running holder: PID 1's host pid, a pidfd for it, and the namespace fds."""

    def __init__(self, init_pid: int, keep_open: int, network: str) -> None:
        self.pid = init_pid
        self.network = network
        self._keep_open = keep_open  # the write end PID 1 waits on
        self._pidfd = os.pidfd_open(init_pid)
        kinds = ["mnt", "pid"] + (["net"] if network == "off" else [])
        if os.geteuid() != 0:
            kinds.insert(0, "user")
        self.fds = {kind: os.open(f"/proc/{init_pid}/ns/{kind}", os.O_RDONLY | os.O_CLOEXEC)
                    for kind in kinds}
        self.ruleset = -1  # the session's Landlock ruleset (set by the backend)

    def root(self, path: str) -> str:
        """`path` as seen inside the namespace, reachable from hermes (PID 1's root)."""
        return f"/proc/{self.pid}/root{path}"

    def alive(self) -> bool:
        return not select.select([self._pidfd], [], [], 0)[0]

    def close(self) -> None:
        """End the session's namespace: PID 1 is killed, and with it every process in it."""
        for fd in [self._keep_open, *self.fds.values(), self.ruleset]:
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._keep_open, self.fds, self.ruleset = -1, {}, -1
        if self._pidfd >= 0:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
            select.select([self._pidfd], [], [], 5.0)  # gone (its zombie is the system's)
            os.close(self._pidfd)
            self._pidfd = -1


def start(setup: Callable[[], None], network: str) -> Namespace:
    """Start a holder whose child side runs `setup` (unshare + mounts) before exec."""
    keep_r, keep_w = os.pipe2(os.O_CLOEXEC)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-I", "-S", INIT, network], stdin=keep_r,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, preexec_fn=setup,
            start_new_session=True, close_fds=True)
    except BaseException:
        os.close(keep_w)
        raise
    finally:
        os.close(keep_r)
    assert proc.stdout is not None
    lines = _read_lines(proc.stdout.fileno(), START_TIMEOUT)
    proc.stdout.close()
    proc.wait()
    pid = next((int(line[4:]) for line in lines if line.startswith("pid ")), 0)
    if "ready" not in lines or not pid:
        os.close(keep_w)
        if pid:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        detail = next((line for line in lines if line.startswith("error")), "no answer")
        raise OSError(f"the session namespace did not start ({detail})")
    return Namespace(pid, keep_w, network)


def _read_lines(fd: int, timeout: float) -> list[str]:
    """Lines until end of file (both writers closed), or the deadline."""
    deadline, data = time.monotonic() + timeout, b""
    while (left := deadline - time.monotonic()) > 0:
        if not select.select([fd], [], [], left)[0]:
            break
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        data += chunk
    return data.decode(errors="replace").splitlines()
