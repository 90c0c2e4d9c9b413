"""Small helpers shared by the built-in tools: paths, optional arguments, file bytes.

Relative paths resolve against the session's working directory: `ctx.state.cwd`
(moved by `cd` in the terminal tool) when set and still present, else `ctx.cwd`. So
`read_file("x")` after `terminal("cd sub")` reads `sub/x`, as in a shell.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from agent.errors import ToolError
from agent.tools.registry import ToolContext

# Folders never worth searching or listing.
SKIP_DIRS = frozenset({".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__",
                       ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox"})
SNIFF_BYTES = 8192


def session_cwd(ctx: ToolContext) -> Path:
    """The session's current working directory (see the module docstring)."""
    moved = ctx.state.cwd
    if moved and Path(moved).is_dir():
        return Path(moved)
    return Path(ctx.cwd)


def resolve(ctx: ToolContext, raw: str) -> Path:
    """An absolute, normalised path for `raw` (`~` expanded; relative to the session cwd)."""
    if not raw or not raw.strip():
        raise ToolError("the path is empty")
    path = Path(os.path.expanduser(raw.strip()))
    if not path.is_absolute():
        path = session_cwd(ctx) / path
    return Path(os.path.normpath(path))


def display(ctx: ToolContext, path: Path) -> str:
    """`path` relative to the session cwd when inside it, else absolute."""
    try:
        rel = path.relative_to(session_cwd(ctx))
    except ValueError:
        return str(path)
    return rel.as_posix() if str(rel) != "." else "."


def looks_binary(chunk: bytes) -> bool:
    """True when the first bytes of a file contain a NUL byte (the classic heuristic)."""
    return b"\0" in chunk[:SNIFF_BYTES]


def opt_int(args: dict[str, Any], key: str, default: int, lo: int, hi: int) -> int:
    """An optional integer argument, clamped to [lo, hi]."""
    value = args.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ToolError(f"argument '{key}' must be an integer")
    try:
        number = int(value)
    except ValueError as exc:
        raise ToolError(f"argument '{key}' must be an integer, not {value!r}") from exc
    return max(lo, min(hi, number))


def opt_bool(args: dict[str, Any], key: str, default: bool = False) -> bool:
    """An optional boolean argument (accepts true/false strings from sloppy models)."""
    value = args.get(key)
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in {"true", "false"}:
        return value.lower() == "true"
    raise ToolError(f"argument '{key}' must be true or false")


def opt_str(args: dict[str, Any], key: str) -> str | None:
    """An optional string argument; empty strings count as absent."""
    value = args.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ToolError(f"argument '{key}' must be a string")
    return value
