"""Documents sent to the bot: saved into the chat's workspace (gateway/workspaces.py,
the directory its tools work in), under uploads/, and named in the message the model
reads. The chat owner's workspace is the sandbox's writable root for that chat, so a
file never lands anywhere a tool of another chat could see.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import safefs
from gateway.chat.base import Document
from gateway.workspaces import tenant_workspace

MAX_BYTES = 20 * 1024 * 1024  # the Bot API's getFile limit


def safe_name(name: str) -> str:
    """A file name with no directory parts or odd characters (never empty)."""
    base = Path(name.replace("\\", "/")).name
    cleaned = re.sub(r"[^\w.\- ]", "_", base).strip(" .")[:120]
    return cleaned or "file"


def save(home: Path, owner: str, doc: Document, data: bytes) -> tuple[str, str]:
    """Save `doc` as <workspace>/uploads/<name> (numbered if the name is taken):
    (name, "") when saved, ("", why) when not. Nothing follows a link: `uploads` is
    opened with no symbolic link in its path and the file is made with O_EXCL|O_NOFOLLOW,
    so a link the chat's own tools planted (uploads -> ~/.ssh) is refused, not written
    through."""
    workspace = str(tenant_workspace(home, owner))
    name = safe_name(doc.name)
    try:
        os.close(safefs.open_dir(workspace, "uploads", create=True, links=False, mode=0o700))
    except safefs.Escape:
        return "", f"{name}, which was not saved: uploads/ in the working directory is a link"
    stem, suffix = Path(name).stem, Path(name).suffix
    for number in range(1, 1000):
        candidate = name if number == 1 else f"{stem}-{number}{suffix}"
        try:
            safefs.create_new(workspace, f"uploads/{candidate}", data)
            return candidate, ""
        except FileExistsError:
            continue
    return "", f"{name}, which was not saved: too many files of that name"


def mention(saved: list[str], refused: list[str]) -> str:
    """The note appended to the user's message (what the model is told)."""
    lines = [f"[The user sent a file, saved as {name} in your working directory.]"
             for name in saved]
    lines += [f"[The user sent {name}.]" if "not saved" in name else
              f"[The user sent {name}, which was not saved: larger than 20 MB.]"
              for name in refused]
    return "\n".join(lines)
