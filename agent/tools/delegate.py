"""delegate_task: run a sub-agent with fresh history on a self-contained goal.

The session's `spawn_child` service builds the child (the parent's tools and stable
blocks byte for byte, so it reads the parent's cached prefix, with delegate_task and
memory refused when called: depth 1, see agent.subagent; at most 50 iterations; the
goal in its ephemeral layer) and records its usage on the parent session; this tool
only checks the request and collects the child's answer. At most 4
children run at once per session (they read one warm prefix: agent/cache/child_warm.py); an extra call is told to retry, never dropped
silently. The child's usage is recorded on the parent session, so it shows in /usage.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from agent.errors import ToolError
from agent.events import Done, ErrorEvent, SubagentProgress, ToolStarted, UsageEvent
from agent.tools.registry import Tool, ToolContext, require

if TYPE_CHECKING:
    from agent.tools.registry import SpawnChild

MAX_CHILDREN = 4  # the loop's parallel calls (agent/loop.py max_parallel)
_LOCK = threading.Lock()


def _semaphore(ctx: ToolContext) -> threading.BoundedSemaphore:
    with _LOCK:
        if ctx.state.delegate_slots is None:
            ctx.state.delegate_slots = threading.BoundedSemaphore(MAX_CHILDREN)
        return ctx.state.delegate_slots


def delegate_task(args: dict[str, Any], ctx: ToolContext) -> str:
    """Run the child to completion and return its final answer."""
    goal = require(args, "goal").strip()
    if not goal:
        raise ToolError("the goal is empty")
    context = str(args.get("context") or "").strip()
    spawn = ctx.services.spawn_child
    if spawn is None:
        raise ToolError("delegation is not available in this session")
    toolsets = _toolsets(args.get("toolsets"), ctx.services.toolsets)
    slots = _semaphore(ctx)
    if not slots.acquire(blocking=False):
        raise ToolError(f"at most {MAX_CHILDREN} delegated tasks can run at once; "
                        "call delegate_task for this goal again after the others finish")
    try:
        return _run_child(spawn, goal, _brief(goal, context), toolsets, ctx)
    finally:
        slots.release()


def _toolsets(wanted: object, enabled: tuple[str, ...]) -> tuple[str, ...]:
    """The child's toolsets: the parent's (minus delegation), or the subset asked for."""
    allowed = [t for t in enabled if t != "delegate"]
    if not wanted:
        return tuple(allowed)
    if not isinstance(wanted, list) or not all(isinstance(t, str) for t in wanted):
        raise ToolError("toolsets must be a list of toolset names")
    unknown = sorted(set(wanted) - set(allowed))
    if unknown:
        raise ToolError(f"toolsets not available to a sub-agent: {', '.join(unknown)}; "
                        f"choose from {', '.join(allowed)}")
    return tuple(t for t in allowed if t in wanted)


def _brief(goal: str, context: str) -> str:
    brief = ("# Delegated task\nYou are a sub-agent. Complete this goal and reply with a "
             f"concise report.\nGoal: {goal}")
    if context:
        brief += f"\nContext from the parent agent:\n{context}"
    return brief


def _run_child(spawn: SpawnChild, goal: str, brief: str, toolsets: tuple[str, ...],
               ctx: ToolContext) -> str:
    answer, error = "", None
    progress = ctx.state.pending_events  # the loop shows these while the sub-agent runs
    progress.append(SubagentProgress(goal, "started"))
    for event in spawn(goal, brief, toolsets, ctx.state.cancel):
        if isinstance(event, ToolStarted):
            progress.append(SubagentProgress(goal, f"{event.name} {event.summary}".strip()))
        if isinstance(event, UsageEvent):
            # recorded on the parent session by spawn_child; surfaced by the loop after
            # this tool, so per-turn totals include it
            ctx.state.pending_events.append(event)
        elif isinstance(event, ErrorEvent):
            error = event.message
        elif isinstance(event, Done):
            answer = event.answer
    progress.append(SubagentProgress(goal, f"failed: {error}" if error else "done"))
    if error:
        raise ToolError(f"the sub-agent failed: {error}")
    return answer or "(the sub-agent finished without a report)"


TOOL = Tool(
    name="delegate_task",
    toolset="delegate",
    description=(
        "Run a self-contained subtask in a sub-agent with a fresh context and your tools "
        "but memory and delegate_task: for independent work that would clutter this "
        "conversation. Calls in one turn run in parallel, at most 4 at once. It cannot see "
        "this conversation: give the goal and every fact it needs."
    ),
    parameters={
        "type": "object",
        "properties": {
            "goal": {"type": "string"},
            "context": {"type": "string", "description": "Facts, paths and constraints."},
            "toolsets": {"type": "array", "items": {"type": "string"},
                         "description": "Only these of your toolsets."},
        },
        "required": ["goal"],
    },
    run=delegate_task,
    parallel_group="delegate",  # parallel with other delegate calls, never with writes
    untrusted=True,  # the report carries what the sub-agent read (files, pages, output)
)
