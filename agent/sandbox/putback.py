"""What the arming guard (agent/sandbox/arming.py) does to one entry it judged: `put_back`
(changed during a command: its bytes, mode or link target before), `disarm` (in a folder
not snapshotted: renamed aside, never deleted), `set_aside` (changed after its command
returned, by a process it left running or by the user meanwhile: renamed aside and the
version before put back - nothing lost). A git config only ever loses the
program-running keys that were added (agent/sandbox/gitconfig.py). Every change goes
through safefs with no link followed.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

import safefs
from agent.sandbox.gitconfig import clean_git_config

DISARMED = ".disarmed-by-hermes"


@dataclass(frozen=True)
class Seen:
    """One entry as the guard saw it."""

    sig: tuple[int, int, int, int]  # mode, size, mtime_ns, inode
    ctime: int
    data: bytes | None  # a file's bytes, a link's target; None: a directory, or too large


def is_config(path: str) -> bool:
    """A git directory's config (`.git/config`, a bare `evil.git/config`, a module's)."""
    return os.path.basename(path) in ("config", "config.worktree") and (
        "/.git/" in path or os.path.lexists(os.path.join(os.path.dirname(path), "HEAD")))


def put_back(path: str, old: Seen | None, now: Seen) -> str:
    mode = now.sig[0]
    if is_config(path) and now.data is not None and stat.S_ISREG(mode) and (
            old is None or stat.S_ISREG(old.sig[0])):
        return clean_git_config(path, old.data if old and old.data else b"", now.data)
    if stat.S_ISDIR(mode):
        if old is not None and not stat.S_ISDIR(old.sig[0]):
            return f"{path}: a file or link was replaced by a directory - check it"
        return ""  # a directory arms nothing; the files in it are judged one by one
    if old is None:
        safefs.unlink("/", path, links=False)
        return f"{path} (created by the command): removed"
    if old.data is None or stat.S_ISDIR(old.sig[0]):
        safefs.unlink("/", path, links=False)
        return (f"{path}: the command replaced it and it cannot be put back; the "
                "replacement was removed - check it")
    if stat.S_ISLNK(old.sig[0]):
        relink(path, old.data)
    else:
        safefs.write_atomic("/", path, old.data, links=False, mode=stat.S_IMODE(old.sig[0]))
    return f"{path} (changed by the command): put back"


def relink(path: str, target: bytes) -> None:
    parent = safefs.open_dir("/", os.path.dirname(path), links=False)
    try:
        name, tmp = os.path.basename(path), f".{os.path.basename(path)}.{os.getpid()}.link"
        os.symlink(target.decode("utf-8", "surrogateescape"), tmp, dir_fd=parent)
        os.rename(tmp, name, src_dir_fd=parent, dst_dir_fd=parent)
    finally:
        os.close(parent)


def disarm(path: str, _old: Seen | None, now: Seen) -> str:
    """In a place not snapshotted: rename a file or link aside (never delete); a git
    config loses its program-running keys, its text before kept beside it."""
    if stat.S_ISDIR(now.sig[0]) or path.endswith(DISARMED):
        return ""
    if is_config(path) and now.data is not None and stat.S_ISREG(now.sig[0]):
        return _clean_config(path, b"", now.data)
    return f"{path} (changed during the command): renamed to {_rename_aside(path, now)}"


def set_aside(path: str, old: Seen | None, now: Seen) -> str:
    """Changed after its command returned (by a process it left running, or by the user
    meanwhile): the new entry renamed aside, the one seen before put back - nothing
    lost either way, nothing armed. A git config only loses the program-running keys
    added, its text before kept beside it."""
    if stat.S_ISDIR(now.sig[0]) or path.endswith(DISARMED):
        return put_back(path, old, now) if old is not None else ""
    if is_config(path) and now.data is not None and stat.S_ISREG(now.sig[0]) and (
            old is None or stat.S_ISREG(old.sig[0])):
        return _clean_config(path, old.data if old and old.data else b"", now.data)
    aside = _rename_aside(path, now)
    said = f"{path} (changed after its command returned): renamed to {aside}"
    if old is None or old.data is None or stat.S_ISDIR(old.sig[0]):
        return said
    if stat.S_ISLNK(old.sig[0]):
        relink(path, old.data)
    else:
        safefs.write_atomic("/", path, old.data, links=False, mode=stat.S_IMODE(old.sig[0]))
    return said + ", the version before put back"


def _clean_config(path: str, before: bytes, now: bytes) -> str:
    line = clean_git_config(path, before, now)
    if line:
        safefs.write_atomic("/", path + ".before-hermes", now, links=False, mode=0o600)
    return line


def _rename_aside(path: str, now: Seen) -> str:
    """`path` renamed to NAME.disarmed-by-hermes (a file made private); the new name."""
    parent = safefs.open_dir("/", os.path.dirname(path), links=False)
    try:
        name = os.path.basename(path)
        os.rename(name, name + DISARMED, src_dir_fd=parent, dst_dir_fd=parent)
        if stat.S_ISREG(now.sig[0]):
            os.chmod(name + DISARMED, 0o600, dir_fd=parent, follow_symlinks=False)
    finally:
        os.close(parent)
    return name + DISARMED
