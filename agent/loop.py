"""The agent loop: model call -> tool calls -> ... -> final answer, as typed events.

Silent by design: no printing, no SQL (the Conversation persists), no provider names.
The model call itself (request shaping, retries, usage accounting) is injected as
`call_model`, so this module is only the control flow of one user turn.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from typing import Any

from agent.cancel import CancelToken
from agent.cost.budget import BUDGET_PROMPT, WHAT
from agent.errors import HermesError, ProviderError, TurnCancelled
from agent.events import (
    Done,
    ErrorEvent,
    Event,
    Notice,
    TextDelta,
    ThinkingDelta,
    ToolFinished,
    ToolStarted,
    UsageEvent,
)
from agent.messages import Message, ProviderReply, ToolCall
from agent.providers.base import StreamDone, StreamItem, StreamText, StreamThinking
from agent.sessions.conversation import INTERRUPTED, Conversation
from agent.tools.registry import ToolContext, ToolRegistry, ToolResult
from memory.errors import HermesMemoryError

GRACE_PROMPT = (
    "[hermes] You have used all {n} tool iterations allowed for this turn. Do not call "
    "any more tools. Reply to the user now: summarise what you did, what is left, and "
    "what they could do next."
)
CANCELLED_NOTE = "[cancelled by the user before the model answered]"
CUT_NOTE = "[cancelled by the user: the reply was cut here]"
NO_ANSWER = "(the model gave no summary after the limit was reached)"
WATCHED = ("delegate_task",)  # tools whose progress is shown while they run
PROGRESS_POLL = 0.1  # seconds between looks at a watched tool's progress

CallItem = StreamItem | Notice | UsageEvent  # what `call_model` yields (agent.modelcall.calls)
CallModel = Callable[[bool], Iterator[CallItem]]


@dataclass
class Turn:
    """What one user turn needs. `call_model(grace)` yields StreamText, events, StreamDone."""

    conversation: Conversation
    registry: ToolRegistry
    tool_ctx: ToolContext
    call_model: CallModel
    cancel: CancelToken
    max_iterations: int = 90
    max_parallel: int = 4
    # runs between tool iterations (e.g. compression); may rebind this Turn's
    # conversation, tool_ctx and call_model to a new session
    maintain: Callable[[], Iterator[Event]] | None = None
    # asked before every model call: the budget limit the call would cross, or None
    # (then that call is the grace call and the turn stops with "budget_<limit>")
    limit: Callable[[], str | None] | None = None
    # asked when the model answers: `on_stop(answer, continued)` yields events and
    # returns an instruction to go on with (a Stop hook; heeded once per turn), or None
    on_stop: Callable[[str, bool], Generator[Event, None, str | None]] | None = None


def run_turn(turn: Turn, user_message: Message) -> Iterator[Event]:
    """Run one user turn to its end; always leaves a valid, persisted history."""
    turn.conversation.append(user_message)
    iterations = 0
    crossed: str | None = None
    continued = False
    try:
        while True:
            turn.cancel.check()
            grace = iterations >= turn.max_iterations
            if not grace and turn.limit is not None and (crossed := turn.limit()):
                grace = True  # the same grace call, with the budget's instruction
                turn.conversation.append(
                    Message("user", BUDGET_PROMPT.format(what=WHAT[crossed]), kind="grace"))
            reply = yield from _model_reply(turn, grace)
            if turn.cancel.cancelled:  # it completed while the user was cancelling
                raise TurnCancelled(partial=reply)
            message = reply.message
            if grace and message.tool_calls:
                message = replace(message, tool_calls=(), content=message.content or NO_ANSWER)
            turn.conversation.append(message)
            if not message.tool_calls:
                reason = f"budget_{crossed}" if crossed else "max_iterations" if grace else "answer"
                if reason == "answer" and turn.on_stop is not None:
                    again = yield from turn.on_stop(message.content, continued)
                    if again and not continued:
                        continued = True
                        turn.conversation.append(Message("user", again, kind="hook"))
                        continue
                yield Done(message.content, reason)
                return
            iterations += 1
            yield from _run_tools(turn, message.tool_calls)
            if iterations >= turn.max_iterations:
                turn.conversation.append(
                    Message("user", GRACE_PROMPT.format(n=turn.max_iterations), kind="grace"))
            if turn.maintain is not None:
                yield from turn.maintain()
    except TurnCancelled as exc:
        _close_turn(turn.conversation, *_what_was_shown(exc.partial, turn.cancel.shown))
        yield Done("", "cancelled")
    except ProviderError as exc:
        _close_turn(turn.conversation, f"[no reply: {exc.message}]")
        yield ErrorEvent(exc.message, exc.hint)
        yield Done("", "error")
    except HermesError as exc:
        _close_turn(turn.conversation, f"[no reply: {exc.message}]")
        yield ErrorEvent(exc.message, exc.hint)
        yield Done("", "error")
    except HermesMemoryError as exc:  # the store failed: writing a marker would fail too
        yield ErrorEvent(exc.message, exc.hint)
        yield Done("", "error")


def _model_reply(turn: Turn, grace: bool) -> Generator[Event, None, ProviderReply]:
    reply: ProviderReply | None = None
    for item in turn.call_model(grace):
        if isinstance(item, StreamText):
            yield TextDelta(item.text)
        elif isinstance(item, StreamThinking):
            yield ThinkingDelta(item.text)
        elif isinstance(item, StreamDone):
            reply = item.reply
        else:
            yield item  # Notice / UsageEvent from the model-call layer
    if reply is None:
        raise ProviderError("the provider stream ended without a reply")
    return reply


def _what_was_shown(partial: object, shown: int | None) -> tuple[str, str]:
    """The one record of a cancelled reply: the text the user saw (all that arrived
    when the front end does not say), without the tool calls it had started."""
    text = partial.message.content if isinstance(partial, ProviderReply) else ""
    text = text if shown is None else text[:shown]
    if text.strip():
        return text, CUT_NOTE
    return CANCELLED_NOTE, ""


def _close_turn(conv: Conversation, note: str, after: str = "") -> None:
    """Leave a valid history after an interruption: answer open tool calls, and give
    a trailing user message an assistant marker so roles keep alternating (`note`
    is the text the user saw, then `after`, when a cancel cut the reply)."""
    conv.close_dangling()
    if conv.messages and conv.messages[-1].role in ("user", "tool"):
        text = f"{note}\n\n{after}" if after else note
        conv.append(Message("assistant", text, kind="interrupted"))


def _in_tool_order(registry: ToolRegistry, call: ToolCall) -> str:
    """The call's arguments with its tool's parameters in their declared order (`path`
    before `content`), so that a cut preview still names the file."""
    tool = registry.get(call.name)
    try:
        args = json.loads(call.arguments)
    except ValueError:
        return call.arguments
    if tool is None or not isinstance(args, dict):
        return call.arguments
    order = {key: args[key] for key in tool.parameters.get("properties", {}) if key in args}
    return json.dumps(order | args, ensure_ascii=False, separators=(",", ":"))


def _summary(arguments: str) -> str:
    return arguments if len(arguments) <= 80 else arguments[:77] + "..."


def _run_tools(turn: Turn, calls: tuple[ToolCall, ...]) -> Iterator[Event]:
    """Run the calls: consecutive read-only calls in parallel, the rest in order."""
    for group in _groups(turn.registry, calls):
        if turn.cancel.cancelled:
            for call in group:
                turn.conversation.append(_result_message(call, INTERRUPTED, False, "interrupted"))
            continue
        for call in group:
            arguments = _in_tool_order(turn.registry, call)
            yield ToolStarted(call.id, call.name, _summary(arguments), arguments)
        if group[0].name in WATCHED:
            results = yield from _run_watched(turn, group)
        elif len(group) == 1:
            results = [turn.registry.dispatch(group[0], turn.tool_ctx)]
        else:
            with ThreadPoolExecutor(max_workers=min(turn.max_parallel, len(group))) as pool:
                results = list(pool.map(lambda c: turn.registry.dispatch(c, turn.tool_ctx), group))
        diff = turn.tool_ctx.state.take_diff()  # writes run alone, one at a time
        for result in results:
            turn.conversation.append(_result_message(result.call, result.for_model, result.ok,
                                                     images=result.images))
            yield ToolFinished(result.call.id, result.call.name, result.ok, result.duration,
                               _first_line(result), result.content, diff if result.ok else "")
        yield from turn.tool_ctx.state.drain_events()  # e.g. sub-agents' usage
    turn.cancel.check()


def _run_watched(turn: Turn, group: list[ToolCall]) -> Generator[Event, None, list[ToolResult]]:
    """Run long tools (sub-agents) in threads, passing on the events they leave (their
    progress, their usage) while they run; returns their results in call order."""
    state = turn.tool_ctx.state
    with ThreadPoolExecutor(max_workers=min(turn.max_parallel, len(group))) as pool:
        futures = [pool.submit(turn.registry.dispatch, call, turn.tool_ctx) for call in group]
        running = set(futures)
        while running:
            _done, running = wait(running, timeout=PROGRESS_POLL, return_when=FIRST_COMPLETED)
            while state.pending_events:  # pop(0): safe against the workers' appends
                yield state.pending_events.pop(0)
        return [future.result() for future in futures]


def _first_line(result: ToolResult) -> str:
    line = result.content.strip().splitlines()[0] if result.content.strip() else ""
    return line if len(line) <= 100 else line[:97] + "..."


def _result_message(call: ToolCall, content: str, ok: bool, kind: str = "",
                    images: tuple[Any, ...] = ()) -> Message:
    return Message("tool", content, tool_call_id=call.id, tool_name=call.name,
                   is_error=not ok, kind=kind, images=images)


def _groups(registry: ToolRegistry, calls: tuple[ToolCall, ...]) -> list[list[ToolCall]]:
    """Consecutive calls of the same concurrency group run together; others alone."""
    groups: list[list[ToolCall]] = []
    previous = ""
    for call in calls:
        tool = registry.get(call.name)
        kind = tool.concurrency if tool is not None else ""
        if kind and kind == previous:
            groups[-1].append(call)
        else:
            groups.append([call])
        previous = kind
    return groups
