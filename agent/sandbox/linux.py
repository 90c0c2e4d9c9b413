"""The Linux backend: a mount namespace plus Landlock, set up in the child before exec.

In the child (`preexec`), in this order:
1. unshare a mount namespace (plus a user namespace when not root) and make it private;
2. remount the whole tree read-only (mount_setattr, recursive), then bind each writable
   root onto itself read-write: chmod/chown/utime outside them fail with EROFS, which
   Landlock alone cannot stop;
3. cover every hidden path with an empty read-only tmpfs (a file: an empty read-only
   file, not /dev/null, which would swallow writes forever);
4. (root) drop the capabilities that could undo or bypass this (SYS_ADMIN, DAC_READ_SEARCH
   for open_by_handle_at, SYS_RAWIO, MKNOD, SYS_PTRACE, SYS_MODULE, ...) from the bounding set;
5. enforce the Landlock ruleset built in the parent: writes only beneath writable roots,
   reads everywhere but /dev (only null, zero, random, tty...), no mount/umount (Landlock
   forbids them), no signals or abstract sockets outside the sandbox (ABI 6 scopes).
Any failure raises, so the command never runs half-sandboxed.
"""

from __future__ import annotations

import ctypes
import os
import struct
from collections.abc import Callable

import agent.sandbox.landlock as landlock
from agent.sandbox.policy import Policy, inside

CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
SYS_MOUNT_SETATTR, AT_FDCWD, AT_RECURSIVE, MOUNT_ATTR_RDONLY = 442, -100, 0x8000, 1
PR_CAPBSET_DROP = 24
DROP_CAPS = (2, 9, 12, 16, 17, 19, 21, 22, 23, 25, 27, 31, 34, 38, 39)
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty",
           "/dev/ptmx", "/dev/pts")


class LinuxBackend:
    """Mount namespace + Landlock. `available()` says why not, when it is not."""

    name = "linux (mount namespace + landlock)"

    def __init__(self) -> None:
        self.abi = landlock.abi()
        self._rulesets: dict[tuple, int] = {}

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
        """The Landlock ruleset fd for `policy`, built once (kept open, close-on-exec).
        Rules hold inodes, so a writable root deleted and made again gets a new ruleset."""
        key = (policy, tuple(_identity(p) for p in policy.writable))
        cached = self._rulesets.get(key)
        if cached is None:
            fd, handled = landlock.create_ruleset(self.abi)
            for entry in os.listdir("/"):
                if entry != "dev":
                    landlock.add_path(fd, "/" + entry, landlock.READ, handled)
            landlock.add_path(fd, "/dev", landlock.READ_DIR, handled)
            for dev in DEVICES:
                landlock.add_path(fd, dev, landlock.DEVICE | landlock.READ_DIR, handled)
            no_devices = ~(landlock.MAKE_CHAR | landlock.MAKE_BLOCK)
            for root in policy.writable:
                landlock.add_path(fd, root, handled & no_devices, handled)
            cached = self._rulesets[key] = fd
        return cached

    def preexec(self, policy: Policy, cwd: str) -> Callable[[], None]:
        """The function subprocess runs in the child before exec."""
        ruleset = self.ruleset(policy)
        uid, gid = os.geteuid(), os.getegid()
        writable = [p for p in policy.writable if os.path.isdir(p)]
        hidden = [(p, os.path.isdir(p)) for p in policy.hidden if os.path.lexists(p)]
        exposed = [p for p in policy.exposed if os.path.isdir(p)]
        empty = _empty_file() if any(not is_dir for _, is_dir in hidden) else ""

        def setup() -> None:
            lib = landlock.libc()
            if uid == 0:
                _ok(lib.unshare(CLONE_NEWNS), "unshare")
            else:
                _ok(lib.unshare(CLONE_NEWNS | CLONE_NEWUSER), "unshare")
                _write("/proc/self/setgroups", "deny")
                _write("/proc/self/uid_map", f"{uid} {uid} 1")
                _write("/proc/self/gid_map", f"{gid} {gid} 1")
            _mount(lib, None, "/", None, MS_REC | MS_PRIVATE)
            _setattr(lib, "/", MOUNT_ATTR_RDONLY, 0)
            for root in writable:
                _mount(lib, root, root, None, MS_BIND | MS_REC)
                _setattr(lib, root, 0, MOUNT_ATTR_RDONLY)
            keep = {root: os.open(root, os.O_PATH | os.O_CLOEXEC) for root in exposed}
            for path, is_dir in hidden:
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
                    _mount(lib, empty, path, None, MS_BIND)
                    _mount(lib, None, path, None, MS_BIND | MS_REMOUNT | MS_RDONLY)
            if uid == 0:
                for cap in DROP_CAPS:
                    lib.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
            os.chdir(cwd)  # re-resolve through the new mounts
            landlock.restrict_self(ruleset)

        return setup


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


def _identity(path: str) -> tuple[int, int]:
    try:
        st = os.stat(path)
    except OSError:
        return (0, 0)
    return (st.st_dev, st.st_ino)


def _ok(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"sandbox {what}: {os.strerror(err)}")


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
