"""A file deny rule enforced by the sandbox too, so it holds for every tool - the
terminal's commands included, not only the file tools that ask the rules first
(docs/PERMISSIONS.md, "File rules").

- a deny on reading (`read_file(...)`, `search_files(...)`) hides the path from the
  sandbox (`SandboxSettings.hidden`): a command sees nothing there;
- a deny on writing (`write_file(...)`, `patch(...)`) makes it read-only inside the
  sandbox (`SandboxSettings.readonly`, bound read-only onto itself when it exists: a
  folder's new files refused too).

A glob is enforced from its literal head: `./secrets/**` hides `./secrets`, `config/*.yaml`
makes `config` read-only. A pattern whose literal head is the workspace itself (or above
it: `**/*.pem`) cannot be enforced by a mount without taking the whole workspace: it stays
the file tools' rule, and docs/PERMISSIONS.md says so.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from agent.permissions.rules import READ_TOOLS, WRITE_TOOLS, Rules
from agent.sandbox.policy import SandboxSettings, inside

_WILD = ("*", "?", "[")


def enforced(settings: SandboxSettings, rules: Rules | None, workspace: Path) -> SandboxSettings:
    """`settings` with the file deny rules of `rules` added as hidden and read-only paths."""
    if rules is None:
        return settings
    hidden, readonly = [], []
    for rule in rules.rules:
        if rule.kind != "deny" or rule.pattern is None:
            continue
        head = literal_head(rule.pattern, workspace)
        if head is None:
            continue
        if rule.tool in READ_TOOLS:
            hidden.append(head)
        elif rule.tool in WRITE_TOOLS:
            readonly.append(head)
    if not hidden and not readonly:
        return settings
    return replace(settings, hidden=(*settings.hidden, *hidden),
                   readonly=(*settings.readonly, *readonly))


def literal_head(pattern: str, workspace: Path) -> str | None:
    """The absolute path a file pattern's wildcard-free leading components name (None when
    that is the workspace itself or a folder holding it: not enforceable by a mount)."""
    home = os.path.expanduser("~")
    text = pattern[1:] if pattern.startswith("//") else pattern  # Claude Code's `//abs`
    text = home + text[1:] if text == "~" or text.startswith("~/") else text
    base = os.path.realpath(workspace)
    parts = os.path.normpath(os.path.join(base, text)).split("/")
    literal: list[str] = []
    for part in parts:
        if any(c in part for c in _WILD):
            break
        literal.append(part)
    head = "/".join(literal) or "/"
    return None if inside(base, head) else head
