"""What tool dispatch consults before a tool runs: the plan mode, then the rules.

`refusal(tool, args, ctx)` is None when the call may run, else the text the model reads.
Plan mode refuses every tool not marked read-only except the terminal (confined to the
read-only sandbox instead, agent/tools/terminal.py), the todo list (session state only)
and delegate (its sub-agent inherits the mode). Rules (agent/permissions/rules.py):
deny refuses, even under --yolo; ask asks the person (or --yolo answers yes; with no
one to ask, it refuses); allow and no rule let the call go on to the tool's own checks.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agent.messages import canonical_json
from agent.permissions.plan import PLAN

if TYPE_CHECKING:
    from agent.permissions.rules import Rule, Rules

PLAN_SAFE = frozenset({"terminal", "todo", "delegate_task"})  # names as registered


class _Tool(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def read_only(self) -> bool: ...
    @property
    def writes(self) -> tuple[str, ...]: ...


class _Context(Protocol):
    """What the gate reads of a tool context (agent.tools.registry.ToolContext, which
    imports this module)."""

    @property
    def mode(self) -> str: ...
    @property
    def permissions(self) -> Rules | None: ...
    @property
    def cwd(self) -> Path: ...
    @property
    def yolo(self) -> bool: ...
    @property
    def approve(self) -> Callable[[str, str], bool] | None: ...


def refusal(tool: _Tool, args: dict[str, Any], ctx: _Context) -> str | None:
    if getattr(ctx, "mode", "") == PLAN and not tool.read_only and tool.name not in PLAN_SAFE:
        return (f"Error: plan mode is on: {tool.name} changes things and is refused. Read and "
                "plan only; present the plan and let the user turn plan mode off (/plan off).")
    rules = getattr(ctx, "permissions", None)
    if rules is None:
        return None
    rule = rules.verdict(tool.name, args, Path(ctx.cwd), tool.writes)
    if rule is None or rule.kind == "allow":
        return None
    if rule.kind == "deny":
        return (f"Error: refused by the permission rule deny `{rule.text}` ({rule.source}){_unclear(rule, tool.name, args)}. "
                "Do not retry it; find another way or ask the user.")
    if ctx.yolo:
        return None
    what = f"{tool.name} {_shown(args)}{_unclear(rule, tool.name, args)}"
    if ctx.approve is None:
        return (f"Error: the permission rule ask `{rule.text}` needs a person to approve this "
                "call and no one is here (--yolo answers such questions).")
    if ctx.approve(what, f"permission rule ask `{rule.text}` ({rule.source})"):
        return None
    return f"Error: the user declined this call (permission rule ask `{rule.text}`)."


def _unclear(rule: Rule, tool: str, args: dict[str, Any]) -> str:
    """Why a terminal rule applied to a line that does not plainly run what it names."""
    why = rule.why(tool, args)
    return f" - {why}; write the command out plainly" if why else ""


def _shown(args: dict[str, Any]) -> str:
    for key in ("command", "path", "url"):
        value = args.get(key)
        if isinstance(value, str):
            return value
    text = canonical_json(args)
    return text if len(text) <= 200 else text[:197] + "..."
