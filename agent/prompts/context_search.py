"""Where the project context file is looked for, the way the peers look (pure paths).

From the working directory up to the git root (the working directory alone outside a
repository), each directory is tried in this order: `.hermes.md`, `HERMES.md`,
`AGENTS.md`, `CLAUDE.md`, `.cursorrules`. The nearest directory holding any of them
wins, and one file is loaded (agent/prompts/context.py reads the first readable candidate).
"""

from __future__ import annotations

from pathlib import Path

PRECEDENCE = (".hermes.md", "HERMES.md", "AGENTS.md", "CLAUDE.md", ".cursorrules")


def git_root(start: Path) -> Path | None:
    """The nearest directory at or above `start` holding `.git`; None outside a repo."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def search_folders(cwd: Path, root: Path | None) -> list[Path]:
    """cwd, then each parent up to and including the git root (nearest first)."""
    if root is None:
        return [cwd]
    return [cwd, *[p for p in cwd.parents if p == root or root in p.parents]]


def candidates(cwd: Path) -> tuple[list[Path], Path | None]:
    """The existing context files in the order they are tried, and the git root."""
    root = git_root(cwd)
    found = [folder / name for folder in search_folders(cwd, root) for name in PRECEDENCE]
    return [path for path in found if path.is_file() or path.is_symlink()], root
