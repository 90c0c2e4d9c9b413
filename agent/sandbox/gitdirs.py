"""Every git directory a command could have written: not only the workspace's `.git`
(finding 10 of issue 52).

A command can make a repository anywhere beneath a writable root - `git init --bare
evil.git`, `git init --separate-git-dir=store repo`, `git worktree add`, a copied `.git`
three folders down - and give it program-running config (`alias.st = !cmd`,
`core.pager`, `core.fsmonitor`, ...) or hooks; the user's later `git st` inside it runs
them on the host. The arming guard (agent/sandbox/arming.py) therefore judges the
executable parts of each git directory `find` returns, before and after every command.

A git directory is recognised as git does (setup.c `is_git_directory`, loosely): a
folder holding `HEAD` and `objects/` or `commondir` - the name does not matter (`.git`,
`evil.git`, `store`). The walk lists folders only (no stat of files: d_type), follows no
link, enters no hidden location, does not descend into a git directory (its submodules
and worktrees are the guard's `_scan_git`), and stops at `MAX_DIRS` folders.
"""

from __future__ import annotations

import os
from collections.abc import Callable

MAX_DIRS = 100_000  # folders listed per walk; past it deeper repositories are not judged


def find(roots: tuple[str, ...], ok: Callable[[str], bool], limit: int = MAX_DIRS) -> list[str]:
    """The git directories beneath `roots` (folders `ok` admits), outermost first."""
    found: list[str] = []
    stack = [r for r in roots if ok(r)]
    seen = 0
    while stack and seen < limit:
        folder = stack.pop()
        seen += 1
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError:
            continue
        names = {e.name for e in entries}
        if "HEAD" in names and ("objects" in names or "commondir" in names):
            found.append(folder)
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False) and ok(entry.path):
                    stack.append(entry.path)
            except OSError:
                continue
    return sorted(found, key=lambda p: p.count("/"))
