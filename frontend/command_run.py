"""One turn of a command file (frontend/custom_commands.py), the way Claude Code runs one.

- `` !`cmd` ``: each runs first, through the agent's own terminal tool - the sandbox, the
  permission rules, the danger check and the approvals all apply, as to a model's call -
  and its output goes into the message in its place (shown as a tool line).
- `allowed-tools:`: permission rules of kind allow, in force for this turn only (the
  shell commands above included); a deny still wins.
- `model:`: handled by the front end (`/model` before and after, each with its notice).
- a project's file attaches and runs only inside the project (`refusal`, before anything
  is attached or run; frontend/command_reach.py).

Nothing here changes the tools or system bytes: the outputs are part of the user message.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Generator, Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from agent.events import Event, ToolFinished, ToolStarted
from agent.messages import ToolCall
from agent.permissions.rules import Rules
from agent.permissions.rules import parse as parse_rules
from frontend.command_reach import reach
from frontend.custom_commands import CustomCommand, fill_outputs

if TYPE_CHECKING:
    from agent.agent import AIAgent, Prelude

MAX_OUTPUT = 20_000  # characters of one command's output put into the message


def refusal(command: CustomCommand, cwd: Path, args: str = "") -> tuple[str, str] | None:
    """(message, hint) when a project's command file would attach or run something
    outside the project (frontend/command_reach.py) the user did not type in `args`;
    None when it may run."""
    found = reach(command, cwd, args)
    if not found.outside:
        return None
    return (f"/{command.name} ({command.path}) {found.outside[0]}, outside the project: a "
            "project's command file attaches and runs only inside it; nothing was sent",
            f"type the path yourself if you mean it (e.g. /{command.name} @~/file), or edit the file")


def allowance(command: CustomCommand) -> Rules:
    """The command's `allowed-tools` as allow rules (a ConfigError names the file)."""
    return parse_rules({"allow": list(command.allowed_tools)}, command.path)


@contextlib.contextmanager
def allowed(agent: AIAgent, command: CustomCommand) -> Iterator[None]:
    """The agent's tools run with the command's allowance until the block ends."""
    extra = allowance(command)
    if not extra.rules:
        yield
        return
    before = agent.tool_ctx
    base = before.permissions.rules if before.permissions is not None else ()
    agent.tool_ctx = replace(before, permissions=Rules(base + extra.rules))
    try:
        yield
    finally:
        agent.tool_ctx = before


def prelude(agent: AIAgent, lines: tuple[str, ...]) -> Prelude:
    """The turn's prelude (AIAgent.run_turn): the shell commands run inside the turn,
    so their file changes are its changes (/undo), then their outputs fill the text."""
    def run(text: str) -> Generator[Event, None, str]:
        outputs = yield from shell_outputs(agent, lines)
        return fill_outputs(text, outputs)
    return run


def shell_outputs(agent: AIAgent, lines: tuple[str, ...]) -> Generator[Event, None, list[str]]:
    """Run a command file's `` !`cmd` ``s (`lines`) through the terminal tool, yielding
    their tool events; returns what goes into the message for each (an error says so)."""
    outputs: list[str] = []
    for index, line in enumerate(lines):
        arguments = json.dumps({"command": line})
        call = ToolCall(f"command-{index}", "terminal", arguments)
        yield ToolStarted(call.id, call.name, line if len(line) <= 80 else line[:77] + "...",
                          arguments)
        result = agent.registry.dispatch(call, agent.tool_ctx)
        first = result.content.strip().splitlines()[0] if result.content.strip() else ""
        yield ToolFinished(call.id, call.name, result.ok, result.duration, first, result.content)
        text = result.content if len(result.content) <= MAX_OUTPUT else (
            result.content[:MAX_OUTPUT] + f"\n[... {len(result.content) - MAX_OUTPUT:,} "
            "more characters left out]")
        outputs.append(text)
    return outputs
