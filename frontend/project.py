"""A project's own settings, `.hermes/` at its root, and the user's trust in them.

The project root is the git root above the working directory (the working directory
outside a repository). Its `.hermes/config.yaml` may hold `permissions:` and `hooks:`
(other keys are the user's alone: ignored with a warning) and `.hermes/commands/*.md`
custom commands. None of it applies until the user trusts the project: the REPL asks at
start, and the answer - yes or no - is kept in HERMES_HOME/trusted_projects.json (keyed
by the resolved root, holding a `fingerprint`: SHA-256 of every file and link in
`.hermes/`, so settings, hooks, commands and the scripts hooks run). Any change to them
(a `git pull`, a command, a link) and the question comes again; the same settings are
asked about once, a "no" included. HERMES_HOME is hidden from the tool sandbox, so a
session cannot trust a project itself. A `.hermes` (or its config.yaml or commands/)
that is a symbolic link is never loaded (one notice): a link is how a command swaps in a
folder it made. One-shot runs never ask: an untrusted project's settings are ignored
with a one-line notice. The gateway never reads project settings (its sessions work in
tenant workspaces). A cloned repository thus never runs a hook on its own.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import safefs
from agent.errors import HermesError
from agent.hooks.config import Hooks
from agent.hooks.config import parse as parse_hooks
from agent.permissions.rules import Rules
from agent.permissions.rules import parse as parse_rules
from agent.prompts.context_search import git_root
from agent.sandbox import incidents
from frontend.config.settings import Settings, load_yaml
from frontend.custom_commands import load as load_commands
from memory.private import write_private

FOLDER = ".hermes"
TRUST_FILE = "trusted_projects.json"
PROJECT_KEYS = ("permissions", "hooks")
MAX_FILES, MAX_BYTES = 2000, 20_000_000  # of `.hermes/` hashed whole; beyond: size and time


@dataclass(frozen=True)
class Project:
    root: Path  # resolved
    config: Path | None  # .hermes/config.yaml, when it is a file
    commands: Path | None  # .hermes/commands, when it is a folder
    claude_commands: Path | None = None  # .claude/commands (Claude Code's), when a folder

    @property
    def command_dirs(self) -> tuple[Path, ...]:
        """Where its commands are, Claude Code's first (a .hermes one of the same name wins)."""
        return tuple(d for d in (self.claude_commands, self.commands) if d is not None)

    @property
    def folders(self) -> str:
        """Where its settings are, as the user sees them: `.hermes` and/or `.claude/commands`."""
        return " and ".join(str(d) for d in (self.root / FOLDER, self.claude_commands)
                            if d is not None and (d.name != FOLDER or self.config or self.commands))

    def raw(self) -> dict[str, Any]:
        return load_yaml(self.config) if self.config is not None else {}

    def summary(self) -> str:
        """What it would apply, e.g. "2 hooks, 1 permission rule, 3 commands"."""
        raw = self.raw()
        hooks = len(parse_hooks(raw.get("hooks"), str(self.config)).describe())
        rules = len(parse_rules(raw.get("permissions"), str(self.config)).rules)
        commands = len({p.name for d in self.command_dirs for p in d.glob("*.md")})
        parts = [f"{n} {word}{'s' * (n != 1)}" for n, word in
                 ((hooks, "hook"), (rules, "permission rule"), (commands, "command")) if n]
        return ", ".join(parts) or "no settings"

    def host_hooks(self) -> list[str]:
        """Its hooks that run outside the sandbox (`sandbox: host`), one line each."""
        try:
            return parse_hooks(self.raw().get("hooks"), str(self.config)).on_host()
        except HermesError:
            return []

    def has_hooks(self) -> bool:
        try:
            return bool(parse_hooks(self.raw().get("hooks"), str(self.config)).describe())
        except HermesError:
            return "hooks" in self.raw()

    def fingerprint(self) -> str:
        """SHA-256 over every entry of `.hermes/` (path, kind, bytes or link target), and
        of `.claude/commands/` when the project has one."""
        digest = hashlib.sha256(b"hermes-project-v1\0")
        self._hash(digest, self.root / FOLDER)
        if self.claude_commands is not None:
            digest.update(b"\0.claude/commands\0")
            self._hash(digest, self.claude_commands)
        return digest.hexdigest()

    @staticmethod
    def _hash(digest: Any, folder: Path) -> None:
        count = total = 0
        for where, dirs, names in os.walk(folder):  # never follows a link
            dirs.sort()
            for name in sorted(dirs + names):
                path = os.path.join(where, name)
                info = os.lstat(path)
                rel = os.path.relpath(path, folder).encode("utf-8", "surrogateescape")
                digest.update(b"%s\0%o\0" % (rel, stat.S_IFMT(info.st_mode)))
                count += 1
                if stat.S_ISLNK(info.st_mode):
                    digest.update(os.readlink(path).encode("utf-8", "surrogateescape"))
                elif stat.S_ISREG(info.st_mode):
                    total += info.st_size
                    if count > MAX_FILES or total > MAX_BYTES:
                        digest.update(b"%d %d %d" % (info.st_size, info.st_mtime_ns, info.st_ino))
                    else:
                        digest.update(safefs.read_bytes(str(folder), os.path.relpath(path, folder),
                                                        links=False))
                digest.update(b"\0")


def find(cwd: Path, warnings: list[str] | None = None) -> Project | None:
    """The project's `.hermes/` settings, or None when it has none - or when `.hermes`,
    its config.yaml or commands/ is a link (never loaded; said in `warnings`)."""
    root = (git_root(cwd) or cwd).resolve()
    folder = root / FOLDER
    config = folder / "config.yaml"
    commands = folder / "commands"
    claude = root / ".claude" / "commands"
    for path in (folder, config, commands, claude.parent, claude):
        if path.is_symlink():
            if warnings is not None:
                warnings.append(f"project settings in {path.parent} ignored: {path} is a "
                                "symbolic link, and a linked one is never loaded (make it a "
                                "real folder to use it)")
            return None
    found = Project(root, config if config.is_file() else None,
                    commands if commands.is_dir() else None,
                    claude if claude.is_dir() else None)
    return found if found.config or found.command_dirs else None


def _table(home: Path) -> dict[str, Any]:
    try:
        data = json.loads((home / TRUST_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    projects = data.get("projects") if isinstance(data, dict) else None
    return projects if isinstance(projects, dict) else {}


def answer(home: Path, project: Project) -> bool | None:
    """The user's answer for `project` as its settings are now: True, False, or None
    (never asked, or asked about other settings - a record without a fingerprint too)."""
    record = _table(home).get(str(project.root))
    if not isinstance(record, dict) or record.get("fingerprint") != project.fingerprint():
        return None
    if incidents.under(home, project.root):
        return None  # a command changed something the guard could not undo: ask again
    return record.get("trusted") is True


def is_trusted(home: Path, project: Project) -> bool:
    return answer(home, project) is True


def trust(home: Path, project: Project, trusted: bool = True) -> None:
    """Remember the user's answer for `project` as its settings are now
    (HERMES_HOME/trusted_projects.json, 0600)."""
    table = _table(home)
    table[str(project.root)] = {"trusted": trusted, "fingerprint": project.fingerprint(),
                                "answered_at": datetime.now(UTC).isoformat(timespec="seconds")}
    write_private(home / TRUST_FILE, json.dumps({"projects": table}, indent=2, sort_keys=True))


Ask = Callable[[Project, bool], bool | None]  # (project, changed since answered) -> yes/no/no answer


def decide(home: Path, cwd: Path, ask: Ask | None, warnings: list[str]) -> Project | None:
    """The project whose settings apply: trusted already, or trusted now by `ask` (the
    REPL's question, asked once per fingerprint: its yes or no is kept; no answer,
    Ctrl-C, is not). An untrusted one adds one notice to `warnings` and returns None."""
    project = find(cwd, warnings)
    if project is None:
        return None
    said = answer(home, project)
    if said is True:
        return project
    where = project.folders  # the folders that are there (`.claude/commands` alone, too)
    if said is False:
        warnings.append(f"project settings in {where} ignored: you answered no to trusting them "
                        f"(they are asked about again when they change; to be asked now, remove "
                        f"this project from {home / TRUST_FILE})")
        return None
    if ask is not None:
        stuck = incidents.under(home, project.root)
        if stuck:
            warnings.append("a command in this project changed what hermes could not put back:\n"
                            + "\n".join(f"  {line}" for line in stuck))
        reply = ask(project, str(project.root) in _table(home))
        if reply is not None:
            trust(home, project, reply)
            incidents.clear(home, project.root)
        if reply:
            return project
        if reply is False:
            warnings.append(f"project settings in {where} ignored: not trusted (your answer is "
                            "kept until they change)")
            return None
    warnings.append(f"project settings in {where} ignored: this project is not trusted, or its "
                    "settings changed since it was (run `hermes` there and answer yes to trust them)")
    return None


def layered(settings: Settings, source: str, project: Project | None,
            warnings: list[str]) -> dict[str, Any]:
    """AgentConfig's `permissions`, `hooks` and `commands`: the user's config.yaml, then
    the trusted project's. Hooks on the gateway only with `gateway.hooks: true`."""
    user = str(settings.home / "config.yaml")
    rules = parse_rules(settings.raw.get("permissions"), user)
    hooks = parse_hooks(settings.raw.get("hooks"), user)
    if project is not None and project.config is not None:
        raw = project.raw()
        where = str(project.config)
        warnings.extend(f"{where}: `{key}` is ignored in a project's settings (only "
                        f"{' and '.join(PROJECT_KEYS)}); set it in {user}"
                        for key in raw if key not in PROJECT_KEYS)
        rules = Rules(rules.rules + parse_rules(raw.get("permissions"), where).rules)
        hooks = hooks.merged(parse_hooks(raw.get("hooks"), where))
    if source == "gateway" and not settings.get("gateway.hooks", False, kind=bool):
        hooks = Hooks()
    commands = load_commands(settings.home, project.command_dirs if project else (), warnings)
    return {"permissions": rules, "hooks": hooks or None, "commands": commands}
