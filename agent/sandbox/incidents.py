"""Changes the arming guard could not undo, kept until the user has seen them.

When a sandboxed command leaves something the guard (agent/sandbox/arming.py) cannot put
back ("... - check it"), the workspace is recorded in HERMES_HOME/arming_incidents.json
(0600; hidden from the sandbox). frontend/project.py treats a project holding such a
workspace as untrusted until the user confirms again at the REPL's trust question
(`clear` then); one-shot runs leave its settings unapplied with a notice.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from agent.sandbox.policy import inside
from memory.private import write_private

FILE = "arming_incidents.json"
MAX_LINES = 20


def _lines(entry: object) -> list[str]:
    raw = entry.get("lines") if isinstance(entry, dict) else None
    return [str(x) for x in raw if isinstance(x, str)] if isinstance(raw, list) else []


def _table(home: Path) -> dict[str, dict[str, object]]:
    try:
        data = json.loads((home / FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _save(home: Path, table: dict[str, dict[str, object]]) -> None:
    write_private(home / FILE, json.dumps(table, indent=1, sort_keys=True))


def record(home: Path, workspace: str, lines: list[str]) -> None:
    """The guard left `lines` it could not undo in `workspace`."""
    table = _table(home)
    kept = _lines(table.get(workspace))
    table[workspace] = {"at": datetime.now(UTC).isoformat(timespec="seconds"),
                        "lines": (kept + lines)[-MAX_LINES:]}
    _save(home, table)


def under(home: Path, root: Path) -> list[str]:
    """What could not be undone in workspaces inside (or holding) the project `root`."""
    found: list[str] = []
    for workspace, entry in _table(home).items():
        if inside(workspace, str(root)) or inside(str(root), workspace):
            found += _lines(entry)
    return found


def clear(home: Path, root: Path) -> None:
    """The user has seen them (answered the trust question again)."""
    table = _table(home)
    kept = {w: e for w, e in table.items() if not (inside(w, str(root)) or inside(str(root), w))}
    if kept != table:
        _save(home, kept)
