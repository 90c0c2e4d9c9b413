"""OpenAI Chat Completions adapter; works with any OpenAI-compatible base URL.

Pure functions (no HTTP, tested with dict literals): `map_request`, `map_usage`,
`map_response`, and `StreamAccumulator` (stream chunks -> completion dict).
Breakpoints in the request mean "send Anthropic-style `cache_control` markers inside
content parts" (OpenRouter with Claude models); without them content is plain strings.
The `openai` SDK is imported only when the first request is made.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import Any

from agent.cancel import CancelToken
from agent.errors import TransientProviderError
from agent.images import Image
from agent.messages import Message, ProviderReply, Request, ToolCall, canonical_arguments
from agent.providers._client import LazyClient, sdk_timeout
from agent.providers._errors import SdkContext, stream_reply
from agent.providers._wire import counts
from agent.providers.base import StreamItem, StreamThinking
from agent.usage import Usage

MAX_BREAKPOINTS = 4
EMPTY_PLACEHOLDER = "(empty)"
NO_KEY_PLACEHOLDER = "no-key"  # sent to a custom base URL when no key is configured
_TOOL_CHOICES = {"auto": "auto", "none": "none", "any": "required", "required": "required"}


_REASONING_MODEL = re.compile(r"^(openai/)?(gpt-5|o\d)", re.IGNORECASE)

def _part(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _content(text: str, as_parts: bool) -> Any:
    text = text or EMPTY_PLACEHOLDER
    return [_part(text)] if as_parts else text


def _image(image: Image) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": image.data_url}}


def _shown(messages: list[Message]) -> dict[str, Any]:
    """The user message that shows tool results' images: Chat Completions takes only
    text in a tool message, so the pictures follow the run of tool results (a user
    message between them would break the call/result pairing)."""
    parts: list[dict[str, Any]] = []
    for message in messages:
        parts.append(_part(f"[images from {message.tool_name or 'the tool'} "
                           f"({message.tool_call_id})]"))
        parts += [_image(i) for i in message.images]
    return {"role": "user", "content": parts}


def _map_messages(messages: list[Message], as_parts: bool) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(wire messages, the wire message of each neutral message)."""
    wire: list[dict[str, Any]] = []
    per: list[dict[str, Any]] = []
    pictured: list[Message] = []
    for message in messages:
        if pictured and message.role != "tool":
            wire.append(_shown(pictured))
            pictured = []
        per.append(_map_message(message, as_parts))
        wire.append(per[-1])
        if message.role == "tool" and message.images:
            pictured.append(message)
    if pictured:
        wire.append(_shown(pictured))
    return wire, per


def _map_message(message: Message, as_parts: bool) -> dict[str, Any]:
    if message.role == "user" and message.images:
        images = [_image(i) for i in message.images]
        return {"role": "user", "content": [*images, _part(message.wire_text or EMPTY_PLACEHOLDER)]}
    if message.role == "tool":
        return {
            "role": "tool",
            "tool_call_id": message.tool_call_id,
            "content": _content(message.content, as_parts),
        }
    if message.role == "user":
        return {"role": "user", "content": _content(message.wire_text, as_parts)}
    wire: dict[str, Any] = {"role": "assistant"}
    if message.content or not message.tool_calls:
        wire["content"] = _content(message.content, as_parts)
    else:
        wire["content"] = None
    if message.tool_calls:
        wire["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for call in message.tool_calls
        ]
    return wire


def _map_system(request: Request, as_parts: bool) -> tuple[dict[str, Any] | None, list[dict[str, Any] | None]]:
    """The system message (None when empty) and, per SystemBlock, its text part."""
    texts = [block.text for block in request.system]
    if not any(texts):
        return None, [None] * len(texts)
    if not as_parts:
        return {"role": "system", "content": "\n\n".join(t for t in texts if t)}, []
    parts: list[dict[str, Any]] = []
    refs: list[dict[str, Any] | None] = []
    for text in texts:
        if text:
            parts.append(_part(text))
        refs.append(parts[-1] if parts else None)
    return {"role": "system", "content": parts}, refs


def _last_part(wire_message: dict[str, Any]) -> dict[str, Any] | None:
    content = wire_message.get("content")
    return content[-1] if isinstance(content, list) and content else None


def _place_breakpoints(request: Request, system_refs: list[Any], wire_messages: list[dict[str, Any]]) -> None:
    """`cache_control` on the named content parts. "tools" targets have no part to mark
    in this wire format and are skipped (a system breakpoint covers the tools too)."""
    marked: set[int] = set()
    for point in request.breakpoints:
        if point.target == "tools":
            continue
        refs = system_refs if point.target == "system" else wire_messages
        try:
            ref = refs[point.index]
        except IndexError:
            raise ValueError(f"breakpoint on {point.target} {point.index} is out of range") from None
        part = ref if point.target == "system" else _last_part(ref)
        if part is None:
            continue  # e.g. an assistant message with only tool calls
        part["cache_control"] = (
            {"type": "ephemeral", "ttl": "1h"} if point.ttl == "1h" else {"type": "ephemeral"}
        )
        marked.add(id(part))
    if len(marked) > MAX_BREAKPOINTS:
        raise ValueError(f"{len(marked)} cache breakpoints; at most {MAX_BREAKPOINTS} allowed")


def _tool_choice(request: Request) -> Any:
    if not request.tools or request.tool_choice is None:
        return None
    kind = _TOOL_CHOICES.get(request.tool_choice)
    if kind is not None:
        return kind
    return {"type": "function", "function": {"name": request.tool_choice}}


def map_request(request: Request) -> dict[str, Any]:
    """Neutral request -> keyword arguments for `chat.completions.create` (byte-stable)."""
    as_parts = bool(request.breakpoints)
    system, system_refs = _map_system(request, as_parts)
    history, per_message = _map_messages(request.messages, as_parts)
    _place_breakpoints(request, system_refs, per_message)
    kwargs: dict[str, Any] = {"model": request.model}
    kwargs["messages"] = ([system] if system else []) + history
    if request.tools:
        kwargs["tools"] = [
            {
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                },
            }
            for tool in request.tools
        ]
    choice = _tool_choice(request)
    if choice is not None:
        kwargs["tool_choice"] = choice
    if request.max_tokens:
        # OpenAI's reasoning models (GPT-5, o-series) refuse `max_tokens`; other
        # OpenAI-compatible servers (llama.cpp, vLLM, Ollama) only know `max_tokens`
        key = "max_completion_tokens" if _REASONING_MODEL.match(request.model) else "max_tokens"
        kwargs[key] = request.max_tokens
    if request.temperature is not None:
        kwargs["temperature"] = request.temperature
    if request.reasoning_effort:
        kwargs["reasoning_effort"] = request.reasoning_effort
    cache_key = request.cache.key or request.session_id
    if cache_key:  # per installation + provider + model, so sessions share
        kwargs["prompt_cache_key"] = cache_key
    if request.cache.retention:
        kwargs["prompt_cache_retention"] = request.cache.retention
    kwargs["stream"] = True
    kwargs["stream_options"] = {"include_usage": True}
    return kwargs


def map_usage(wire_usage: dict[str, Any] | None, timings: dict[str, Any] | None = None) -> Usage:
    """OpenAI-style usage (plus llama.cpp `timings`) -> Usage.

    `prompt_tokens` includes cached tokens. Cache data comes from, in order:
    `prompt_cache_hit/miss_tokens` (a server that reports those), `prompt_tokens_details.cached_tokens`
    (OpenAI, OpenRouter, llama.cpp, vLLM), llama.cpp `timings.cache_n`. With none of
    them the cache is unknown (`cache_known=False`), never "0% hits".
    """
    usage = counts(wire_usage)
    timings = counts(timings)
    if not usage and not timings:
        return Usage(cache_known=False)
    details = usage.get("prompt_tokens_details") or {}
    prompt = usage.get("prompt_tokens")
    if prompt is None:
        prompt = (timings.get("prompt_n") or 0) + (timings.get("cache_n") or 0)
    output = usage.get("completion_tokens")
    if output is None:
        output = timings.get("predicted_n") or 0
    if usage.get("prompt_cache_hit_tokens") is not None:
        read = usage["prompt_cache_hit_tokens"]
        uncached = usage.get("prompt_cache_miss_tokens")
        if uncached is None:
            uncached = max(0, prompt - read)
        return Usage(uncached=uncached, cache_read=read, output=output)
    if details.get("cached_tokens") is not None:
        read = details["cached_tokens"]
    elif timings.get("cache_n") is not None:
        read = timings["cache_n"]
    else:
        return Usage(uncached=prompt, output=output, cache_known=False)
    write = details.get("cache_write_tokens") or usage.get("cache_write_tokens") or 0
    return Usage(
        uncached=max(0, prompt - read - write), write_5m=write, cache_read=read, output=output
    )


def _tool_calls(raw_calls: list[dict[str, Any]]) -> tuple[ToolCall, ...]:
    import uuid  # only for servers that send tool calls without an id

    calls = []
    for raw in raw_calls:
        function = raw.get("function") or {}
        calls.append(
            ToolCall(
                id=raw.get("id") or f"call_{uuid.uuid4().hex[:24]}",
                name=function.get("name") or "",
                arguments=canonical_arguments(function.get("arguments")),
            )
        )
    return tuple(calls)


def map_response(wire: dict[str, Any]) -> ProviderReply:
    """A chat completion dict (non-streamed, or accumulated) -> ProviderReply."""
    choices = wire.get("choices") or [{}]
    choice = choices[0]
    message = choice.get("message") or {}
    content = message.get("content")
    if isinstance(content, list):
        content = "".join(part.get("text") or "" for part in content)
    return ProviderReply(
        message=Message(
            role="assistant",
            content=content or "",
            tool_calls=_tool_calls(message.get("tool_calls") or []),
        ),
        usage=map_usage(wire.get("usage"), wire.get("timings")),
        stop_reason=choice.get("finish_reason") or "",
        response_id=wire.get("id"),
        model=wire.get("model") or "",
    )


class StreamAccumulator:
    """Builds a chat completion dict from stream chunk dicts (`chunk.model_dump()`).

    Text and tool arguments are kept as lists of pieces and joined once: appending to a
    string per delta made long arguments (megabytes in small deltas) quadratic."""

    def __init__(self) -> None:
        self.completion: dict[str, Any] = {"id": None, "model": "", "usage": None}
        self.text: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.finish_reason: str | None = None

    def feed(self, chunk: dict[str, Any]) -> str | StreamThinking | None:
        """Apply one chunk; returns the text delta it carried, if any, else the thinking
        delta of a compatible server (`reasoning_content`: vLLM, llama.cpp), shown only -
        never stored or re-sent here (a provider that needs it back has its own adapter)."""
        for key in ("id", "model"):
            if chunk.get(key):
                self.completion[key] = chunk[key]
        if chunk.get("usage"):
            self.completion["usage"] = chunk["usage"]
        if chunk.get("timings"):
            self.completion["timings"] = chunk["timings"]
        text, thinking = [], []
        for choice in chunk.get("choices") or []:
            if choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            if isinstance(delta.get("reasoning_content"), str):
                thinking.append(delta["reasoning_content"])
            if isinstance(delta.get("content"), str) and delta["content"]:
                text.append(delta["content"])
            for call in delta.get("tool_calls") or []:
                self._tool_delta(call)
            if choice.get("finish_reason"):
                self.finish_reason = choice["finish_reason"]
        self.text.extend(text)
        if not text and "".join(thinking):
            return StreamThinking("".join(thinking))
        return "".join(text) or None

    def _tool_delta(self, delta: dict[str, Any]) -> None:
        index = delta.get("index", len(self.calls))
        if not isinstance(index, int):
            raise TransientProviderError(f"OpenAI stream: a tool call delta with index {index!r}")
        slot = self.calls.setdefault(index, {"id": None, "name": "", "arguments": []})
        function = delta.get("function") or {}
        if delta.get("id"):
            slot["id"] = delta["id"]
        if function.get("name"):
            slot["name"] = function["name"]
        if isinstance(function.get("arguments"), str):
            slot["arguments"].append(function["arguments"])

    def partial(self) -> dict[str, Any] | None:
        """What arrived so far, once the usage chunk did (None before): used to record a
        call cancelled mid-stream. The usage comes last, so this is rarely not None."""
        if not self.completion["usage"] and not self.completion.get("timings"):
            return None
        message = {"role": "assistant", "content": "".join(self.text), "tool_calls": []}
        return {**self.completion, "choices": [{"index": 0, "message": message,
                                                "finish_reason": self.finish_reason}]}

    def response(self) -> dict[str, Any]:
        """The accumulated completion; raises TransientProviderError if it is incomplete."""
        if self.finish_reason is None:
            raise TransientProviderError("OpenAI stream ended before the reply was complete")
        calls = [
            {"id": slot["id"], "type": "function",
             "function": {"name": slot["name"], "arguments": "".join(slot["arguments"])}}
            for _, slot in sorted(self.calls.items())
        ]
        message = {"role": "assistant", "content": "".join(self.text), "tool_calls": calls}
        return {**self.completion,
                "choices": [{"index": 0, "message": message, "finish_reason": self.finish_reason}]}


class OpenAIProvider(LazyClient):
    """Chat Completions over the official `openai` SDK (streaming, no SDK retries)."""

    name = "openai"

    def _new_client(self) -> Any:
        import openai

        api_key = self.settings.api_key
        custom_url = self.settings.base_url or os.environ.get("OPENAI_BASE_URL")
        if api_key is None and custom_url and not os.environ.get("OPENAI_API_KEY"):
            api_key = NO_KEY_PLACEHOLDER  # local servers (llama.cpp, Ollama) need none
        return openai.OpenAI(api_key=api_key, base_url=self.settings.base_url, max_retries=0,
                             timeout=sdk_timeout(openai, self.settings))

    def _context(self, model: str) -> SdkContext:
        if self._client is not None:
            base_url = str(self._client.base_url)
        else:
            base_url = self.settings.base_url or os.environ.get("OPENAI_BASE_URL") or "the OpenAI API"
        return SdkContext("OpenAI", base_url, "OPENAI_API_KEY", model,
                          url_env="OPENAI_BASE_URL")

    def stream(self, request: Request, cancel: CancelToken) -> Iterator[StreamItem]:
        """Stream one reply: StreamText deltas, then StreamDone (see Provider)."""
        import openai

        kwargs = map_request(request)
        yield from stream_reply(lambda: self._sdk_client().chat.completions.create(**kwargs), cancel,
                                StreamAccumulator(), openai, self._context(request.model),
                                map_response)

