"""/plan (the read-only plan mode) and /permissions (the rules in force)."""

from __future__ import annotations

from collections.abc import Callable

from agent.permissions.plan import PLAN
from hermes_cli.slash.api import ReplLike as Repl
from hermes_cli.slash.api import UsageError

SET = {"on": PLAN, "off": ""}


def cmd_plan(repl: Repl, arg: str) -> None:
    agent, word = repl.agent, arg.strip().lower()
    if word and word not in SET:
        raise UsageError()
    current = agent.session.choices.mode
    mode = SET[word] if word else ("" if current == PLAN else PLAN)
    if mode != current:
        agent.set_mode(mode)
    state = "ON: tools that change things refuse, the terminal is read-only and offline" \
        if mode == PLAN else "off: changes are allowed"
    repl.renderer.print(f"plan mode {state} (no cache miss: the model hears it with your next message)")
    repl.refresh_toolbar()


def cmd_permissions(repl: Repl, arg: str) -> None:
    agent = repl.agent
    rules = agent.config.permissions
    lines = rules.describe() if rules is not None else []
    repl.renderer.print("\n".join(lines) if lines else "no permission rules (config.yaml `permissions:`)")
    extra = ["--yolo: asks are answered yes (never a deny)" if agent.config.yolo else "",
             "plan mode is on" if agent.session.choices.mode == PLAN else ""]
    for line in filter(None, extra):
        repl.renderer.print(line, style="dim")


HANDLERS: dict[str, Callable[[Repl, str], None]] = {"plan": cmd_plan, "permissions": cmd_permissions}
