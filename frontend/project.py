"""A project's own settings, `.hermes/` at its root, and the user's trust in them.

The project root is the git root above the working directory (the working directory
outside a repository). Its `.hermes/config.yaml` may hold `permissions:` and `hooks:`
(other keys are the user's alone: ignored with a warning) and `.hermes/commands/*.md`
custom commands. None of it applies until the user trusts the project once: the REPL
asks at start, the answer is kept in HERMES_HOME/trusted_projects.json (keyed by the
resolved root; HERMES_HOME is hidden from the tool sandbox, so a session cannot trust a
project itself). One-shot runs never ask: an untrusted project's settings are ignored
with a one-line notice. The gateway never reads project settings (its sessions work in
tenant workspaces). A cloned repository thus never runs a hook on its own.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agent.hooks.config import Hooks
from agent.hooks.config import parse as parse_hooks
from agent.permissions.rules import Rules
from agent.permissions.rules import parse as parse_rules
from agent.prompts.context_search import git_root
from frontend.config.settings import Settings, load_yaml
from frontend.custom_commands import load as load_commands
from memory.private import private_file

FOLDER = ".hermes"
TRUST_FILE = "trusted_projects.json"
PROJECT_KEYS = ("permissions", "hooks")


@dataclass(frozen=True)
class Project:
    root: Path  # resolved
    config: Path | None  # .hermes/config.yaml, when it is a file
    commands: Path | None  # .hermes/commands, when it is a folder

    def raw(self) -> dict[str, Any]:
        return load_yaml(self.config) if self.config is not None else {}

    def summary(self) -> str:
        """What it would apply, e.g. "2 hooks, 1 permission rule, 3 commands"."""
        raw = self.raw()
        hooks = len(parse_hooks(raw.get("hooks"), str(self.config)).describe())
        rules = len(parse_rules(raw.get("permissions"), str(self.config)).rules)
        commands = len(list(self.commands.glob("*.md"))) if self.commands else 0
        parts = [f"{n} {word}{'s' * (n != 1)}" for n, word in
                 ((hooks, "hook"), (rules, "permission rule"), (commands, "command")) if n]
        return ", ".join(parts) or "no settings"


def find(cwd: Path) -> Project | None:
    """The project's `.hermes/` settings, or None when it has none."""
    root = (git_root(cwd) or cwd).resolve()
    folder = root / FOLDER
    config = folder / "config.yaml"
    commands = folder / "commands"
    found = Project(root, config if config.is_file() else None,
                    commands if commands.is_dir() else None)
    return found if found.config or found.commands else None


def _table(home: Path) -> dict[str, Any]:
    try:
        data = json.loads((home / TRUST_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    projects = data.get("projects") if isinstance(data, dict) else None
    return projects if isinstance(projects, dict) else {}


def is_trusted(home: Path, project: Project) -> bool:
    return str(project.root) in _table(home)


def trust(home: Path, project: Project) -> None:
    """Remember that the user trusts `project` (HERMES_HOME/trusted_projects.json, 0600)."""
    table = _table(home)
    table[str(project.root)] = {"trusted_at": datetime.now(UTC).isoformat(timespec="seconds")}
    path = home / TRUST_FILE
    private_file(path)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"projects": table}, indent=2, sort_keys=True), encoding="utf-8")
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


Ask = Callable[[Project], bool]


def decide(home: Path, cwd: Path, ask: Ask | None, warnings: list[str]) -> Project | None:
    """The project whose settings apply: trusted already, or trusted now by `ask` (the
    REPL's question). An untrusted one adds one notice to `warnings` and returns None."""
    project = find(cwd)
    if project is None or is_trusted(home, project):
        return project
    if ask is not None and ask(project):
        trust(home, project)
        return project
    warnings.append(f"project settings in {project.root / FOLDER} ignored: this project is not "
                    "trusted (run `hermes` there and answer yes to trust it)")
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
    commands = load_commands(settings.home, project.commands if project else None, warnings)
    return {"permissions": rules, "hooks": hooks or None, "commands": commands}
