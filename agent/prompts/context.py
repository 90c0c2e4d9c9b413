"""Gathering the stable layer's inputs from disk, once per session (impure side)."""

from __future__ import annotations

import os
import platform
from datetime import UTC, datetime
from pathlib import Path

import safefs
from agent.prompts.context_search import candidates as search
from agent.prompts.prompt import ContextFile, EnvFacts
from memory.text import storable

BINARY_SNIFF = 8192


def _load(path: Path, root: Path) -> tuple[str | None, str | None]:
    """(text, None) for a readable text file; (None, problem) for a binary one or one
    that leads outside `root` through a link (opened beneath it: safefs); (None, None)
    when it is missing, not a regular file or unreadable (skipped silently, as before)."""
    try:
        raw = safefs.read_bytes(str(root), os.path.relpath(path, root))
    except safefs.Escape:
        return None, (f"{path} is a link leading outside {root}: it was left out of the "
                      "system prompt (a context file is read only from inside its project)")
    except (OSError, ValueError):
        return None, None
    if is_binary(raw):
        return None, (f"{path} looks like a binary file, not text: it was left out of the "
                      "system prompt; replace it with a text file or move it aside")
    return raw.decode("utf-8", errors="replace"), None


def is_binary(raw: bytes) -> bool:
    """NUL bytes, or more than 1% of the head failing to decode as UTF-8."""
    head = raw[:BINARY_SNIFF]
    if b"\x00" in head:
        return True
    bad = head.decode("utf-8", errors="replace").count("\ufffd")
    return bad > max(16, len(head) // 100)


def find_context_file(cwd: Path) -> ContextFile | None:
    """The project context file (agent/prompts/context_search.py: the nearest directory from cwd
    up to the git root, .hermes.md > HERMES.md > AGENTS.md > CLAUDE.md > .cursorrules).
    Unreadable and binary files are skipped (`context_problems` says why)."""
    candidates, root = search(cwd)
    for path in candidates:
        text, _problem = _load(path, root or cwd)
        if text is not None:
            label = path.name if path.parent == cwd else str(path.relative_to(root or cwd))
            return ContextFile(name=storable(label), text=text)
    return None


def read_soul(home: Path) -> str | None:
    """HERMES_HOME/SOUL.md, or None when absent/unreadable/binary/empty."""
    text, _problem = _load(home / "SOUL.md", home)
    return text if text and text.strip() else None


def context_problems(home: Path, cwd: Path) -> list[str]:
    """Warnings for a person: SOUL.md or a context file refused as binary."""
    found = [_load(home / "SOUL.md", home)[1]]
    candidates, root = search(cwd)
    for path in candidates:
        text, problem = _load(path, root or cwd)
        found.append(problem)
        if text is not None:
            break
    return [p for p in found if p]


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
