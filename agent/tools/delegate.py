"""delegate_task: run a sub-agent with fresh history on a self-contained goal.

The child gets the parent's tools minus delegate_task and memory (depth 1), at most 50
iterations, and its own cached prompt with the goal in its ephemeral layer. At most 3
children run at once per session; an extra call is told to retry, never dropped
silently. The child's usage is recorded on the parent session, so it shows in /usage.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any

from agent.errors import ToolError
from agent.tools.registry import Tool, ToolContext, require

PENDING_EVENTS = "pending_events"  # ctx.state key the loop drains after each tool group
MAX_CHILDREN = 3
CHILD_ITERATIONS = 50
EXCLUDED = ("delegate_task", "memory")
_LOCK = threading.Lock()


def _semaphore(ctx: ToolContext) -> threading.BoundedSemaphore:
    with _LOCK:
        return ctx.state.setdefault("delegate_slots", threading.BoundedSemaphore(MAX_CHILDREN))


def delegate_task(args: dict[str, Any], ctx: ToolContext) -> str:
    """Run the child to completion and return its final answer."""
    goal = require(args, "goal").strip()
    if not goal:
        raise ToolError("the goal is empty")
    context = str(args.get("context") or "").strip()
    parent = ctx.services.get("agent")
    if parent is None:
        raise ToolError("delegation is not available in this session")
    slots = _semaphore(ctx)
    if not slots.acquire(blocking=False):
        raise ToolError(f"at most {MAX_CHILDREN} delegated tasks can run at once; "
                        "call delegate_task for this goal again after the others finish")
    try:
        return _run_child(parent, goal, context, args.get("toolsets"), ctx)
    finally:
        slots.release()


def _run_child(parent: Any, goal: str, context: str, toolsets: Any, ctx: ToolContext) -> str:
    from agent.agent import AIAgent, build_registry
    from agent.events import Done, ErrorEvent, UsageEvent

    allowed = [t for t in parent.registry.toolsets() if t != "delegate"]
    if toolsets:
        if not isinstance(toolsets, list) or not all(isinstance(t, str) for t in toolsets):
            raise ToolError("toolsets must be a list of toolset names")
        unknown = sorted(set(toolsets) - set(allowed))
        if unknown:
            raise ToolError(f"toolsets not available to a sub-agent: {', '.join(unknown)}; "
                            f"choose from {', '.join(allowed)}")
        allowed = [t for t in allowed if t in toolsets]
    brief = f"# Delegated task\nYou are a sub-agent. Complete this goal and reply with a concise report.\nGoal: {goal}"
    if context:
        brief += f"\nContext from the parent agent:\n{context}"
    # the parent's current model: /model switches `parent.model`, not its config
    provider = replace(parent.config.provider, model=parent.model)
    config = replace(parent.config, provider=provider, toolsets=tuple(allowed),
                     max_iterations=CHILD_ITERATIONS,
                     skills=(), ephemeral_extra=brief, recall=False)
    registry = build_registry(tuple(allowed), exclude=EXCLUDED)
    child = AIAgent(config, None, approve=ctx.approve, registry=registry)
    answer, error = "", None
    try:
        for event in child.run_turn(goal, ctx.state.get("cancel")):
            if isinstance(event, UsageEvent) and parent.store is not None:
                _record(parent, event)
                # surfaced by the loop after this tool, so per-turn totals include it
                ctx.state.setdefault(PENDING_EVENTS, []).append(event)
            elif isinstance(event, ErrorEvent):
                error = event.message
            elif isinstance(event, Done):
                answer = event.answer
    finally:
        child.close()
    if error:
        raise ToolError(f"the sub-agent failed: {error}")
    return answer or "(the sub-agent finished without a report)"


def _record(parent: Any, event: Any) -> None:
    usage = event.usage
    parent.store.add_usage(
        parent.session_id, turn=parent.state.turn, call_index=0, model=event.model,
        provider=parent.provider_name, uncached=usage.uncached, write_5m=usage.write_5m,
        write_1h=usage.write_1h, cache_read=usage.cache_read if usage.cache_known else None,
        output=usage.output, cost_usd=event.cost_usd, cache_known=usage.cache_known,
        miss_cause=event.miss_cause, miss_detail=f"sub-agent: {event.miss_detail or 'ok'}",
    )


TOOL = Tool(
    name="delegate_task",
    toolset="delegate",
    description=(
        "Hand a self-contained subtask to a sub-agent with a fresh context and your tools "
        "(except memory and delegation). Use it for independent work that would clutter this "
        "conversation; several calls in one turn run in parallel (at most 3 at once). Give "
        "the goal and all context it needs: it cannot see this conversation."
    ),
    parameters={
        "type": "object",
        "properties": {
            "goal": {"type": "string", "description": "What the sub-agent must achieve."},
            "context": {"type": "string", "description": "Facts, paths and constraints it needs."},
            "toolsets": {"type": "array", "items": {"type": "string"},
                         "description": "Optional subset of toolsets for the sub-agent."},
        },
        "required": ["goal"],
    },
    run=delegate_task,
    parallel_group="delegate",  # parallel with other delegate calls, never with writes
)
