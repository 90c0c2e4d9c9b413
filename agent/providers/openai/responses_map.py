"""OpenAI Responses API mapping: pure functions, no HTTP (tested with dict literals).

`map_request` sends the whole input every time (never `previous_response_id`): the bytes
stay ours, so a stored session replays exactly on resume and on another gateway worker.
- system blocks -> one `system` message, one `input_text` part per block (a breakpoint
  can end each block); user text and tool results are `input_text` parts too, so their
  form never changes when a breakpoint comes or goes.
- an assistant message -> its reasoning items verbatim (Message.reasoning, as received,
  encrypted content included; another provider's thinking blocks left out), its text,
  its function calls.
- GPT-5.6+ (`cache_controls`): our breakpoints become `prompt_cache_breakpoint`s (5m/1h
  TTLs map to 30m/12h), `prompt_cache_options` carries the mode, the TTL and the
  session's previous response as `comparison_response_id`. Nothing of that ever goes
  to an earlier model (they refuse it with a 400) or another server.
`map_response` turns a response dict (non-streamed, or `response.completed`) into a
ProviderReply; `StreamAccumulator` follows the stream's events.
"""

from __future__ import annotations

import json
from typing import Any

from agent.errors import TransientProviderError
from agent.images import Image
from agent.messages import (
    Message,
    ProviderReply,
    Request,
    ToolCall,
    block_json,
    canonical_arguments,
)
from agent.providers.base import StreamThinking
from agent.usage import Usage

EMPTY = "(empty)"
ENCRYPTED = "reasoning.encrypted_content"
TTL_NAMES = {"5m": "30m", "1h": "12h"}  # our cache.ttl -> OpenAI's lifetimes on 5.6+
_TOOL_CHOICES = {"auto": "auto", "none": "none", "any": "required", "required": "required"}
# OpenAI's diagnosis -> our miss causes; not_found/unavailable name no cause (None)
PROVIDER_CAUSES = {"model_changed": "model_changed", "tools_changed": "tools_changed",
                   "prompt_cache_key_changed": "prompt_cache_key_changed",
                   "reasoning_effort_changed": "thinking_changed",
                   "text_format_changed": "text_format_changed",
                   "verbosity_changed": "verbosity_changed",
                   "service_tier_changed": "service_tier_changed",
                   "context_compacted": "system_changed", "input_changed": "messages_changed"}


def _part(text: str) -> dict[str, Any]:
    return {"type": "input_text", "text": text or EMPTY}


def _image(image: Image) -> dict[str, Any]:
    return {"type": "input_image", "image_url": image.data_url, "detail": "auto"}


def _items(message: Message) -> list[dict[str, Any]]:
    """Images: before a user's text, after a tool result's (`output` takes both)."""
    if message.role == "user":
        images = [_image(i) for i in message.images]
        return [{"role": "user", "content": [*images, _part(message.wire_text)]}]
    if message.role == "tool":
        return [{"type": "function_call_output", "call_id": message.tool_call_id,
                 "output": [_part(message.content), *(_image(i) for i in message.images)]}]
    # its own reasoning items only: a session switched from another provider keeps that
    # provider's thinking blocks, which this API refuses
    items = [item for item in map(json.loads, message.reasoning) if item.get("type") == "reasoning"]
    if message.content or not message.tool_calls:
        items.append({"role": "assistant", "content": message.content or EMPTY})
    items += [{"type": "function_call", "call_id": call.id, "name": call.name,
               "arguments": call.arguments} for call in message.tool_calls]
    return items


def _mark(part: dict[str, Any] | None, ttl: str) -> None:
    if part is not None:
        part["prompt_cache_breakpoint"] = {"mode": "explicit", "ttl": TTL_NAMES.get(ttl, "30m")}


def _last_part(items: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The last content part of a message's items (None: it ends in a function call)."""
    last = items[-1] if items else {}
    parts = last.get("content") if "role" in last else last.get("output")
    return parts[-1] if isinstance(parts, list) and parts else None


def _input(request: Request, cache_controls: bool) -> list[dict[str, Any]]:
    """The input items, with `prompt_cache_breakpoint`s where the planner put marks."""
    system_parts: list[dict[str, Any]] = []
    refs: list[dict[str, Any] | None] = []  # per system block: the part that ends it
    for block in request.system:
        if block.text:
            system_parts.append(_part(block.text))
        refs.append(system_parts[-1] if system_parts else None)
    per_message = [_items(m) for m in request.messages]
    for point in request.breakpoints if cache_controls else ():
        if point.target == "system" and 0 <= point.index < len(refs):
            _mark(refs[point.index], point.ttl)
        elif point.target == "message" and 0 <= point.index < len(per_message):
            _mark(_last_part(per_message[point.index]), point.ttl)
    items = [{"role": "system", "content": system_parts}] if system_parts else []
    return items + [item for group in per_message for item in group]


def _cache_options(request: Request, store: bool) -> dict[str, Any]:
    """GPT-5.6+ `prompt_cache_options`: explicit mode when we mark (agent/providers/openai/cache.py says why)."""
    options: dict[str, Any] = {"mode": "explicit" if request.breakpoints else "implicit",
                               "ttl": request.cache.lifetime or "30m"}
    if request.cache.refresh:
        options["prewarm"] = True
    if request.cache.previous and store:  # unstored responses cannot be compared
        options["comparison_response_id"] = request.cache.previous
    return options


def map_request(request: Request, *, store: bool, cache_controls: bool,
                reasoning_model: bool) -> dict[str, Any]:
    """Neutral request -> keyword arguments for `responses.create` (byte-stable)."""
    kwargs: dict[str, Any] = {"model": request.model, "input": _input(request, cache_controls),
                              "store": store}
    if request.tools:
        kwargs["tools"] = [{"type": "function", "name": t.name, "description": t.description,
                            "parameters": t.parameters, "strict": False}
                           for t in request.tools]
        if request.tool_choice is not None:
            kind = _TOOL_CHOICES.get(request.tool_choice)
            kwargs["tool_choice"] = kind or {"type": "function", "name": request.tool_choice}
    if request.max_tokens:
        kwargs["max_output_tokens"] = request.max_tokens
    if request.temperature is not None:
        kwargs["temperature"] = request.temperature
    if reasoning_model:
        kwargs["reasoning"] = {"summary": "auto"}
        if request.reasoning_effort:
            kwargs["reasoning"]["effort"] = request.reasoning_effort
        kwargs["include"] = [ENCRYPTED]  # sent back verbatim, with or without `store`
    key = request.cache.key or request.session_id
    if key:
        kwargs["prompt_cache_key"] = key
    if cache_controls:
        kwargs["prompt_cache_options"] = _cache_options(request, store)
    elif request.cache.retention:
        kwargs["prompt_cache_retention"] = request.cache.retention
    kwargs["stream"] = True
    return kwargs


def map_usage(wire: dict[str, Any] | None) -> Usage:
    """Responses usage -> Usage: `input_tokens` includes reads and writes; writes split
    by lifetime (30m -> write_5m, 12h -> write_1h: the buckets priced as writes)."""
    if not wire:
        return Usage(cache_known=False)
    details = wire.get("input_tokens_details") or {}
    read = details.get("cached_tokens") or 0
    write = details.get("cache_write_tokens") or 0
    split = details.get("cache_write_tokens_details") or {}
    long_ = split.get("ttl_12h_tokens") or 0
    return Usage(uncached=max(0, (wire.get("input_tokens") or 0) - read - write),
                 write_5m=write - long_, write_1h=long_, cache_read=read,
                 output=wire.get("output_tokens") or 0)


def map_response(wire: dict[str, Any]) -> ProviderReply:
    """A response dict -> ProviderReply (reasoning items kept as received)."""
    texts: list[str] = []
    calls: list[ToolCall] = []
    reasoning: list[str] = []
    for item in wire.get("output") or []:
        kind = item.get("type")
        if kind == "reasoning":
            reasoning.append(block_json({k: v for k, v in item.items()
                                         if v is not None and k != "status"}))
        elif kind == "message":
            texts += [p.get("text") or "" for p in item.get("content") or []
                      if p.get("type") == "output_text"]
        elif kind == "function_call":
            calls.append(ToolCall(id=item["call_id"], name=item.get("name") or "",
                                  arguments=canonical_arguments(item.get("arguments"))))
    diagnosis = wire.get("prompt_cache_diagnostics") or {}
    cause = PROVIDER_CAUSES.get(diagnosis.get("reason") or "") \
        if diagnosis.get("type") == "cache_miss" else None
    status = wire.get("status") or ""
    return ProviderReply(
        message=Message(role="assistant", content="".join(texts), tool_calls=tuple(calls),
                        reasoning=tuple(reasoning)),
        usage=map_usage(wire.get("usage")),
        stop_reason="tool_calls" if calls else ("stop" if status == "completed" else status),
        response_id=wire.get("id"),
        miss_reason=cause,
        missed_tokens=diagnosis.get("cache_missed_tokens") if cause else None,
        model=wire.get("model") or "",
    )


class StreamAccumulator:
    """Follows Responses stream events (`event.model_dump()`) to the final response."""

    def __init__(self) -> None:
        self.final: dict[str, Any] | None = None
        self.started: dict[str, Any] = {}
        self.text: list[str] = []

    def feed(self, event: dict[str, Any]) -> str | StreamThinking | None:
        kind = event.get("type")
        if kind == "response.created":
            self.started = event.get("response") or {}
        elif kind == "response.output_text.delta":
            self.text.append(event.get("delta") or "")
            return event.get("delta") or None
        elif kind == "response.reasoning_summary_text.delta":
            return StreamThinking(event.get("delta") or "") if event.get("delta") else None
        elif kind in ("response.completed", "response.incomplete"):
            self.final = event.get("response") or {}
        elif kind in ("response.failed", "error"):
            error = (event.get("response") or {}).get("error") or event
            raise TransientProviderError(f"OpenAI response failed: {error.get('message')}")
        return None

    def partial(self) -> dict[str, Any] | None:
        """A cancelled stream: the usage comes only with the final event."""
        return self.final

    def response(self) -> dict[str, Any]:
        if self.final is None:
            raise TransientProviderError("OpenAI stream ended before the response completed")
        return self.final
