"""Where a gateway tenant's own state lives under HERMES_HOME.

A tenant is an owner id (SHA-256 hex of a client key, or of a chat platform + chat id).
Its name on disk is the first 16 hex digits: HERMES_HOME/workspaces/<name> is the
directory its tools work in (gateway/workspaces.py), HERMES_HOME/tenants/<name> holds
what only hermes writes for it (its MEMORY.md/USER.md, and the skills hermes wrote
for it when `gateway.skills_writable` is on). The second lies outside the
workspace, so the tenant's own terminal and file tools cannot edit it, and the sandbox
hides it with the rest of HERMES_HOME. The operator (the CLI, owner None) keeps
HERMES_HOME/memories, which no tenant ever reads.
"""

from __future__ import annotations

import re
from pathlib import Path


def tenant_name(owner: str | None) -> str:
    """The owner's directory name: its first 16 alphanumerics ("anonymous" when none)."""
    return re.sub(r"[^0-9a-zA-Z]", "", owner or "")[:16] or "anonymous"


def notes_dir(home: Path, owner: str | None) -> Path:
    """Where MEMORY.md/USER.md of `owner` live: the operator's HERMES_HOME/memories for
    None, else HERMES_HOME/tenants/<name>/memories (nothing is created here)."""
    if owner is None:
        return Path(home) / "memories"
    return Path(home) / "tenants" / tenant_name(owner) / "memories"


def skills_dir(home: Path, owner: str | None) -> Path:
    """Where `owner` keeps the skills hermes writes for it: the installation's
    HERMES_HOME/skills for the operator (None), else HERMES_HOME/tenants/<name>/skills,
    outside the tenant's workspace (nothing is created here)."""
    if owner is None:
        return Path(home) / "skills"
    return Path(home) / "tenants" / tenant_name(owner) / "skills"
