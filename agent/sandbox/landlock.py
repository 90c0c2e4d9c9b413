"""Landlock through ctypes: probe the ABI, build a ruleset, restrict the calling thread.

The ruleset is built in the parent (opening each rule's directory with O_PATH) and
kept open; only `restrict_self` runs in the child, after fork and before exec. A
handled right is denied everywhere except beneath the directories a rule grants it on.
Landlock only grants; hiding a subtree inside a granted one is the mount layer's job.
"""

from __future__ import annotations

import ctypes
import os
import struct

SYS_CREATE, SYS_ADD_RULE, SYS_RESTRICT = 444, 445, 446  # same on x86_64 and aarch64
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK = 1 << 8, 1 << 9, 1 << 10, 1 << 11
MAKE_SYM, REFER, TRUNCATE, IOCTL_DEV = 1 << 12, 1 << 13, 1 << 14, 1 << 15
SCOPE_ABSTRACT_UNIX, SCOPE_SIGNAL = 1 << 0, 1 << 1

READ = EXECUTE | READ_FILE | READ_DIR
DEVICE = READ_FILE | WRITE_FILE | TRUNCATE | IOCTL_DEV

_libc: ctypes.CDLL | None = None


def libc() -> ctypes.CDLL:
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    return _libc


def abi() -> int:
    """The kernel's Landlock ABI version; 0 when Landlock is missing or disabled."""
    try:
        version = libc().syscall(SYS_CREATE, None, ctypes.c_size_t(0), CREATE_RULESET_VERSION)
    except (OSError, AttributeError):
        return 0
    return max(0, int(version))


def fs_rights(version: int) -> int:
    """Every filesystem right this ABI can handle."""
    rights = (1 << 13) - 1
    if version >= 2:
        rights |= REFER
    if version >= 3:
        rights |= TRUNCATE
    if version >= 5:
        rights |= IOCTL_DEV
    return rights


def _check(result: int, what: str) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"landlock {what}: {os.strerror(err)}")
    return result


def create_ruleset(version: int) -> tuple[int, int]:
    """A new ruleset fd (O_CLOEXEC) handling every fs right; returns (fd, handled)."""
    handled = fs_rights(version)
    scoped = SCOPE_ABSTRACT_UNIX | SCOPE_SIGNAL if version >= 6 else 0
    if version >= 6:
        attr = struct.pack("=QQQ", handled, 0, scoped)
    elif version >= 4:
        attr = struct.pack("=QQ", handled, 0)
    else:
        attr = struct.pack("=Q", handled)
    buf = ctypes.create_string_buffer(attr, len(attr))
    fd = _check(libc().syscall(SYS_CREATE, buf, ctypes.c_size_t(len(attr)), 0), "create_ruleset")
    return fd, handled


def add_path(ruleset: int, path: str, rights: int, handled: int) -> bool:
    """Grant `rights` beneath `path` (file rights only for a non-directory); False when
    the path does not exist."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        if not os.path.isdir(f"/proc/self/fd/{fd}"):
            rights &= READ_FILE | WRITE_FILE | EXECUTE | TRUNCATE | IOCTL_DEV
        rights &= handled
        if not rights:
            return False
        attr = ctypes.create_string_buffer(struct.pack("=Qi", rights, fd), 12)
        _check(libc().syscall(SYS_ADD_RULE, ruleset, RULE_PATH_BENEATH, attr, 0), f"add_rule {path}")
        return True
    finally:
        os.close(fd)


def restrict_self(ruleset: int) -> None:
    """Enforce the ruleset on this thread and its future children (irreversible)."""
    lib = libc()
    _check(lib.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    _check(lib.syscall(SYS_RESTRICT, ruleset, 0), "restrict_self")
