"""Custom slash commands: Markdown files that become a user message (Claude Code's shape).

`HERMES_HOME/commands/NAME.md` (the user's) and a trusted project's
`.hermes/commands/NAME.md` or `.claude/commands/NAME.md` (frontend/project.py) make
`/NAME args`: the file's text with
`$ARGUMENTS` replaced by `args` and `$1`..`$9` by its shell words (`args` is appended
after a blank line when the file uses neither) is sent as the message. Optional front
matter between `---` lines: `description:` (shown in /help and completion),
`argument-hint:` (the usage), `model:` (this one message goes to that model),
`allowed-tools:` (tools this command's turn may use without asking, as permission rules:
`Bash(git status:*), Read`). In the body, `` !`cmd` `` runs `cmd` through the sandboxed
terminal tool before the message is sent and puts its output there, and `@path` attaches
the file (frontend/command_run.py runs both).
A project's file wins over the user's of the same name. A file named like a built-in
command (/model, /plan, ...) never shadows it: it is left out with a warning. Files are
read beneath their folder (safefs: a link out of it is refused).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

import safefs
from frontend.command_table import lookup

NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
MAX_BYTES = 64_000
PLACEHOLDER = "$ARGUMENTS"
POSITIONAL = re.compile(r"\$([1-9])(?![0-9])")
SHELL = re.compile(r"!`([^`\n]+)`")


@dataclass(frozen=True)
class CustomCommand:
    name: str
    body: str
    description: str
    hint: str
    scope: str  # "user" | "project"
    path: str
    model: str = ""  # front matter `model:`: this one message's model
    allowed_tools: tuple[str, ...] = ()  # front matter `allowed-tools:`, as permission rules

    def expand(self, args: str) -> str:
        """The message: `$ARGUMENTS` and `$1`..`$9` replaced everywhere, the shell
        commands included (as Claude Code does); `args` appended when the file uses neither."""
        args = args.strip()
        words = _words(args)
        uses = PLACEHOLDER in self.body or POSITIONAL.search(self.body) is not None
        text = POSITIONAL.sub(lambda m: words[int(m.group(1)) - 1]
                              if int(m.group(1)) <= len(words) else "", self.body)
        text = text.replace(PLACEHOLDER, args).strip()
        return text if uses or not args else f"{text}\n\n{args}"


def shell_commands(text: str) -> tuple[str, ...]:
    """The `` !`cmd` `` commands of an expanded command text, in order."""
    return tuple(m.group(1).strip() for m in SHELL.finditer(text))


def fill_outputs(text: str, outputs: list[str]) -> str:
    """`text` with its first `` !`cmd` ``s replaced by `outputs`, in order (files attached
    after them are left as they are)."""
    parts = iter(outputs)
    return SHELL.sub(lambda m: next(parts, m.group(0)), text, count=len(outputs))


def _words(args: str) -> list[str]:
    """`$1`..`$9`: the arguments as shell words ("a 'b c'" -> a, b c); unbalanced
    quotes fall back to whitespace."""
    try:
        return shlex.split(args)
    except ValueError:
        return args.split()


def _tool_list(text: str) -> tuple[str, ...]:
    """`Bash(git add:*), Read` -> ("Bash(git add:*)", "Read"): commas inside () kept."""
    out, depth, word = [], 0, ""
    for char in text.strip().strip("[]"):
        depth += (char == "(") - (char == ")")
        if char == "," and depth == 0:
            out.append(word)
            word = ""
        else:
            word += char
    out.append(word)
    return tuple(w.strip().strip("\"'") for w in out if w.strip())


@dataclass(frozen=True)
class CustomCommands:
    commands: tuple[CustomCommand, ...] = ()

    def get(self, name: str) -> CustomCommand | None:
        name = name.lstrip("/").lower()
        return next((c for c in self.commands if c.name == name), None)

    def __bool__(self) -> bool:
        return bool(self.commands)


def load(home: Path | None, project_dirs: Path | tuple[Path, ...] | None,
         warnings: list[str]) -> CustomCommands:
    """The user's commands (none when `home` is None), then the project's (`project_dirs`:
    its .claude/commands and .hermes/commands, only when trusted; a later folder wins a
    name); problems are appended to `warnings`, one line each."""
    found: dict[str, CustomCommand] = {}
    dirs = (project_dirs,) if isinstance(project_dirs, Path) else project_dirs or ()
    user = (("user", home / "commands"),) if home is not None else ()
    for scope, folder in (*user, *(("project", d) for d in dirs)):
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
                         _one_line(meta.get("argument-hint", "")), scope, str(path),
                         model=meta.get("model", "").strip(),
                         allowed_tools=_tool_list(meta.get("allowed-tools", "")))


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
