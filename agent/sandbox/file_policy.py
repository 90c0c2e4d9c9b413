"""The sandbox's policy, applied in-process by the file tools.

Paths are judged by their real path (`..` and symlinks resolved) and as given:
- secret locations (HERMES_HOME, ~/.ssh, ...; see agent/sandbox/policy.py) are never read,
  listed or searched;
- nor is the home outside its allowlist (agent/sandbox/home.py): the file tools see the
  home the terminal sees, with the workspace, ~/.gitconfig, tool caches and
  `sandbox.home_allow` in it, and refuse the rest;
- MEMORY.md / USER.md change only through the memory tool;
- a permission rule denying to write a path (`write_file(...)`/`patch(...)`) holds for
  every write through here, whatever tool makes it;
- writes outside the writable roots need a person: the REPL asks (`ctx.approve`), every
  other front end (one-shot with or without --yolo, the gateway) refuses.
With the sandbox turned off (--no-sandbox) only the memory-file rule stays.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from agent.errors import ToolError
from agent.sandbox.arming import guarded
from agent.sandbox.backend import BoxHolder, BoxState, sandbox_for
from agent.sandbox.policy import inside_any


class ReadRules(Protocol):
    """What the policy asks of the permission rules (agent.permissions.rules.Rules, a room
    above this one): the rule denying to read or to write `path`, if any."""

    def read_denied(self, path: Path, workspace: Path) -> object | None: ...
    def write_denied(self, path: Path, workspace: Path) -> object | None: ...


class FileState(BoxState, Protocol):
    """What the policy keeps in a session's tool state (agent.tools.registry.ToolState)."""

    allowed_writes: set[str]  # outside-root writes a person allowed


class ToolContext(BoxHolder, Protocol):
    """What the policy reads of a tool context (agent.tools.registry.ToolContext, which
    the tools room holds above this one): the sandbox builders' view, and more."""

    @property
    def state(self) -> FileState: ...
    @property
    def approve(self) -> Callable[[str, str], bool] | None: ...
    @property
    def services(self) -> object: ...  # its `notes` (memory.notes.Notes), when set
    @property
    def permissions(self) -> ReadRules | None: ...  # the rules whose read denies skip files

MEMORY_FILES = ("MEMORY.md", "USER.md")


def hidden(ctx: ToolContext, path: Path) -> bool:
    box = sandbox_for(ctx)
    return box.enabled and box.policy.is_hidden(path)


def unreadable(ctx: ToolContext, path: Path) -> bool:
    """Hidden by the sandbox, or under a permission rule that denies reading it (a search
    of a folder skips such files instead of refusing the whole search)."""
    rules = ctx.permissions
    return hidden(ctx, path) or (rules is not None and rules.read_denied(path, Path(ctx.cwd)) is not None)


def guard_read(ctx: ToolContext, path: Path) -> None:
    if hidden(ctx, path):
        view = sandbox_for(ctx).policy
        if view.home_view is not None and not any(
                inside_any(p, view.hidden) for p in (os.path.realpath(path), os.path.abspath(path))):
            raise ToolError(f"refused: {path} is in the user's home outside what tools see (the "
                            "workspace, ~/.gitconfig, tool caches and `sandbox.home_allow`); tools "
                            "neither read nor write it. The user may add it to `sandbox.home_allow` "
                            "(to read) or `sandbox.writable` (to write) in config.yaml.")
        raise ToolError(f"refused: {path} is a secret location (credentials, or hermes' own "
                        "store and config); tools never read it. Ask the user if you need "
                        "something from it.")


def guard_write(ctx: ToolContext, path: Path) -> None:
    rules = ctx.permissions
    rule = rules.write_denied(path, Path(ctx.cwd)) if rules is not None else None
    if rule is not None:  # with the sandbox or without, whichever tool writes
        raise ToolError(f"refused by the permission rule deny `{getattr(rule, 'text', rule)}` "
                        f"({getattr(rule, 'source', 'config')}) on writing {path}. Do not retry it; "
                        "find another way or ask the user.")
    real = os.path.realpath(path)
    notes = getattr(ctx.services, "notes", None)
    memories = os.path.realpath(notes.dir if notes is not None else Path(ctx.home) / "memories")
    if os.path.dirname(real) == memories and os.path.basename(real) in MEMORY_FILES:
        raise ToolError("refused: MEMORY.md and USER.md change only through the memory tool "
                        "(which checks what goes in); use it instead.")
    box = sandbox_for(ctx)
    if not box.enabled:
        return
    guard_read(ctx, path)
    armed = guarded(box.policy.workspace, real)
    if armed and armed not in box.policy.allow_arming and real not in ctx.state.allowed_writes:
        why = f"{armed} runs programs later, outside the sandbox"
        _ask(ctx, path, real, why, f"refused: {path} is under {why}. Ask the user to make "
             "this change themselves (or to allow it in `sandbox.allow_arming`).")
        return
    if box.policy.may_write(real) or real in ctx.state.allowed_writes:
        return
    roots = ", ".join(box.policy.writable)
    _ask(ctx, path, real, f"outside the writable directories ({roots})",
         f"refused: {path} is outside the directories tools may write ({roots}). "
         "Write inside the workspace instead, or ask the user to do it.")


def _ask(ctx: ToolContext, path: Path, real: str, why: str, refusal: str) -> None:
    """A person at the REPL may allow the write (remembered for the session)."""
    if ctx.approve is None:
        raise ToolError(refusal)
    if not ctx.approve(f"write {real}", why):
        raise ToolError(f"the user declined the write to {path}. Do not retry it; write inside "
                        "the workspace or ask the user how to proceed.")
    ctx.state.allowed_writes.add(real)
