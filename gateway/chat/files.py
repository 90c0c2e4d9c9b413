"""Documents sent to the bot: saved into the chat's workspace (gateway/workspaces.py,
the directory its tools work in), under uploads/, and named in the message the model
reads. The chat owner's workspace is the sandbox's writable root for that chat, so a
file never lands anywhere a tool of another chat could see.
"""

from __future__ import annotations

import re
from pathlib import Path

from gateway.chat.base import Document
from gateway.workspaces import tenant_workspace

MAX_BYTES = 20 * 1024 * 1024  # the Bot API's getFile limit


def safe_name(name: str) -> str:
    """A file name with no directory parts or odd characters (never empty)."""
    base = Path(name.replace("\\", "/")).name
    cleaned = re.sub(r"[^\w.\- ]", "_", base).strip(" .")[:120]
    return cleaned or "file"


def destination(home: Path, owner: str, doc: Document) -> Path:
    """Where `doc` is saved: <workspace>/uploads/<name>, numbered if the name is taken."""
    folder = tenant_workspace(home, owner) / "uploads"
    folder.mkdir(mode=0o700, exist_ok=True)
    name = safe_name(doc.name)
    path = folder / name
    stem, suffix = path.stem, path.suffix
    number = 1
    while path.exists():
        number += 1
        path = folder / f"{stem}-{number}{suffix}"
    return path


def mention(saved: list[str], refused: list[str]) -> str:
    """The note appended to the user's message (what the model is told)."""
    lines = [f"[The user sent a file, saved as {name} in your working directory.]"
             for name in saved]
    lines += [f"[The user sent {name}, which was not saved: larger than 20 MB.]"
              for name in refused]
    return "\n".join(lines)
