"""HERMES_HOME is private: the directory 0700, its databases (with their -wal/-shm),
history, .env and config 0600. Made so at creation and fixed on every start, because
older versions (and a 022 umask) left them 0755/0644."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

PRIVATE_FILES = ("state.db", "gateway.db", "repl_history", ".env", "config.yaml")
SQLITE_SIDECARS = ("-wal", "-shm", "-journal")


def private_dir(path: Path) -> None:
    """Create `path` (and parents) if needed; the directory itself ends up 0700."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    _chmod(path, 0o700)


def private_file(path: Path) -> None:
    """Create `path` empty and 0600 if missing (before SQLite or a history opens it:
    SQLite gives its -wal/-shm the database file's mode); else make it 0600."""
    private_dir(path.parent)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600))
    _chmod(path, 0o600)


def write_private(path: Path, text: str) -> None:
    """Replace `path` by `text` atomically (a 0600 temp file renamed over it)."""
    private_file(path)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


def secure_home(home: Path) -> None:
    """Fix the modes of an existing HERMES_HOME (called at start)."""
    if not home.is_dir():
        return
    _chmod(home, 0o700)
    for name in PRIVATE_FILES:
        for suffix in ("", *SQLITE_SIDECARS) if name.endswith(".db") else ("",):
            target = home / (name + suffix)
            if target.is_file():
                _chmod(target, 0o600)
    memories = home / "memories"
    if memories.is_dir():
        _chmod(memories, 0o700)
        for entry in memories.iterdir():
            if entry.is_file():
                _chmod(entry, 0o600)


def _chmod(path: Path, mode: int) -> None:
    try:
        if path.stat().st_uid == os.geteuid():
            os.chmod(path, mode)
    except OSError:
        pass  # not ours, or gone: leave it (the start must not fail over a mode)
