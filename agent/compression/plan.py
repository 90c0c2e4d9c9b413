"""Which messages a compaction keeps, summarises and carries over: pure functions.

A history is split into
  head     - the first user request, kept verbatim,
  previous - an earlier summary message (kind="summary") right after the head, which the
             summariser updates instead of summarising it again,
  middle   - what the summariser turns into the new summary,
  tail     - the most recent messages, kept verbatim.
The tail starts at a *cut point*: before a user message, or before an assistant message
whose preceding tool calls all have their results. So no tool call is ever separated
from its result, and head + summary + tail is a valid history.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.messages import Message
from agent.tokens import estimate_tokens, images_tokens

TAIL_SHARE = 0.20  # of the context window, for the verbatim tail
MIN_TAIL_EXCHANGES = 3  # user exchanges kept when they fit in twice the tail budget
MESSAGE_OVERHEAD = 4  # tokens of role/framing per message (estimate)


@dataclass(frozen=True)
class Plan:
    """The split of one history (see module docstring)."""

    head: tuple[Message, ...]
    previous: Message | None
    middle: tuple[Message, ...]
    tail: tuple[Message, ...]

    @property
    def kept(self) -> tuple[Message, ...]:
        return self.head + self.tail


def message_tokens(message: Message) -> int:
    """Estimated tokens one message costs on the wire."""
    calls = "".join(c.name + c.arguments for c in message.tool_calls)
    thinking = "".join(message.reasoning)  # re-sent with the message, so it costs tokens
    return (estimate_tokens(message.wire_text + calls + thinking) + images_tokens(message.images)
            + MESSAGE_OVERHEAD)


def history_tokens(messages: tuple[Message, ...] | list[Message]) -> int:
    """Estimated tokens of a list of messages."""
    return sum(message_tokens(m) for m in messages)


def cut_points(messages: list[Message]) -> list[int]:
    """Indices where a tail may start without splitting a tool call from its result."""
    points: list[int] = []
    pending: set[str] = set()
    for index, message in enumerate(messages):
        if message.role == "tool":
            pending.discard(message.tool_call_id or "")
            continue
        if message.role == "user":
            points.append(index)
            pending = set()
            continue
        if not pending:
            points.append(index)
        pending = {c.id for c in message.tool_calls}
    return points


def _split_head(messages: list[Message]) -> tuple[tuple[Message, ...], Message | None, int]:
    """(head, previous summary, index where the summarisable body starts)."""
    head: tuple[Message, ...] = ()
    if messages and messages[0].role == "user" and messages[0].kind != "summary":
        head = (messages[0],)
    start = len(head)
    previous = None
    if start < len(messages) and messages[start].kind == "summary":
        previous = messages[start]
        start += 1
    return head, previous, start


def _tail_start(messages: list[Message], candidates: list[int], budget: int) -> int:
    """The earliest candidate whose suffix fits `budget`, extended to the last
    MIN_TAIL_EXCHANGES user exchanges when those fit in twice the budget."""
    suffix = [0] * (len(messages) + 1)
    for index in range(len(messages) - 1, -1, -1):
        suffix[index] = suffix[index + 1] + message_tokens(messages[index])
    start = next((p for p in candidates if suffix[p] <= budget), candidates[-1])
    exchanges = [p for p in candidates if messages[p].role == "user" and not messages[p].kind]
    if exchanges:
        wanted = exchanges[-MIN_TAIL_EXCHANGES:][0]
        if suffix[wanted] <= 2 * budget:
            start = min(start, wanted)
    return start


def plan(messages: list[Message], tail_budget: int) -> Plan | None:
    """Split `messages` for compaction; None when there is nothing worth summarising.

    `tail_budget` is the token budget of the verbatim tail (~20% of the window).
    """
    head, previous, body = _split_head(messages)
    candidates = [p for p in cut_points(messages) if p > body]
    if not candidates:
        return None
    start = _tail_start(messages, candidates, tail_budget)
    middle = tuple(messages[body:start])
    if not middle:
        return None
    return Plan(head=head, previous=previous, middle=middle, tail=tuple(messages[start:]))
