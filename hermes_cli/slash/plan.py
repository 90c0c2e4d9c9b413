"""/plan (the read-only plan mode) and /permissions (the rules in force)."""

from __future__ import annotations

from collections.abc import Callable

from agent.permissions.plan import PLAN
from frontend import commands as shared
from hermes_cli.slash.api import ReplLike as Repl
from hermes_cli.slash.api import UsageError

SET = {"on": PLAN, "off": ""}


def cmd_plan(repl: Repl, arg: str) -> None:
    """The shared /plan (frontend.commands.plan), then the toolbar shows the mode."""
    if arg.strip().lower() not in ("", *SET):
        raise UsageError()
    repl.renderer.print(shared.plan(shared.Handle(repl.agent), arg).text)
    repl.refresh_toolbar()


def cmd_permissions(repl: Repl, arg: str) -> None:
    agent = repl.agent
    rules = agent.config.permissions
    lines = rules.describe() if rules is not None else []
    repl.renderer.print("\n".join(lines) if lines else "no permission rules (config.yaml `permissions:`)")
    hooks = agent.config.hooks.describe() if agent.config.hooks else []
    if hooks:
        repl.renderer.print("hooks (in the tool sandbox unless `sandbox: host`, docs/HOOKS.md):\n  " + "\n  ".join(hooks))
    extra = ["--yolo: asks are answered yes (never a deny)" if agent.config.yolo else "",
             "plan mode is on" if agent.session.choices.mode == PLAN else ""]
    for line in filter(None, extra):
        repl.renderer.print(line, style="dim")


HANDLERS: dict[str, Callable[[Repl, str], None]] = {"plan": cmd_plan, "permissions": cmd_permissions}
