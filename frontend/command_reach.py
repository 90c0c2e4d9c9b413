"""What a project's command file reaches: the files its `@path`s attach and the commands
its `` !`cmd` ``s run, and which of them reach outside the project.

A project's command file (`.claude/commands/`, `.hermes/commands/`) is whoever wrote the
repository's: it attaches and runs only inside the project. An `@path` outside it (`~`,
an absolute path, `..` out of it) and a `` !`cmd` `` naming such a path, a computed one
(`$HOME/...`) or a line hermes cannot read are refused before anything is attached or
run (frontend/command_run.py `refusal`), unless the user typed it: the arguments
(`$ARGUMENTS`, `$1`..`$9`) are the user's, so `/review @~/notes.md` attaches it. The
trust question lists, per file, what it attaches and runs (hermes_cli/repl/trust.py).
The user's own files (HERMES_HOME/commands) are the user's words and are not confined.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from agent.permissions.shell import analyse
from agent.permissions.shell_lex import Lexed, Unclear, lex
from frontend.custom_commands import PLACEHOLDER, POSITIONAL, CustomCommand, shell_commands
from frontend.mentions import MENTION, TRAILING

SYSTEM = ("/usr/", "/bin/", "/sbin/", "/lib/", "/opt/homebrew/bin/")  # programs, not data
HARMLESS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin"})
_ARG = "ARG"  # what a placeholder stands for while the file's own text is judged


@dataclass(frozen=True)
class Reach:
    attaches: tuple[str, ...]  # the file's own `@path`s, as written
    runs: tuple[str, ...]  # its `` !`cmd` ``s, as written
    outside: tuple[str, ...]  # what of them reaches outside the project, one phrase each


def project_root(command: CustomCommand) -> Path | None:
    """The project a command file belongs to (None: the user's own file)."""
    if command.scope != "project":
        return None
    return Path(command.path).resolve().parents[2]  # ROOT/.claude/commands/NAME.md


def reach(command: CustomCommand, cwd: Path, args: str = "") -> Reach:
    """What `command`'s own text attaches and runs (placeholders are the user's, and so
    is a mention the user also typed in `args`)."""
    typed = {m.group(1).strip('"') for m in MENTION.finditer(args)}
    root = project_root(command)
    body = command.body
    attaches = tuple(m.group(1).strip('"') for m in MENTION.finditer(body))
    runs = shell_commands(body)
    outside: list[str] = []
    if root is not None:
        for word in attaches:
            if word not in typed and not _typed(word) and not _inside(_neutral(word.rstrip(TRAILING)), cwd, root):
                outside.append(f"attaches @{word}")
        for line in runs:
            why = _line_outside(_neutral(line), cwd, root)
            if why:
                outside.append(f"runs !`{line}` ({why})")
    return Reach(attaches, runs, tuple(outside))


def describe(command: CustomCommand, cwd: Path) -> str:
    """One line for the trust question: `/review attaches @x; runs !`git diff``."""
    found = reach(command, cwd)
    parts = [f"attaches {', '.join('@' + a for a in found.attaches)}" if found.attaches else "",
             f"runs {', '.join('!`' + r + '`' for r in found.runs)}" if found.runs else ""]
    text = "; ".join(p for p in parts if p) or "text only"
    if found.outside:
        text += f" - OUTSIDE the project, refused unless you type it: {'; '.join(found.outside)}"
    return f"/{command.name} ({Path(command.path).parent.parent.name}/commands/{Path(command.path).name}): {text}"


def _typed(word: str) -> bool:
    """A mention that starts with the user's arguments (`@$1`) is the user's path."""
    return word.startswith(PLACEHOLDER) or POSITIONAL.match(word) is not None


def _neutral(text: str) -> str:
    """`text` with the user's arguments as a plain word (`~/$1` stays outside)."""
    return POSITIONAL.sub(_ARG, text.replace(PLACEHOLDER, _ARG))


def _inside(text: str, cwd: Path, root: Path) -> bool:
    """Does the path `text` (relative to `cwd`) stay inside `root`, links resolved?"""
    if text.startswith("~") or text.startswith("$"):
        return False
    path = os.path.realpath(os.path.join(cwd, os.path.expanduser(text)))
    base = os.path.realpath(root)
    return path == base or path.startswith(base.rstrip("/") + "/")


def _line_outside(line: str, cwd: Path, root: Path) -> str:
    """Why the command `line` reaches outside the project ("" when it does not)."""
    unclear = analyse(line).unclear
    if unclear:
        return f"hermes cannot tell what it runs: {unclear}"
    try:
        lexed = lex(line)
    except Unclear as exc:
        return str(exc)
    for token in _words(lexed):
        text = token.text
        if token.dynamic and ("$" in text or text.startswith("~")):
            if text.startswith(("$", "~")) or "/" in text:
                return f"`{text}` is a path computed when it runs"
            continue
        if text in HARMLESS or text.startswith(SYSTEM) or not _pathlike(text):
            continue
        if not _inside(text.split("=", 1)[-1], cwd, root):
            return f"`{text}` is outside the project"
    return ""


def _pathlike(text: str) -> bool:
    value = text.split("=", 1)[-1] if text.startswith("-") else text
    return value.startswith(("/", "~")) or value == ".." or value.startswith("../") or "/../" in value


def _words(lexed: Lexed) -> list:
    found = [t for t in lexed.tokens if t.kind == "word"]
    for inner in lexed.inner:
        found += _words(inner)
    return found
