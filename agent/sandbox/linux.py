"""The Linux backend: per-session namespaces (mount, PID, network) plus Landlock.

Once per session, in the holder's child before exec (`lay_out`, see agent/sandbox/
session.py):
1. unshare mount + PID namespaces (+ network for `network: off`; + user when not root),
   make the mounts private;
2. remount the whole tree read-only (mount_setattr, recursive); mount a private tmpfs on
   /tmp (what must stay visible under /tmp - the workspace, HOME, writable roots - is
   bound back); bind each writable root onto itself read-write: chmod/chown/utime
   outside them fail with EROFS, which Landlock alone cannot stop;
3. cover every hidden path with an empty read-only tmpfs (a file: an empty read-only
   file, not /dev/null, which would swallow writes forever).
Per command, in the child before exec (`enter`, agent/sandbox/joining.py): setns into the session's namespaces,
fork once (to be inside the PID namespace), then
4. (root) drop the capabilities that could undo or bypass this (SYS_ADMIN, DAC_READ_SEARCH
   for open_by_handle_at, SYS_RAWIO, MKNOD, SYS_PTRACE, SYS_MODULE, NET_ADMIN, ...) from
   the bounding set;
5. enforce the session's Landlock ruleset: writes only beneath writable roots and /tmp,
   reads everywhere but /dev (only null, zero, random, tty...), no mount/umount (Landlock
   forbids them), no signals or abstract sockets outside the sandbox (ABI 6 scopes).
Any failure raises, so the command never runs half-sandboxed.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import signal
import socket
import struct
from collections.abc import Callable, Iterator

import agent.sandbox.hiding as hiding
import agent.sandbox.landlock as landlock
import agent.sandbox.session as session
from agent.sandbox.egress import Egress
from agent.sandbox.joining import (
    CLONE_NEWNET,
    CLONE_NEWNS,
    CLONE_NEWPID,
    CLONE_NEWUSER,
    back_to_own_pid_ns,
    enter,
)
from agent.sandbox.joining import ok as _ok
from agent.sandbox.policy import Policy, inside
from agent.sandbox.protect import Mount, protected_mounts
from agent.sandbox.session import Namespace

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
SYS_MOUNT_SETATTR, AT_FDCWD, AT_RECURSIVE, MOUNT_ATTR_RDONLY = 442, -100, 0x8000, 1
SIOCSIFFLAGS, IFF_UP, IFF_RUNNING = 0x8914, 0x1, 0x40
WRITE_RIGHTS = ~(landlock.MAKE_CHAR | landlock.MAKE_BLOCK)  # no device nodes, even where writable
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty",
           "/dev/ptmx", "/dev/pts")


class LinuxBackend:
    """Mount namespace + Landlock. `available()` says why not, when it is not."""

    name = "linux (mount namespace + landlock)"

    def __init__(self) -> None:
        self.abi = landlock.abi()

    def unavailable(self) -> str | None:
        """None when this kernel can sandbox; else the reason, in one line."""
        if self.abi < 1:
            return "the kernel has no Landlock (Linux 5.13+ with landlock in the LSM list)"
        if not os.path.exists("/proc/self/ns/mnt"):
            return "the kernel has no mount namespaces"
        if os.geteuid() != 0 and not _userns_allowed():
            return "unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone)"
        return None

    def ruleset(self, policy: Policy) -> int:
        """A new Landlock ruleset fd for `policy` (close-on-exec; the caller closes it)."""
        fd, handled = landlock.create_ruleset(self.abi)
        for entry in os.listdir("/"):
            if entry != "dev":
                landlock.add_path(fd, "/" + entry, landlock.READ, handled)
        landlock.add_path(fd, "/dev", landlock.READ_DIR, handled)
        for dev in DEVICES:
            landlock.add_path(fd, dev, landlock.DEVICE | landlock.READ_DIR, handled)
        for root in policy.writable:
            landlock.add_path(fd, root, handled & WRITE_RIGHTS, handled)
        return fd

    def start_session(self, policy: Policy) -> Namespace:
        """The session's namespaces (agent/sandbox/session.py) and its Landlock ruleset:
        the policy's rules plus the private /tmp (writable) and the session's /proc."""
        root = os.geteuid() == 0
        ns = session.start(lay_out(policy, born_pid1=root), policy.network,
                           _new_pid_ns() if root else contextlib.nullcontext())
        ns.workspace = policy.workspace
        try:
            ns.ruleset = self.ruleset(policy)
            handled = landlock.fs_rights(self.abi)
            landlock.add_path(ns.ruleset, ns.root("/proc"), landlock.READ, handled)
            for path in hiding.readable(policy):  # the empty home and run dirs (agent/sandbox/hiding.py)
                landlock.add_path(ns.ruleset, ns.root(path), landlock.READ, handled)
            if private_tmp(policy):
                landlock.add_path(ns.ruleset, ns.root("/tmp"), handled & WRITE_RIGHTS, handled)
            if policy.network == "public":
                ns.egress = Egress(ns.fds["net"])
        except BaseException:
            ns.close()
            raise
        return ns

    def preexec(self, ns: Namespace, cwd: str, born_inside: bool = False) -> Callable[[], None]:
        """The function subprocess runs in the child before exec: enter the session."""
        return enter(ns, cwd, born_inside, ns.workspace)

    @contextlib.contextmanager
    def launching(self, ns: Namespace) -> Iterator[bool]:
        """As root: the calling thread's children are born in the session's PID namespace
        (setns of pid_for_children, which is per thread; undone after), so a command
        needs no extra fork. Yields whether that is so (not root: the child forks)."""
        if os.geteuid() != 0:
            yield False
            return
        lib = landlock.libc()
        _ok(lib.setns(ns.fds["pid"], CLONE_NEWPID), "setns pid")
        try:
            yield True
        finally:
            back_to_own_pid_ns(lib)


def private_tmp(policy: Policy) -> bool:
    """/tmp gets a private tmpfs unless a writable root is /tmp itself or above it."""
    return not any(inside("/tmp", root) for root in policy.writable)


@contextlib.contextmanager
def _new_pid_ns() -> Iterator[None]:
    """(root) The calling thread's next child is PID 1 of a new PID namespace."""
    lib = landlock.libc()
    _ok(lib.unshare(CLONE_NEWPID), "unshare pid")
    try:
        yield
    finally:
        back_to_own_pid_ns(lib)


def lay_out(policy: Policy, born_pid1: bool) -> Callable[[], None]:
    """The holder's pre-exec: new namespaces, the session's mount layout, then PID 1's
    own setup (`_pid1`). `born_pid1` (root): the child already is PID 1 of a new PID
    namespace (`_new_pid_ns`); else it unshares one and forks PID 1, reports its pid on
    stdout and exits."""
    uid, gid = os.geteuid(), os.getegid()
    flags = CLONE_NEWNS | (0 if born_pid1 else CLONE_NEWPID)
    own_net = policy.network in ("off", "public")  # public: out only through the proxy
    flags |= CLONE_NEWNET if own_net else 0
    writable = [p for p in policy.writable if os.path.isdir(p)]
    hidden = [(p, os.path.isdir(p)) for p in policy.hidden if os.path.lexists(p)]
    exposed = [p for p in policy.exposed if os.path.isdir(p)]
    empty = _empty_file() if any(not is_dir for _, is_dir in hidden) else ""
    home = os.path.realpath(os.environ.get("HOME") or "/")
    home = home if os.path.isdir(home) else "/"
    shown = [p for p in policy.shown if os.path.exists(p)]  # a hook's script, interpreter
    under_tmp = [p for p in (*writable, *[w for w in (policy.workspace,) if os.path.isdir(w)], home, *shown) if inside(p, "/tmp") and p != "/tmp"] if private_tmp(policy) else []
    under_tmp = sorted({p for p in under_tmp if not any(inside(p, q) and p != q for q in under_tmp)})
    protect = protected_mounts(policy)  # the project's executable config (agent/sandbox/protect.py)
    hide = hiding.plan(policy)  # the empty home, host sockets (agent/sandbox/hiding.py)

    def setup() -> None:
        try:
            _lay_out()
            if not born_pid1:
                child = os.fork()
                if child:
                    os.write(1, b"pid %d\n" % child)
                    os._exit(0)
            _pid1(own_net)
        except OSError as exc:  # told to the parent through the holder's stdout
            os.write(1, f"error {exc.strerror or exc}\n".encode())
            raise

    def _lay_out() -> None:
        lib = landlock.libc()
        if uid == 0:
            _ok(lib.unshare(flags), "unshare")
        else:
            _ok(lib.unshare(flags | CLONE_NEWUSER), "unshare")
            _write("/proc/self/setgroups", "deny")
            _write("/proc/self/uid_map", f"{uid} {uid} 1")
            _write("/proc/self/gid_map", f"{gid} {gid} 1")
        _mount(lib, None, "/", None, MS_REC | MS_PRIVATE)
        _setattr(lib, "/", MOUNT_ATTR_RDONLY, 0)
        cover_file = f"/proc/self/fd/{os.open(empty, os.O_PATH | os.O_CLOEXEC)}" if empty else ""
        if private_tmp(policy):
            kept = {p: os.open(p, os.O_PATH | os.O_CLOEXEC) for p in under_tmp}
            _mount(lib, "tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, b"mode=1777")
            for path, fd in kept.items():  # the workspace, HOME or a shown file under /tmp
                if os.path.isdir(f"/proc/self/fd/{fd}"):  # shows through (read-only unless
                    os.makedirs(path, exist_ok=True)  # a writable root: set below)
                else:
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600))
                _mount(lib, f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)
                os.close(fd)
        hiding.lay_out(lib, hide, _mount)
        for root in writable:
            _mount(lib, root, root, None, MS_BIND | MS_REC)
            _setattr(lib, root, 0, MOUNT_ATTR_RDONLY)
        _protect(lib, protect)
        _cover(lib, hidden, exposed, cover_file)
        hiding.cover_sockets(lib, hide, _mount)

    return setup


def _cover(lib: ctypes.CDLL, hidden: list[tuple[str, bool]], exposed: list[str], cover_file: str) -> None:
    """Cover each hidden path (an empty read-only tmpfs, or an empty read-only file);
    a writable root inside one (a tenant's workspace under HERMES_HOME) shows through."""
    keep = {root: os.open(root, os.O_PATH | os.O_CLOEXEC) for root in exposed}
    for path, is_dir in hidden:
        if not os.path.lexists(path):
            continue  # under the private /tmp and not shown through: nothing to hide
        inner = [r for r in exposed if inside(r, path) and r != path]
        if is_dir:
            cover = MS_NOSUID | MS_NODEV | MS_NOEXEC
            _mount(lib, "tmpfs", path, "tmpfs", cover | (0 if inner else MS_RDONLY),
                   b"size=64k,mode=0555")
            for root in inner:  # the tenant's own workspace shows through
                os.makedirs(root, exist_ok=True)
                _mount(lib, f"/proc/self/fd/{keep[root]}", root, None, MS_BIND | MS_REC)
            if inner:
                _mount(lib, None, path, None, MS_REMOUNT | MS_RDONLY | cover)
        else:
            _mount(lib, cover_file, path, None, MS_BIND)  # held open: it may be under /tmp
            _mount(lib, None, path, None, MS_BIND | MS_REMOUNT | MS_RDONLY)


def _protect(lib: ctypes.CDLL, mounts: list[Mount]) -> None:
    """Bind each protected path onto itself, read-only unless it is an anchor (a mount
    point cannot be renamed or replaced: EBUSY). One that vanished since is skipped."""
    for path, read_only in mounts:
        try:
            _mount(lib, path, path, None, MS_BIND)
        except FileNotFoundError:
            continue
        if read_only:
            _setattr(lib, path, MOUNT_ATTR_RDONLY, 0)


def _pid1(own_net: bool) -> None:
    """In PID 1 before it becomes `cat`: its own /proc, loopback up (own network),
    orphans reaped by the kernel (SIGCHLD ignored, kept across exec), deaf to signals
    from inside, stdout and stderr to /dev/null."""
    lib = landlock.libc()
    _mount(lib, "proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    if own_net:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            fcntl.ioctl(sock, SIOCSIFFLAGS, struct.pack("16sh22x", b"lo", IFF_UP | IFF_RUNNING))
    for sig in (signal.SIGCHLD, signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
        lib.signal(sig, 1)  # SIG_IGN
    null = os.open("/dev/null", os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    os.close(null)


_EMPTY: list[str] = []


def _empty_file() -> str:
    """An empty file to bind over hidden files (made once per process, then reused)."""
    if not _EMPTY or not os.path.isfile(_EMPTY[0]) or os.path.getsize(_EMPTY[0]):
        import tempfile

        fd, path = tempfile.mkstemp(prefix="hermes-hidden-")
        os.close(fd)
        os.chmod(path, 0o444)
        _EMPTY[:] = [path]
    return _EMPTY[0]


def _mount(lib: ctypes.CDLL, source: str | None, target: str, fstype: str | None, flags: int,
           data: bytes | None = None) -> None:
    _ok(lib.mount(_enc(source), _enc(target), _enc(fstype), ctypes.c_ulong(flags), data),
        f"mount {target}")


def _enc(text: str | None) -> bytes | None:
    return text.encode() if text is not None else None


def _setattr(lib: ctypes.CDLL, path: str, set_: int, clear: int) -> None:
    attr = ctypes.create_string_buffer(struct.pack("=QQQQ", set_, clear, 0, 0), 32)
    _ok(lib.syscall(SYS_MOUNT_SETATTR, AT_FDCWD, path.encode(), AT_RECURSIVE, attr,
                    ctypes.c_size_t(32)), f"mount_setattr {path}")


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def _userns_allowed() -> bool:
    try:
        with open("/proc/sys/kernel/unprivileged_userns_clone", encoding="ascii") as handle:
            return handle.read().strip() != "0"
    except OSError:
        return True
