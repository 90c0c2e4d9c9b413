"""The automatic compression trigger around one user turn.

- Before the turn and after its final response: compress when the last call's prompt
  reached `compression_threshold` x the context window (`should_compress`).
- When the provider says the prompt is too long: compress the history without the
  failed turn and run the turn once more. If the failed turn had already run tools, it
  is kept (its results are real) and the retry asks the model to continue instead.
The turn's `Done` event always stays the last event.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import TYPE_CHECKING

from agent.compression import compress_session, should_compress
from agent.errors import PromptTooLongError
from agent.events import Done, ErrorEvent, Event
from agent.loop import CallModel, Turn, run_turn
from agent.messages import Message

if TYPE_CHECKING:
    from agent.agent import AIAgent

TOO_LONG_HINT = (
    "compression could not make it fit: this message plus the system prompt and tools exceed "
    "the context window; send a shorter message or start a new session"
)
CONTINUE = (
    "[hermes] The previous request exceeded the model's context window, so the earlier "
    "conversation was compressed into the summary above. Continue the current task from "
    "where it stopped."
)


def _watch(call_model: CallModel, seen: list[PromptTooLongError]) -> CallModel:
    """`call_model` that notes a PromptTooLongError before the loop handles it."""

    def call(grace: bool) -> Iterator[object]:
        try:
            return (yield from call_model(grace))
        except PromptTooLongError as exc:
            seen.append(exc)
            raise

    return call


def _bound(agent: AIAgent, template: Turn, seen: list[PromptTooLongError]) -> Turn:
    """The turn bound to the agent's CURRENT session (it changes when compressing)."""
    call = agent.caller(template.cancel).call
    turn = replace(template, conversation=agent.conversation, tool_ctx=agent.tool_ctx,
                   call_model=_watch(call, seen))
    turn.maintain = lambda: _mid_turn(agent, turn, seen)
    return turn


def _mid_turn(agent: AIAgent, turn: Turn, seen: list[PromptTooLongError]) -> Iterator[Event]:
    """Between tool iterations: compress when the threshold is reached, then rebind."""
    if not should_compress(agent):
        return
    old_id = agent.session_id
    yield from compress_session(agent, cancel=turn.cancel, reason="auto, mid-turn")
    if agent.session_id != old_id:
        turn.conversation, turn.tool_ctx = agent.conversation, agent.tool_ctx
        turn.call_model = _watch(agent.caller(turn.cancel).call, seen)


def _retry_point(messages: list[Message], start: int) -> tuple[int, Message | None]:
    """(history length to compress, message to retry with; None = the user's own)."""
    failed = messages[start:]
    closed = bool(failed) and failed[-1].kind == "interrupted"
    if len(failed) <= 2 and closed:
        return start, None  # nothing but the request and the error marker: retry it
    return (len(messages) - 1 if closed else len(messages)), Message("user", CONTINUE,
                                                                       kind="continue")


def compressing_turn(agent: AIAgent, template: Turn, message: Message) -> Iterator[Event]:
    """Run `message` as one turn with automatic compression (see module docstring).

    `template` is the Turn the agent built; its conversation, tool context and model
    call are re-bound to the agent's session whenever compression switched it.
    """
    cancel = template.cancel
    if should_compress(agent):
        yield from compress_session(agent, cancel=cancel, reason="auto")
    for attempt in (1, 2):
        seen: list[PromptTooLongError] = []
        start = len(agent.conversation.messages)
        held: list[Event] = []
        for event in run_turn(_bound(agent, template, seen), message):
            if isinstance(event, Done) or (seen and isinstance(event, ErrorEvent)):
                held.append(event)
            else:
                yield event
        done = held[-1] if held and isinstance(held[-1], Done) else Done("", "error")
        if seen and attempt == 1:
            upto, retry = _retry_point(agent.conversation.messages, start)
            old_id = agent.session_id
            yield from compress_session(agent, cancel=cancel, reason="the prompt was too long",
                                        upto=upto)
            if agent.session_id != old_id:
                message = retry or message
                continue
        if done.reason in ("answer", "max_iterations") and should_compress(agent):
            yield from compress_session(agent, cancel=cancel, reason="auto")
        if seen and attempt == 2:  # compression ran and still could not make it fit
            held = [ErrorEvent(e.message, TOO_LONG_HINT) if isinstance(e, ErrorEvent) else e
                    for e in held]
        yield from held
        return
