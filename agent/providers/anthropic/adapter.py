"""Anthropic Messages API adapter: pure wire mapping plus a thin streaming client.

Pure functions (no HTTP, tested with dict literals): `map_request`, `map_usage`,
`map_response`, and `StreamAccumulator` (raw stream events -> response dict).
The `anthropic` SDK is imported only when the first request is made.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from agent.cancel import CancelToken
from agent.errors import TransientProviderError
from agent.images import Image
from agent.messages import (
    BLOCK_TYPES,
    Breakpoint,
    Message,
    ProviderReply,
    Reasoning,
    Request,
    ToolCall,
    block_dict,
    block_json,
    canonical_arguments,
)
from agent.providers._client import LazyClient, sdk_timeout
from agent.providers._errors import SdkContext, stream_reply
from agent.providers._wire import count, counts
from agent.providers.anthropic import EFFORTS
from agent.providers.base import StreamItem, StreamThinking
from agent.usage import Usage

MAX_BREAKPOINTS = 4
EMPTY_PLACEHOLDER = "(empty)"
_TOOL_CHOICES = {"auto": "auto", "any": "any", "required": "any", "none": "none"}
_FORCED = ("any", "tool")  # tool_choice types thinking refuses


def _cache_control(ttl: str) -> dict[str, str]:
    return {"type": "ephemeral", "ttl": "1h"} if ttl == "1h" else {"type": "ephemeral"}


def _image(image: Image) -> dict[str, Any]:
    return {"type": "image",
            "source": {"type": "base64", "media_type": image.media_type, "data": image.data}}


def _message_blocks(message: Message) -> tuple[str, list[dict[str, Any]]]:
    """(wire role, content blocks) for one neutral message; blocks may be empty.
    Images go before the text beside them (Anthropic's advice); a tool result with
    images carries them inside its content, after its text."""
    if message.role == "tool":
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": message.tool_call_id}
        if message.images:
            block["content"] = ([{"type": "text", "text": message.content}] if message.content
                                else []) + [_image(i) for i in message.images]
        elif message.content:
            block["content"] = message.content
        if message.is_error:
            block["is_error"] = True
        return "user", [block]
    text = message.wire_text
    if not (message.reasoning or message.images or message.tool_calls):  # most messages
        return message.role, [{"type": "text", "text": text}] if text else []
    # thinking first, exactly as received (a tool-use continuation must start with it);
    # another provider's reasoning items (a session switched from it) are not sent
    blocks: list[dict[str, Any]] = [block for block in map(block_dict, message.reasoning)
                                    if block.get("type") in BLOCK_TYPES]
    blocks += [_image(i) for i in message.images]
    if text:
        blocks.append({"type": "text", "text": text})
    for call in message.tool_calls:
        blocks.append(
            {"type": "tool_use", "id": call.id, "name": call.name, "input": call.wire_arguments()}
        )
    return message.role, blocks


def _map_messages(messages: list[Message]) -> tuple[list[dict[str, Any]], list[dict[str, Any] | None]]:
    """Wire messages (same roles merged, so roles alternate) and, per neutral message,
    the last wire block it produced (or the block before it when it produced none)."""
    wire: list[dict[str, Any]] = []
    last_blocks: list[dict[str, Any] | None] = []
    for message in messages:
        role, blocks = _message_blocks(message)
        if wire and wire[-1]["role"] == role:
            wire[-1]["content"].extend(blocks)
        else:
            wire.append({"role": role, "content": blocks or [{"type": "text", "text": EMPTY_PLACEHOLDER}]})
        last_blocks.append(wire[-1]["content"][-1])
    return wire, last_blocks


def _pick(items: list[Any], index: int, what: str) -> Any:
    try:
        return items[index]
    except IndexError:
        raise ValueError(f"breakpoint on {what} {index} is out of range ({len(items)})") from None


def _place_breakpoints(
    breakpoints: list[Breakpoint],
    tools: list[dict[str, Any]],
    system_refs: list[dict[str, Any] | None],
    last_blocks: list[dict[str, Any] | None],
) -> None:
    """Put `cache_control` on exactly the blocks the breakpoints name (at most 4)."""
    marked: dict[int, dict[str, Any]] = {}
    for point in breakpoints:
        if point.target == "tools":
            if not tools:
                continue  # no tools in this request: nothing to mark
            block = tools[-1]
        elif point.target == "system":
            block = _pick(system_refs, point.index, "system block")
        else:
            block = _pick(last_blocks, point.index, "message")
        if block is None:
            continue
        block["cache_control"] = _cache_control(point.ttl)
        marked[id(block)] = block
    if len(marked) > MAX_BREAKPOINTS:
        raise ValueError(f"{len(marked)} cache breakpoints; Anthropic allows {MAX_BREAKPOINTS}")


def _map_system(request: Request) -> tuple[list[dict[str, Any]], list[dict[str, Any] | None]]:
    """Wire system blocks (empty ones dropped) and, per neutral block, its wire block."""
    system: list[dict[str, Any]] = []
    refs: list[dict[str, Any] | None] = []
    for block in request.system:
        if block.text:
            system.append({"type": "text", "text": block.text})
        refs.append(system[-1] if system else None)
    return system, refs


def _tool_choice(request: Request) -> dict[str, str] | None:
    if not request.tools or request.tool_choice is None:
        return None
    kind = _TOOL_CHOICES.get(request.tool_choice)
    choice = {"type": kind} if kind is not None else {"type": "tool", "name": request.tool_choice}
    if request.reasoning.thinks and choice["type"] in _FORCED:
        return None  # thinking refuses forced tool use: the model chooses ("auto")
    return choice


def map_thinking(reasoning: Reasoning) -> dict[str, Any] | None:
    """The `thinking` parameter for these settings (None: not sent, the model default)."""
    if reasoning.thinking == "adaptive":
        return {"type": "adaptive"}
    if reasoning.thinking == "budget":
        return {"type": "enabled", "budget_tokens": reasoning.budget_tokens}
    return None


def map_request(request: Request) -> dict[str, Any]:
    """Neutral request -> keyword arguments for `client.messages.create` (byte-stable).

    Empty system blocks are not sent (a breakpoint on one lands on the block before it,
    which ends the same prefix). A "tools" breakpoint without tools is ignored.
    """
    system, system_refs = _map_system(request)
    tools = [
        {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}
        for tool in request.tools
    ]
    messages, last_blocks = _map_messages(request.messages)
    _place_breakpoints(request.breakpoints, tools, system_refs, last_blocks)
    max_tokens = 8192 if request.max_tokens is None else request.max_tokens  # 0: warm only
    kwargs: dict[str, Any] = {"model": request.model, "max_tokens": max_tokens}
    if system:
        kwargs["system"] = system
    if tools:
        kwargs["tools"] = tools
    choice = _tool_choice(request)
    if choice is not None:
        kwargs["tool_choice"] = choice
    kwargs["messages"] = messages
    kwargs["diagnostics"] = {"previous_message_id": request.cache.previous}
    thinking = map_thinking(request.reasoning)
    if thinking is not None:
        kwargs["thinking"] = thinking
    elif request.temperature is not None:
        # anthropic 2.14's `messages.create` has no `temperature` parameter; thinking
        # refuses one, so it is sent (as an extra body field) only with thinking off
        kwargs["extra_body"] = {"temperature": request.temperature}
    if request.reasoning_effort in EFFORTS:
        kwargs["output_config"] = {"effort": request.reasoning_effort}
    return kwargs


def map_usage(wire_usage: dict[str, Any] | None) -> Usage:
    """Anthropic usage dict -> Usage. `input_tokens` is already the uncached part."""
    wire_usage = counts(wire_usage)
    if not wire_usage:
        return Usage(cache_known=False)
    creation = wire_usage.get("cache_creation") or {}
    split_5m = creation.get("ephemeral_5m_input_tokens") or 0
    split_1h = creation.get("ephemeral_1h_input_tokens") or 0
    total_write = wire_usage.get("cache_creation_input_tokens")
    if total_write is None:
        total_write = split_5m + split_1h
    write_1h = min(split_1h, total_write)
    return Usage(
        uncached=wire_usage.get("input_tokens") or 0,
        write_5m=total_write - write_1h,
        write_1h=write_1h,
        cache_read=wire_usage.get("cache_read_input_tokens") or 0,
        output=wire_usage.get("output_tokens") or 0,
        cache_known=True,
    )


def map_response(wire: dict[str, Any]) -> ProviderReply:
    """A complete Messages API response dict -> ProviderReply.

    Tool `input` may be a dict (non-streamed) or the raw JSON text a stream delivered;
    either way it is stored canonicalised.
    """
    texts: list[str] = []
    calls: list[ToolCall] = []
    reasoning: list[str] = []
    for block in wire.get("content") or []:
        if block.get("type") in BLOCK_TYPES:
            reasoning.append(block_json(block))
        elif block.get("type") == "text":
            texts.append(block.get("text") or "")
        elif block.get("type") == "tool_use":
            arguments = canonical_arguments(block.get("input"))
            calls.append(ToolCall(id=block["id"], name=block["name"], arguments=arguments))
    reason = (wire.get("diagnostics") or {}).get("cache_miss_reason") or {}
    return ProviderReply(
        message=Message(role="assistant", content="".join(texts), tool_calls=tuple(calls),
                        reasoning=tuple(reasoning)),
        usage=map_usage(wire.get("usage")),
        stop_reason=wire.get("stop_reason") or "",
        response_id=wire.get("id"),
        miss_reason=reason.get("type"),
        missed_tokens=count(reason.get("cache_missed_input_tokens")),
        model=wire.get("model") or "",
    )


class StreamAccumulator:
    """Builds a response dict from raw stream event dicts (`event.model_dump()`).

    Deltas are kept as lists of pieces and joined once (`_built`): appending to a
    string per delta made a long tool input (megabytes in small deltas) quadratic."""

    _DELTAS = {"text_delta": "text", "thinking_delta": "thinking",
               "signature_delta": "signature", "input_json_delta": "partial_json"}

    def __init__(self) -> None:
        self.message: dict[str, Any] | None = None
        self.finished = False
        self._pieces: dict[tuple[int, str], list[str]] = {}

    def feed(self, event: dict[str, Any]) -> str | StreamThinking | None:
        """Apply one event; returns the text (or thinking) delta it carried, if any."""
        kind = event.get("type")
        if kind == "message_start":
            self.message = dict(event["message"])
            self.message["content"] = []
            self.message["usage"] = dict(self.message.get("usage") or {})
            return None
        if self.message is None:
            return None
        if kind == "content_block_start":
            self.message["content"].append(dict(event["content_block"]))
        elif kind == "content_block_delta":
            return self._delta(event.get("index"), event.get("delta") or {})
        elif kind == "message_delta":
            delta = event.get("delta") or {}
            self.message["stop_reason"] = delta.get("stop_reason")
            if delta.get("diagnostics") is not None:
                self.message["diagnostics"] = delta["diagnostics"]
            usage = {k: v for k, v in (event.get("usage") or {}).items() if v is not None}
            self.message["usage"].update(usage)
        elif kind == "message_stop":
            self.finished = True
        return None

    def _delta(self, index: Any, delta: dict[str, Any]) -> str | StreamThinking | None:
        assert self.message is not None
        if not isinstance(index, int) or not 0 <= index < len(self.message["content"]):
            raise TransientProviderError(
                f"Anthropic stream: a delta for content block {index!r}, which never started")
        key = self._DELTAS.get(str(delta.get("type")))
        piece = delta.get(key) if key else None
        if not isinstance(piece, str):
            return None
        self._pieces.setdefault((index, key), []).append(piece)  # type: ignore[arg-type]
        if key == "text":
            return piece or None
        if key == "thinking":
            return StreamThinking(piece) if piece else None
        return None

    def _built(self) -> dict[str, Any]:
        """The message with every block's pieces joined (the accumulator is unchanged)."""
        assert self.message is not None
        content = [dict(block) for block in self.message["content"]]
        for (index, key), pieces in self._pieces.items():
            joined = "".join(pieces)
            if key == "partial_json":
                if joined:
                    content[index]["input"] = joined
            else:
                content[index][key] = (content[index].get(key) or "") + joined
        return {**self.message, "content": content}

    def partial(self) -> dict[str, Any] | None:
        """What arrived so far (None before `message_start`, which carries the prompt's
        usage): used to record a call cancelled mid-stream."""
        return None if self.message is None else self._built()

    def response(self) -> dict[str, Any]:
        """The accumulated response; raises TransientProviderError if it is incomplete."""
        if self.message is None or not self.finished:
            raise TransientProviderError("Anthropic stream ended before the reply was complete")
        return self._built()


class AnthropicProvider(LazyClient):
    """The Anthropic Messages API over the official SDK (streaming, no SDK retries)."""

    name = "anthropic"

    def _new_client(self) -> Any:
        import anthropic

        return anthropic.Anthropic(api_key=self.settings.api_key, base_url=self.settings.base_url,
                                   max_retries=0, timeout=sdk_timeout(anthropic, self.settings))

    def _context(self, model: str) -> SdkContext:
        base_url = (self.settings.base_url or os.environ.get("ANTHROPIC_BASE_URL")
                    or "the Anthropic API")
        return SdkContext("Anthropic", base_url, "ANTHROPIC_API_KEY", model,
                          url_env="ANTHROPIC_BASE_URL")

    def stream(self, request: Request, cancel: CancelToken) -> Iterator[StreamItem]:
        """Stream one reply: StreamText deltas, then StreamDone (see Provider)."""
        import anthropic

        kwargs = map_request(request)
        yield from stream_reply(lambda: self._sdk_client().messages.create(stream=True, **kwargs), cancel,
                                StreamAccumulator(), anthropic, self._context(request.model),
                                map_response)

