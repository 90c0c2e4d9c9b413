"""The session's history: an append-only list mirrored to the session store.

Every message is committed to SQLite as it is appended, before the next API call, so a
killed process loses at most the reply in flight. `repaired()` returns the history the
provider may safely see: every tool call answered, roles in a valid order.
"""

from __future__ import annotations

import json
from typing import Any

from agent.images import decode_images
from agent.messages import Message, ToolCall
from memory.store import SessionStore

NO_REPLY = "[no reply: the turn was interrupted before the model answered]"
INTERRUPTED = "[interrupted: this tool call did not run to completion; no result is available]"


def message_from_row(row: dict[str, Any]) -> Message:
    """Rebuild a Message from a store row."""
    calls = row.get("tool_calls") or []
    if isinstance(calls, str):
        calls = json.loads(calls)
    return Message(
        role=row["role"],
        content=row.get("content") or "",
        tool_calls=tuple(ToolCall(c["id"], c["name"], c.get("arguments") or "{}") for c in calls),
        tool_call_id=row.get("tool_call_id"),
        tool_name=row.get("tool_name"),
        wire_suffix=row.get("wire_suffix") or "",
        kind=row.get("kind") or "",
        is_error=bool(row.get("is_error")) if "is_error" in row else False,
        reasoning=tuple(row.get("reasoning") or ()),
        images=decode_images(row.get("images")),
    )


def _row_fields(message: Message) -> dict[str, Any]:
    calls = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in message.tool_calls]
    return {
        "role": message.role,
        "content": message.content,
        "tool_calls": calls or None,
        "tool_call_id": message.tool_call_id,
        "tool_name": message.tool_name,
        "wire_suffix": message.wire_suffix,
        "kind": message.kind,
        "is_error": message.is_error,
        "reasoning": message.reasoning,
        "images": [i.as_json() for i in message.images] or None,
    }


class Conversation:
    """History of one session, persisted message by message."""

    def __init__(self, store: SessionStore | None, session_id: str) -> None:
        self.store = store
        self.session_id = session_id
        self.messages: list[Message] = []

    def load(self) -> None:
        """Read the stored history and repair a dangling tool call (killed process)."""
        if self.store is None:
            return
        self.messages = [message_from_row(r) for r in self.store.messages(self.session_id)]
        for message in _missing_results(self.messages):
            self.append(message)
        if self.messages and self.messages[-1].role == "user":
            self.append(Message("assistant", NO_REPLY, kind="interrupted"))

    def append(self, message: Message) -> None:
        """Append and commit at once."""
        if self.store is not None:
            self.store.append_message(self.session_id, **_row_fields(message))
        self.messages.append(message)

    def last_user_index(self) -> int | None:
        """Where the last message the user typed is (not a hook's or a summary's)."""
        for index in range(len(self.messages) - 1, -1, -1):
            message = self.messages[index]
            if message.role == "user" and not message.kind:
                return index
        return None

    def truncate(self, length: int) -> None:
        """Drop messages from index `length` on (/undo, /retry: deliberate edits)."""
        if self.store is not None:
            self.store.delete_messages_from(self.session_id, length)
        del self.messages[length:]

    def close_dangling(self) -> list[Message]:
        """Answer unanswered tool calls with a synthetic result; returns what was added."""
        added = _missing_results(self.messages)
        for message in added:
            self.append(message)
        return added


def _missing_results(messages: list[Message]) -> list[Message]:
    """Synthetic results for tool calls of the LAST assistant message left unanswered."""
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.role == "assistant":
            answered = {m.tool_call_id for m in messages[index + 1 :] if m.role == "tool"}
            return [
                Message("tool", INTERRUPTED, tool_call_id=c.id, tool_name=c.name,
                        kind="interrupted", is_error=True)
                for c in message.tool_calls
                if c.id not in answered
            ]
        if message.role == "user":
            return []
    return []


def repaired(messages: list[Message]) -> list[Message]:
    """The history as the provider must see it.

    - tool results whose call is unknown are dropped (orphans),
    - tool calls without a result get a synthetic "interrupted" result,
    - consecutive user messages are kept (adapters merge them where needed); an
      assistant message first in the list gets a placeholder user message before it.
    Returns the same objects for a healthy history, so the wire bytes never change.
    """
    out: list[Message] = []
    pending: dict[str, ToolCall] = {}
    for message in messages:
        if message.role == "tool":
            if message.tool_call_id in pending:
                pending.pop(message.tool_call_id)
                out.append(message)
            continue
        if pending:
            out.extend(
                Message("tool", INTERRUPTED, tool_call_id=c.id, tool_name=c.name,
                        kind="interrupted", is_error=True)
                for c in pending.values()
            )
            pending = {}
        if message.role == "assistant" and not out:
            out.append(Message("user", "(conversation resumed)"))
        out.append(message)
        if message.role == "assistant":
            pending = {c.id: c for c in message.tool_calls}
    if pending:
        out.extend(
            Message("tool", INTERRUPTED, tool_call_id=c.id, tool_name=c.name,
                    kind="interrupted", is_error=True)
            for c in pending.values()
        )
    return out
