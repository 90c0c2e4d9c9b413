"""Custom slash commands: Markdown files that become a user message (Claude Code's shape).

`HERMES_HOME/commands/NAME.md` (the user's) and a trusted project's
`.hermes/commands/NAME.md` (frontend/project.py) make `/NAME args`: the file's text with
`$ARGUMENTS` replaced by `args` (appended after a blank line when the file does not say
`$ARGUMENTS`) is sent as the message. Optional front matter between `---` lines:
`description:` (shown in /help and completion) and `argument-hint:` (the usage).
A project's file wins over the user's of the same name. A file named like a built-in
command (/model, /plan, ...) never shadows it: it is left out with a warning. Files are
read beneath their folder (safefs: a link out of it is refused).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import safefs
from frontend.command_table import lookup

NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
MAX_BYTES = 64_000
PLACEHOLDER = "$ARGUMENTS"


@dataclass(frozen=True)
class CustomCommand:
    name: str
    body: str
    description: str
    hint: str
    scope: str  # "user" | "project"
    path: str

    def expand(self, args: str) -> str:
        args = args.strip()
        if PLACEHOLDER in self.body:
            return self.body.replace(PLACEHOLDER, args).strip()
        return f"{self.body.strip()}\n\n{args}" if args else self.body.strip()


@dataclass(frozen=True)
class CustomCommands:
    commands: tuple[CustomCommand, ...] = ()

    def get(self, name: str) -> CustomCommand | None:
        name = name.lstrip("/").lower()
        return next((c for c in self.commands if c.name == name), None)

    def __bool__(self) -> bool:
        return bool(self.commands)


def load(home: Path, project_dir: Path | None, warnings: list[str]) -> CustomCommands:
    """The user's commands, then the project's (`project_dir`: its .hermes/commands, only
    when trusted); problems are appended to `warnings`, one line each."""
    found: dict[str, CustomCommand] = {}
    for scope, folder in (("user", home / "commands"), ("project", project_dir)):
        if folder is None or not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.md")):
            command = _read(path, scope, warnings)
            if command is not None:
                found[command.name] = command
    return CustomCommands(tuple(sorted(found.values(), key=lambda c: c.name)))


def _read(path: Path, scope: str, warnings: list[str]) -> CustomCommand | None:
    name = path.stem.lower()
    if not NAME.match(name):
        warnings.append(f"{path}: a command name is lowercase letters, digits, - and _ "
                        "(up to 64): left out")
        return None
    if lookup(name) is not None:
        warnings.append(f"{path}: /{name} is a built-in command, which a custom command never "
                        "shadows: left out (rename the file)")
        return None
    try:
        raw = safefs.read_bytes(str(path.parent), path.name)
    except (OSError, ValueError, safefs.Escape) as exc:
        warnings.append(f"{path}: cannot read it ({getattr(exc, 'strerror', None) or exc}): left out")
        return None
    if len(raw) > MAX_BYTES:
        warnings.append(f"{path}: larger than {MAX_BYTES:,} bytes: left out")
        return None
    text = raw.decode("utf-8", errors="replace").lstrip("\ufeff")
    meta, body = front_matter(text)
    if not body.strip():
        warnings.append(f"{path}: empty: left out")
        return None
    return CustomCommand(name, body, _one_line(meta.get("description", "")),
                         _one_line(meta.get("argument-hint", "")), scope, str(path))


def front_matter(text: str) -> tuple[dict[str, str], str]:
    """(`key: value` pairs of a leading `---` block, the rest); no block: ({}, text)."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return {}, text
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            meta = {}
            for line in lines[1:index]:
                key, sep, value = line.partition(":")
                if sep and key.strip():
                    meta[key.strip().lower()] = value.strip().strip("\"'")
            return meta, "".join(lines[index + 1:])
    return {}, text


def _one_line(text: str) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= 80 else line[:77] + "..."
