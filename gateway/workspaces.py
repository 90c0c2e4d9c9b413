"""Each gateway tenant (API key owner) works in its own directory:
HERMES_HOME/workspaces/<first 16 hex digits of the owner id>. The sandbox hides the rest
of HERMES_HOME (the store, the config, the other tenants' workspaces) from its tools."""

from __future__ import annotations

import os
from pathlib import Path

from memory.tenants import tenant_name


def tenant_workspace(home: Path, owner: str | None) -> Path:
    """The owner's workspace, created 0700 on first use."""
    root = home / "workspaces"
    path = root / tenant_name(owner)
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.mkdir(mode=0o700, exist_ok=True)
    os.chmod(path, 0o700)
    return path
