"""Gathering the stable layer's inputs from disk, once per session (impure side)."""

from __future__ import annotations

import platform
from datetime import UTC, datetime
from pathlib import Path

from agent.prompt import ContextFile, EnvFacts
from memory.text import storable

PROJECT_FILES = (".hermes.md", "HERMES.md")
CWD_FILES = ("AGENTS.md", "CLAUDE.md", ".cursorrules")


def _git_root(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


def find_context_file(cwd: Path) -> ContextFile | None:
    """The first project context file: .hermes.md/HERMES.md from cwd up to the git
    root (cwd only when not in a repository), else AGENTS.md, CLAUDE.md, .cursorrules
    in cwd. Unreadable files are skipped."""
    root = _git_root(cwd)
    folders = [cwd]
    if root is not None:
        folders = [cwd, *[p for p in cwd.parents if p == root or root in p.parents]]
    candidates = [folder / name for folder in folders for name in PROJECT_FILES]
    candidates += [cwd / name for name in CWD_FILES]
    for path in candidates:
        if path.is_file():
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            label = path.name if path.parent == cwd else str(path.relative_to(root or cwd))
            return ContextFile(name=storable(label), text=text)
    return None


def read_soul(home: Path) -> str | None:
    """HERMES_HOME/SOUL.md, or None when absent/unreadable/empty."""
    path = home / "SOUL.md"
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return text if text.strip() else None


def env_facts(session_id: str, model: str, provider: str, cwd: Path, now: datetime | None = None) -> EnvFacts:
    """Freeze the environment facts for a new session."""
    moment = (now or datetime.now(UTC)).astimezone(UTC)
    system = platform.system()
    os_name = f"{system} {platform.release()}" if system else "unknown"
    return EnvFacts(
        started=moment.strftime("%Y-%m-%d %H:%M UTC"),
        session_id=session_id,
        model=model,
        provider=provider,
        cwd=storable(str(cwd)),  # a non-UTF-8 directory name: \xNN escapes
        os=os_name,
    )
