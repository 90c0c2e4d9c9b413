"""Every git directory a command could have written: not only the workspace's `.git`.

A command can make a repository anywhere beneath a writable root - `git init --bare
evil.git`, `git init --separate-git-dir=store repo`, `git worktree add`, a copied `.git`
three folders down - and give it program-running config (`alias.st = !cmd`,
`core.pager`, `core.fsmonitor`, ...) or hooks; the user's later `git st` inside it runs
them on the host. The arming guard (agent/sandbox/arming.py) therefore judges the
executable parts of each git directory `find` returns, before and after every command.

A git directory is recognised as git does (setup.c `is_git_directory`, loosely): a
folder holding `HEAD` and `objects/` or `commondir` - the name does not matter (`.git`,
`evil.git`, `store`). The walk lists folders only (no stat of files: d_type), follows no
link, enters no hidden location, enters a git directory's folders but its bulk (objects,
logs, lfs) and its submodules and worktrees (the guard's `_scan_git`) - a repository
made inside `.git/info` is found - and stops at `MAX_DIRS` folders. A folder whose inode and ctime are those of its last
listing is not listed again (`_CACHE`): one lstat per folder per walk.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass

MAX_DIRS = 100_000  # folders listed per walk; past it deeper repositories are not judged
MAX_CACHED = 500_000  # folders remembered across walks (the cache is dropped past it)
CLOCK_REALTIME_COARSE = 5  # Linux; what inode times are taken from
# a git directory's folders the walk does not enter: its bulk (never a repository a
# command could hide), and submodules' and worktrees' git dirs (the guard's `_scan_git`)
_GIT_BULK = frozenset({"objects", "logs", "lfs", "modules", "worktrees"})


@dataclass(frozen=True)
class _Listed:
    """A folder as last listed: unchanged while its inode and ctime are (an entry added,
    removed or renamed in it changes its ctime, which no program can set back)."""

    ino: int
    ctime: int
    folders: tuple[str, ...]  # the folders in it (names), links not included
    git: bool


_CACHE: dict[str, _Listed] = {}


def find(roots: tuple[str, ...], ok: Callable[[str], bool], limit: int = MAX_DIRS,
         near: frozenset[str] | None = None) -> list[str]:
    """The git directories beneath `roots` (folders `ok` admits), outermost first. A
    folder listed before and unchanged since costs one lstat, not a listing. `near`: the
    only paths `ok` can refuse beneath an admitted folder (the hidden locations and the
    folders holding them); others are admitted without asking (None: ask for each)."""
    if len(_CACHE) > MAX_CACHED:
        _CACHE.clear()
    start = time.clock_gettime_ns(CLOCK_REALTIME_COARSE)
    found: list[str] = []
    stack = [r for r in roots if ok(r)]
    seen = 0
    while stack and seen < limit:
        folder = stack.pop()
        seen += 1
        listed = _list(folder, start)
        if listed is None:
            continue
        if listed.git:
            found.append(folder)
        prefix = folder.rstrip("/") + "/"  # cheaper than os.path.join, called per folder
        for name in listed.folders:
            if listed.git and name in _GIT_BULK:
                continue  # a repository inside info/ or refs/ is still found
            path = prefix + name
            if (near is not None and path not in near) or ok(path):
                stack.append(path)
    return sorted(found, key=lambda p: p.count("/"))


def _list(folder: str, start: int) -> _Listed | None:
    try:
        info = os.lstat(folder)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode):
        return None
    hit = _CACHE.get(folder)
    if hit is not None and hit.ino == info.st_ino and hit.ctime == info.st_ctime_ns:
        return hit
    try:
        with os.scandir(folder) as listing:
            entries = list(listing)
    except OSError:
        return None
    names = {e.name for e in entries}
    folders = []
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                folders.append(entry.name)
        except OSError:
            continue
    listed = _Listed(info.st_ino, info.st_ctime_ns, tuple(folders),
                     "HEAD" in names and ("objects" in names or "commondir" in names))
    if info.st_ctime_ns < start:  # changed in this clock tick: listed again next time
        _CACHE[folder] = listed
    else:
        _CACHE.pop(folder, None)
    return listed
