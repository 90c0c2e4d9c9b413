"""Gathering the stable layer's inputs from disk, once per session (impure side)."""

from __future__ import annotations

import platform
from datetime import UTC, datetime
from pathlib import Path

from agent.context_search import candidates as search
from agent.prompt import ContextFile, EnvFacts


def find_context_file(cwd: Path) -> ContextFile | None:
    """The project context file (agent/context_search.py: nearest directory from cwd up
    to the git root, .hermes.md > HERMES.md > AGENTS.md > CLAUDE.md > .cursorrules).
    Unreadable files are skipped."""
    candidates, root = search(cwd)
    for path in candidates:
        if path.is_file():
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            label = path.name if path.parent == cwd else str(path.relative_to(root or cwd))
            return ContextFile(name=label, text=text)
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
        cwd=str(cwd),
        os=os_name,
    )
