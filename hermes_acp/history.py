"""A stored conversation replayed to the editor as session updates (session/load).

User messages as `user_message_chunk` (as typed: the dynamic layer's suffix stays out),
answers as `agent_message_chunk`, each tool call as a finished `tool_call`. Nothing is
sent to the provider: replaying changes no byte of the stored prompt.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent.prompts.untrusted import unframe
from hermes_acp import updates

if TYPE_CHECKING:
    from agent.messages import Message, ToolCall


def replayed(messages: Sequence[Message], cwd: Path) -> list[dict[str, Any]]:
    """The updates (as dicts for the SDK's models) for `messages`."""
    out: list[dict[str, Any]] = []
    results = {m.tool_call_id: m for m in messages if m.role == "tool" and m.tool_call_id}
    for message in messages:
        if message.role == "user" and message.content and message.kind != "summary":
            out.append(_chunk("user_message_chunk", message.content))
        elif message.role == "user" and message.kind == "summary":
            out.append(_chunk("agent_thought_chunk", "[earlier conversation, summarised]\n"
                              + message.content))
        elif message.role == "assistant":
            if message.content:
                out.append(_chunk("agent_message_chunk", message.content))
            for call in message.tool_calls:
                out.append(_tool(call, results.get(call.id), cwd))
    return out


def _chunk(kind: str, text: str) -> dict[str, Any]:
    return {"session_update": kind, "content": {"type": "text", "text": text}}


def _tool(call: ToolCall, result: Message | None, cwd: Path) -> dict[str, Any]:
    args = updates.arguments(call.arguments)
    path = updates.where(args, cwd) if call.name in updates.PATH_TOOLS else None
    status = "completed" if result is not None and not result.is_error else "failed"
    text = unframe(result.content) if result is not None else "(no result stored)"
    if len(text) > updates.MAX_OUTPUT:
        text = text[:updates.MAX_OUTPUT] + "\n..."
    return {"session_update": "tool_call", "tool_call_id": call.id,
            "title": updates.title(call.name, args, ""), "kind": updates.kind(call.name),
            "status": status, "locations": [{"path": path}] if path else None,
            "raw_input": args or None,
            "content": [{"type": "content", "content": {"type": "text", "text": text}}]}
