"""Opening a path beneath a root directory descriptor, with no escape.

`open_beneath(root_fd, rel, flags)` resolves `rel` one component at a time relative to
`root_fd`: symbolic links that stay inside the root are followed, a link (or `..`) that
leaves it raises `Escape`. Every step works on a descriptor, never on a path string
that someone could change between a check and the open: a directory swapped for a link
while we resolve is read as that link and resolved beneath the root, or refused.

Two resolvers give the same answers:
- `openat2(2)` with RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS (Linux 5.6+; the kernel does
  the walk atomically and returns EAGAIN when a rename races a `..`, which we retry);
- a per-component walk with O_NOFOLLOW and O_PATH directory descriptors, used where
  openat2 is missing or refused (seccomp, old kernels, other architectures).
The kernel refuses every absolute link (EXDEV); an absolute link whose target is inside
the root by name is then resolved by the walk, so both follow the same links.
`links=False` refuses every symbolic link (RESOLVE_NO_SYMLINKS).
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import stat
from collections import deque
from typing import cast

RESOLVE_NO_MAGICLINKS = 0x02
RESOLVE_NO_SYMLINKS = 0x04
RESOLVE_BENEATH = 0x08
_OPENAT2 = {"x86_64": 437, "aarch64": 437, "arm64": 437}.get(platform.machine())
MAX_LINKS = 40
_RETRIES = 16


class Escape(PermissionError):
    """The path leaves its root (through `..` or a symbolic link), or is a link where
    links are not allowed."""

    def __init__(self, rel: str, why: str = "leads outside its root") -> None:
        super().__init__(errno.EXDEV, why, rel)


class _How(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64),
                ("resolve", ctypes.c_uint64)]


_state: dict[str, object] = {"force": None, "libc": None, "openat2": _OPENAT2 is not None}


def use(resolver: str | None) -> None:
    """Force a resolver ("openat2" or "walk"); None = automatic (tests run both)."""
    if resolver not in (None, "openat2", "walk"):
        raise ValueError(resolver)
    _state["force"] = resolver


def resolver() -> str:
    """The resolver in use: "openat2" when the kernel has it (and it is not forced off)."""
    forced = _state["force"]
    if forced == "walk" or not _state["openat2"]:
        return "walk"
    return "openat2"


def open_beneath(root_fd: int, rel: str, flags: int, mode: int = 0o666, *,
                 links: bool = True) -> int:
    """A descriptor for `rel` opened beneath `root_fd` (see the module docstring).
    O_CLOEXEC is always added; raises Escape, or the OSError the open itself raised."""
    rel = rel.lstrip("/") if rel.startswith("/") else rel
    if resolver() == "openat2":
        fd = _openat2(root_fd, rel or ".", flags, mode, links)
        if fd is not None:
            return fd
    return _walk(root_fd, rel, flags, mode, links)


def _openat2(root_fd: int, rel: str, flags: int, mode: int, links: bool) -> int | None:
    """The kernel's resolution; None = fall back to the walk (an absolute link, or no
    openat2 at all)."""
    libc = cast("ctypes.CDLL | None", _state["libc"])
    if libc is None:
        libc = _state["libc"] = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
    resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | (0 if links else RESOLVE_NO_SYMLINKS)
    tmpfile = getattr(os, "O_TMPFILE", 0)  # includes O_DIRECTORY's bit: compare it whole
    creating = flags & os.O_CREAT or (tmpfile and flags & tmpfile == tmpfile)
    how = _How(flags | os.O_CLOEXEC, mode if creating else 0, resolve)
    path = os.fsencode(rel)
    for _ in range(_RETRIES):
        fd = libc.syscall(_OPENAT2, root_fd, path, ctypes.byref(how), ctypes.sizeof(how))
        if fd >= 0:
            return int(fd)
        err = ctypes.get_errno()
        if err in (errno.EAGAIN, errno.EINTR):
            continue  # a rename raced the resolution: the kernel asks us to try again
        if err in (errno.ENOSYS, errno.EPERM) and _probe_fails(libc):
            _state["openat2"] = False  # no openat2 here (old kernel, or seccomp)
            return None
        if err == errno.EXDEV:
            return None  # maybe an absolute link into the root: the walk decides
        if err == errno.ELOOP and not links:
            raise Escape(rel, "is reached through a symbolic link")
        raise OSError(err, os.strerror(err), rel)
    raise OSError(errno.EAGAIN, "the path kept changing while it was opened", rel)


def _probe_fails(libc: ctypes.CDLL) -> bool:
    how = _How(os.O_PATH | os.O_CLOEXEC, 0, 0)
    fd = libc.syscall(_OPENAT2, -100, b"/", ctypes.byref(how), ctypes.sizeof(how))
    if fd >= 0:
        os.close(fd)
        return False
    return True


def fd_path(fd: int) -> str:
    """The path the kernel knows for an open descriptor."""
    return os.readlink(f"/proc/self/fd/{fd}")


def _walk(root_fd: int, rel: str, flags: int, mode: int, links: bool) -> int:
    parts = deque(p for p in rel.split("/") if p not in ("", "."))
    stack: list[int] = []  # descriptors we opened, deepest last; the root is below them
    followed = 0
    try:
        while parts:
            name = parts.popleft()
            if name == "..":
                if not stack:
                    raise Escape(rel)
                os.close(stack.pop())
                continue
            here = stack[-1] if stack else root_fd
            fd, target = _step(here, name, not parts, flags, mode, rel)
            if target is None:
                if not parts:
                    return fd
                stack.append(fd)
                continue
            if not links:
                raise Escape(rel, "is reached through a symbolic link")
            followed += 1
            if followed > MAX_LINKS:
                raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), rel)
            if target.startswith("/"):
                inner = inside_root(fd_path(root_fd), target)
                if inner is None:
                    raise Escape(rel)
                while stack:
                    os.close(stack.pop())
                target = inner
            parts.extendleft(reversed([p for p in target.split("/") if p not in ("", ".")]))
        return os.open(".", flags | os.O_CLOEXEC, mode, dir_fd=stack[-1] if stack else root_fd)
    finally:
        for fd in stack:
            os.close(fd)


def _step(here: int, name: str, last: bool, flags: int, mode: int,
          rel: str) -> tuple[int, str | None]:
    """One component: (descriptor, None) when opened (the last one with `flags`, a
    directory on the way with O_PATH), (-1, link target) when it is a link."""
    if last:
        try:
            fd = os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=here)
        except OSError as exc:
            if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                raise
            return -1, _link_or_raise(here, name, exc)
        if not (flags & os.O_PATH and stat.S_ISLNK(os.fstat(fd).st_mode)):
            return fd, None
        os.close(fd)  # O_PATH|O_NOFOLLOW opens a link itself instead of failing
        return -1, os.readlink(name, dir_fd=here)
    fd = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=here)
    kind = os.fstat(fd).st_mode
    if stat.S_ISDIR(kind):
        return fd, None
    os.close(fd)
    if not stat.S_ISLNK(kind):
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), rel)
    return -1, os.readlink(name, dir_fd=here)


def _link_or_raise(here: int, name: str, exc: OSError) -> str:
    try:
        return os.readlink(name, dir_fd=here)
    except OSError:
        raise exc from None  # not a link: the open's own error stands


def inside_root(root: str, target: str) -> str | None:
    """`target` (absolute) relative to `root` when it names a place inside it."""
    target = os.path.normpath(target)
    if target == root:
        return "."
    prefix = root.rstrip("/") + "/"
    return target[len(prefix):] if target.startswith(prefix) else None
