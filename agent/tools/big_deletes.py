"""A command that deletes a file /undo could not put back is asked about first.

/undo restores what a terminal command changed from the bytes kept around it
(agent/tools/term_changes.py), but not a file over `MAX_KEEP`: its bytes are not kept.
So a command that removes one (`rm`, `unlink`, `git rm`, `rm -r` of a folder holding
one, globs included) needs the same yes as a dangerous command, saying which file and
why - before it runs, not when a later /undo fails. The parse is the danger check's
(agent/tools/danger.py: wrappers peeled, ~ and variables expanded).
"""

from __future__ import annotations

import glob
import os
from pathlib import Path

from agent.tools.danger import simple_commands
from agent.tools.term_changes import MAX_KEEP, SKIP_DIRS

REMOVERS = frozenset({"rm", "unlink", "shred"})
MAX_SEEN = 20_000  # entries looked at under a folder `rm -r` names


def big_deletion(command: str, cwd: Path, workspace: Path) -> str | None:
    """The approval reason when `command` (run in `cwd`) deletes a file of `workspace`
    (what /undo covers) larger than /undo keeps."""
    for argv in simple_commands(command):
        for target in _targets(argv):
            try:
                found = _first_big(cwd, target, workspace.resolve())
            except OSError:  # gone or unreadable meanwhile: the command will say so
                continue
            if found is not None:
                path, size = found
                return (f"deletes {path} ({size / 1024 / 1024:.1f} MB), larger than the "
                        f"{MAX_KEEP // 1024 // 1024} MB /undo keeps: it could not be put back")
    return None


def _targets(argv: list[str]) -> list[str]:
    program = os.path.basename(argv[0])
    args = argv[1:]
    if program == "git" and args[:1] == ["rm"]:
        args = [a for a in args[1:] if a != "--cached"] if "--cached" not in args else []
    elif program not in REMOVERS:
        return []
    operands, after = [], False
    for arg in args:
        if after or not arg.startswith("-"):
            operands.append(arg)
        elif arg == "--":
            after = True
    return operands


def _first_big(cwd: Path, target: str, workspace: Path) -> tuple[str, int] | None:
    pattern = target if os.path.isabs(target) else str(cwd / target)
    seen = 0
    for name in glob.glob(pattern) if glob.has_magic(pattern) else [pattern]:
        path = Path(name)
        if path.is_symlink() or not path.resolve().is_relative_to(workspace):
            continue
        if path.is_file():
            size = path.stat().st_size
            if size > MAX_KEEP:
                return _shown(path, workspace), size
            continue
        for root, dirs, files in os.walk(path):  # `rm -r folder`: what is inside
            dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
            for file in files:
                seen += 1
                full = Path(root, file)
                if seen > MAX_SEEN:
                    return None
                if not full.is_symlink() and full.stat().st_size > MAX_KEEP:
                    return _shown(full, workspace), full.stat().st_size
    return None


def _shown(path: Path, workspace: Path) -> str:
    try:
        return str(path.resolve().relative_to(workspace))
    except ValueError:
        return str(path)
