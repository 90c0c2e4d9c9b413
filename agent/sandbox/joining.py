"""How a command joins its session (agent/sandbox/session.py), in the child before exec
(`enter`): setns into the session's user, mount and network namespaces (a transient
EINVAL tried again: `join`), into its PID namespace (root: born there, the calling
thread's pid_for_children set around the fork by agent/sandbox/linux.py `launching`,
then `back_to_own_pid_ns`; else one more fork, the outer process relaying the exit
status), capabilities dropped (root), chdir, Landlock. Any failure raises, so the
command never runs half-confined.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import signal
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import agent.sandbox.landlock as landlock

if TYPE_CHECKING:
    from agent.sandbox.session import Namespace

CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
CLONE_NEWPID, CLONE_NEWNET = 0x20000000, 0x40000000
PR_CAPBSET_DROP = 24
DROP_CAPS = (2, 9, 12, 16, 17, 19, 21, 22, 23, 25, 27, 31, 34, 38, 39)


def enter(ns: Namespace, cwd: str, born_inside: bool = False, fallback: str = "/") -> Callable[[], None]:
    """A command's pre-exec: join the session's namespaces; unless it was born in the PID
    namespace (`launching`), fork once (the fork is the first process inside it; the
    outer one waits and passes on the exit status); drop capabilities (root), chdir,
    Landlock."""
    uid, fds, ruleset = os.geteuid(), dict(ns.fds), ns.ruleset
    if born_inside:
        fds.pop("pid", None)
    opened = ns.opened  # said if a setns fails
    holder = ns.pid

    def holder_state() -> str:
        return "alive" if os.path.exists(f"/proc/{holder}") else "gone"

    def setup() -> None:
        lib = landlock.libc()
        for kind, flag in (("user", CLONE_NEWUSER), ("mnt", CLONE_NEWNS), ("net", CLONE_NEWNET),
                           ("pid", CLONE_NEWPID)):
            if kind not in fds:
                continue
            err, tries = join(functools.partial(lib.setns, fds[kind], flag), ctypes.get_errno,
                              functools.partial(_is_still, fds[kind], opened.get(kind)))
            if err:
                raise OSError(err, f"sandbox setns {kind}: {os.strerror(err)} after {tries} tries "
                                   f"(fd {fds[kind]} is {_fd_target(fds[kind])}, was "
                                   f"{opened.get(kind)}; session PID 1 {holder_state()})")
        if not born_inside:
            child = os.fork()
            if child:
                _relay(lib, child)
        if uid == 0:
            for cap in DROP_CAPS:
                lib.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
        try:
            os.chdir(cwd)  # re-resolve inside the session's mounts
        except OSError:
            os.chdir(fallback)  # a directory hermes sees that the session does not
        landlock.restrict_self(ruleset)

    return setup


def _relay(lib: ctypes.CDLL, child: int) -> None:
    """The outer process: hold no descriptor (the pipes and subprocess' error pipe stay
    the child's alone), wait for the child, exit as it did. Never returns."""
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGPIPE):
        lib.signal(sig, 0)  # default actions, not hermes' Python handlers
    os.closerange(0, 65536)
    while True:
        try:
            _, status = os.waitpid(child, 0)
            break
        except InterruptedError:
            continue
        except OSError:
            os._exit(255)
    if os.WIFSIGNALED(status):
        os.kill(os.getpid(), os.WTERMSIG(status))
        os._exit(128 + os.WTERMSIG(status))
    os._exit(os.WEXITSTATUS(status))


def back_to_own_pid_ns(lib: ctypes.CDLL) -> None:
    """The calling thread's children are born in hermes' own PID namespace again, checked.

    Opened afresh each time, never a descriptor kept for the process' life (a kept one,
    closed by someone else and its number reused by a session's `pid` descriptor, would
    make this "back" a silent move INTO the session's namespace), and checked: a thread
    left there can start no thread ("can't start new thread" - the kernel refuses a
    thread born outside its process' namespace; seen in CI after a Ctrl-C) and its later
    children are born in the session's."""
    fd = os.open("/proc/thread-self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
    try:
        ok(lib.setns(fd, CLONE_NEWPID), "setns pid (back)")
    finally:
        os.close(fd)
    own, children = (os.readlink(f"/proc/thread-self/ns/{kind}") for kind in ("pid", "pid_for_children"))
    if own != children:
        raise OSError(f"sandbox setns pid (back): this thread's children would be born in "
                      f"{children}, not in hermes' own {own}")


SETNS_TRIES = 8


def join(call: Callable[[], int], errno_of: Callable[[], int], same: Callable[[], bool],
         tries: int = SETNS_TRIES, pause: Callable[[float], None] = time.sleep) -> tuple[int, int]:
    """One setns, tried again on EINVAL (0, tries used) or (errno, tries used).

    Rarely (about once per few thousand fresh sessions, root, kernel 6.18) a command's
    first setns into its session's mount namespace fails with EINVAL although the
    descriptor is provably the namespace the session opened. The kernel's other EINVAL
    reasons for a mount namespace are an anonymous namespace (not ours) or a shared
    fs_struct (`fs->users != 1`), which in a freshly forked child can only be transient;
    a failed setns changes nothing, so trying again is safe. Other errors, and an EINVAL
    from a descriptor that is no longer the namespace opened (`same`), fail at once."""
    err = 0
    for attempt in range(1, tries + 1):
        if call() == 0:
            return 0, attempt
        err = errno_of()
        if err != errno.EINVAL or not same():
            return err, attempt
        if attempt < tries:
            pause(0.001 * (1 << attempt))  # 2 ms .. 128 ms; ~0.25 s in all
    return err, tries


def _is_still(fd: int, opened: str | None) -> bool:
    return _fd_target(fd) == opened


def _fd_target(fd: int) -> str:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return "not open"


def ok(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"sandbox {what}: {os.strerror(err)}")
