"""The automatic compression trigger around one user turn.

- Before the turn and after its final response: compress when the last call's prompt
  reached `compression_threshold` x the context window and compacting would cut it
  well below that (`Compactor.check`; otherwise one notice per session says why not).
- When the provider says the prompt is too long: compress the history without the
  failed turn and run the turn once more. If the failed turn had already run tools, it
  is kept (its results are real) and the retry asks the model to continue instead.
The turn's `Done` event always stays the last event.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, replace

from agent.cancel import CancelToken
from agent.compression.compactor import Compactor
from agent.errors import PromptTooLongError
from agent.events import Done, ErrorEvent, Event
from agent.loop import CallItem, CallModel, Turn, run_turn
from agent.messages import Message
from agent.sessions.session import Session
from agent.tools.registry import ToolContext

TOO_LONG_HINT = (
    "compression could not make it fit: this message plus the system prompt and tools exceed "
    "the context window; send a shorter message or start a new session"
)
CONTINUE = (
    "[hermes] The previous request exceeded the model's context window, so the earlier "
    "conversation was compressed into the summary above. Continue the current task from "
    "where it stopped."
)


@dataclass
class Host:
    """What the trigger needs of the agent: its current session, the compactor, a way
    to adopt a new session, and the tool context bound to the current session."""

    session: Callable[[], Session]
    compactor: Compactor
    adopt: Callable[[Session], None]
    tool_ctx: Callable[[], ToolContext]

    def should(self) -> Generator[Event, None, bool]:
        """Whether to compress now (the generator's return value); yields the one notice
        that the trigger is reached but compaction would not help."""
        go, notice = self.compactor.check(self.session())
        if notice is not None:
            yield notice
        return go

    def compress(self, cancel: CancelToken, reason: str, upto: int | None = None
                 ) -> Iterator[Event]:
        """Compress the current session; adopt the new one when it was made."""
        new = yield from self.compactor.compress(self.session(), cancel=cancel, reason=reason,
                                                 upto=upto)
        if new is not None:
            self.adopt(new)


def _watch(call_model: CallModel, seen: list[PromptTooLongError]) -> CallModel:
    """`call_model` that notes a PromptTooLongError before the loop handles it."""

    def call(grace: bool) -> Iterator[CallItem]:
        try:
            yield from call_model(grace)
        except PromptTooLongError as exc:
            seen.append(exc)
            raise

    return call


def _bound(host: Host, template: Turn, seen: list[PromptTooLongError]) -> Turn:
    """The turn bound to the host's CURRENT session (it changes when compressing)."""
    turn = replace(template, conversation=host.session().conversation, tool_ctx=host.tool_ctx(),
                   call_model=_watch(template.call_model, seen))
    turn.maintain = lambda: _mid_turn(host, turn)
    return turn


def _mid_turn(host: Host, turn: Turn) -> Iterator[Event]:
    """Between tool iterations: compress when the threshold is reached, then rebind (the
    model call reads the host's current session by reference)."""
    if not (yield from host.should()):
        return
    old = host.session()
    yield from host.compress(turn.cancel, "auto, mid-turn")
    if host.session() is not old:
        turn.conversation, turn.tool_ctx = host.session().conversation, host.tool_ctx()


def _retry_point(messages: list[Message], start: int) -> tuple[int, Message | None]:
    """(history length to compress, message to retry with; None = the user's own)."""
    failed = messages[start:]
    closed = bool(failed) and failed[-1].kind == "interrupted"
    if len(failed) <= 2 and closed:
        return start, None  # nothing but the request and the error marker: retry it
    return (len(messages) - 1 if closed else len(messages)), Message("user", CONTINUE,
                                                                       kind="continue")


def compressing_turn(host: Host, template: Turn, message: Message) -> Iterator[Event]:
    """Run `message` as one turn with automatic compression (see module docstring).

    `template` is the Turn the agent built; its conversation and tool context are
    re-bound to the host's session whenever compression switched it.
    """
    cancel = template.cancel
    if (yield from host.should()):
        yield from host.compress(cancel, "auto")
    for attempt in (1, 2):
        seen: list[PromptTooLongError] = []
        start = len(host.session().conversation.messages)
        held: list[Event] = []
        for event in run_turn(_bound(host, template, seen), message):
            if isinstance(event, Done) or (seen and isinstance(event, ErrorEvent)):
                held.append(event)
            else:
                yield event
        done = held[-1] if held and isinstance(held[-1], Done) else Done("", "error")
        if seen and attempt == 1:
            upto, retry = _retry_point(host.session().conversation.messages, start)
            old = host.session()
            yield from host.compress(cancel, "the prompt was too long", upto)
            if host.session() is not old:
                message = retry or message
                continue
        if done.reason in ("answer", "max_iterations") and (yield from host.should()):
            yield from host.compress(cancel, "auto")
        if seen and attempt == 2:  # compression ran and still could not make it fit
            held = [ErrorEvent(e.message, TOO_LONG_HINT) if isinstance(e, ErrorEvent) else e
                    for e in held]
        yield from held
        return
