"""The file tools' only way to the disk: each path opened beneath the root that holds it.

The root of a path is the outermost writable root of the session's sandbox policy
(workspace, temp dir, `sandbox.writable`) that holds it - found by name, from the top,
so no link a tool planted can choose it - else `/` (a path nothing sandboxed can change
on the way). safefs then resolves the rest through descriptors: links inside the root
are followed, links leaving it are refused, and a directory swapped for a link while we
work cannot send a read or a write elsewhere. After the open, the descriptor's real
path is checked against the hidden locations (reads) and the writable roots (writes),
so even a root as wide as $HOME never hands out ~/.ssh.
"""

from __future__ import annotations

import os
from pathlib import Path

import safefs
from agent.errors import ToolError
from agent.sandbox.backend import sandbox_for
from agent.sandbox.policy import inside
from agent.tools.registry import ToolContext


def locate(ctx: ToolContext, path: Path) -> tuple[str, str]:
    """(root, path relative to it) for an absolute, normalised `path`."""
    roots = sorted(sandbox_for(ctx).policy.writable, key=len)
    text = str(path)
    for root in roots:  # fast path: the name itself starts with a (real) root
        if inside(text, root):
            return root, os.path.relpath(text, root)
    parts = path.parts
    for depth in range(2, len(parts)):  # else the first ancestor whose real path is in one
        real = os.path.realpath(Path(*parts[:depth]))
        for root in roots:
            if inside(real, root):
                return root, os.path.relpath(os.path.join(real, *parts[depth:]), root)
    return "/", text.lstrip("/") or "."


def _refusal(ctx: ToolContext, path: Path, root: str) -> ToolError:
    return ToolError(f"refused: {path} leads outside {root} through a symbolic link (or '..'); "
                     "file tools follow links only inside the directory that holds them. "
                     "Use the link's target path if it is somewhere you may work.")


def _hidden_error(path: Path) -> ToolError:
    return ToolError(f"refused: {path} is a secret location (credentials, or hermes' own store "
                     "and config); tools never read it. Ask the user if you need something "
                     "from it.")


def open_read(ctx: ToolContext, path: Path) -> int:
    """A read-only descriptor of the regular file `path`. Raises ToolError for a link out
    or a hidden target; FileNotFoundError / safefs.NotRegular (errno 21 = a directory)."""
    root, rel = locate(ctx, path)
    try:
        fd = safefs.open_regular(root, rel)
    except safefs.Escape:
        raise _refusal(ctx, path, root) from None
    box = sandbox_for(ctx)
    if box.enabled and box.policy.is_hidden(safefs.fd_path(fd)):
        os.close(fd)
        raise _hidden_error(path)
    return fd


def read_bytes(ctx: ToolContext, path: Path) -> bytes:
    """`path`'s bytes: opened here first (links out and hidden targets refused), then
    read from the session's file port when it has one (agent/tools/file_port.py)."""
    with os.fdopen(open_read(ctx, path), "rb") as handle:
        port = ctx.services.files
        text = None if port is None else port.read_text(path)
        return handle.read() if text is None else text.encode("utf-8")


def read_existing(ctx: ToolContext, path: Path) -> bytes | None:
    """`path`'s bytes, None when it does not exist (ToolError for what open_read refuses)."""
    try:
        return read_bytes(ctx, path)
    except FileNotFoundError:
        return None


def kind(ctx: ToolContext, path: Path) -> os.stat_result | None:
    """`path`'s status through safefs (None when missing; ToolError for a link out)."""
    root, rel = locate(ctx, path)
    try:
        return safefs.stat_beneath(root, rel)
    except safefs.Escape:
        raise _refusal(ctx, path, root) from None
    except NotADirectoryError:
        return None


def write_bytes(ctx: ToolContext, path: Path, data: bytes) -> None:
    """Replace `path` by `data` beneath its root (parents made, mode kept); the directory
    it lands in must be writable (or approved) by the time it is opened."""
    root, rel = locate(ctx, path)
    box = sandbox_for(ctx)

    def check(where: str) -> None:
        if not box.enabled:
            return
        if box.policy.is_hidden(where):
            raise _hidden_error(path)
        if not (box.policy.may_write(where) or os.path.realpath(where) in ctx.state.allowed_writes):
            raise ToolError(f"refused: {path} now resolves to {where}, outside the directories "
                            "tools may write")

    port = ctx.services.files
    if port is not None:  # the same check on where it lands, then the port writes
        check(os.path.dirname(os.path.realpath(path)))
        if port.write_text(path, data.decode("utf-8")):
            return
    try:
        safefs.write_atomic(root, rel, data, check=check)
    except safefs.Escape:
        raise _refusal(ctx, path, root) from None
