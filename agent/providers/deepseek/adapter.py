"""DeepSeek adapter: Chat Completions over the official `openai` SDK, with DeepSeek's
`reasoning_content` kept and sent back (see the package docstring).

The OpenAI adapter's mapping does the rest; what differs is here: every assistant
message goes back with the `reasoning_content` it came with (the stored block, "" for a
message that has none: another provider's, an interrupted one), DeepSeek's endpoint and
key, and no OpenAI-only cache parameters.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from agent.cancel import CancelToken
from agent.errors import AuthenticationError
from agent.messages import Message, ProviderReply, Request, canonical_json
from agent.providers._client import sdk_timeout
from agent.providers._errors import SdkContext, stream_reply
from agent.providers.base import StreamItem, StreamThinking
from agent.providers.deepseek import BLOCK, DEFAULT_URL, KEY_VAR, URL_VAR
from agent.providers.openai import adapter as chat

OPENAI_ONLY = ("prompt_cache_key", "prompt_cache_retention")  # OpenAI's cache parameters


def reasoning_of(message: Message) -> str:
    """The `reasoning_content` a stored assistant message came with ("" when none)."""
    for text in message.reasoning:
        block = json.loads(text)
        if block.get("type") == BLOCK:
            return str(block.get("thinking") or "")
    return ""


def map_request(request: Request) -> dict[str, Any]:
    """Neutral request -> `chat.completions.create` kwargs for DeepSeek (byte-stable)."""
    kwargs = chat.map_request(request)
    for key in OPENAI_ONLY:
        kwargs.pop(key, None)
    said = iter([m for m in request.messages if m.role == "assistant"])
    for wire in kwargs["messages"]:
        if wire.get("role") == "assistant":
            wire["reasoning_content"] = reasoning_of(next(said))
    return kwargs


class StreamAccumulator(chat.StreamAccumulator):
    """The Chat Completions accumulator, keeping the reply's `reasoning_content`."""

    def __init__(self) -> None:
        super().__init__()
        self.reasoning: list[str] = []

    def feed(self, chunk: dict[str, Any]) -> str | StreamThinking | None:
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            if choice.get("index", 0) == 0 and isinstance(delta.get("reasoning_content"), str):
                self.reasoning.append(delta["reasoning_content"])
        return super().feed(chunk)

    def response(self) -> dict[str, Any]:
        completion = super().response()
        completion["choices"][0]["message"]["reasoning_content"] = "".join(self.reasoning)
        return completion


def map_response(wire: dict[str, Any]) -> ProviderReply:
    """A completion -> ProviderReply whose message keeps its `reasoning_content`."""
    reply = chat.map_response(wire)
    message = ((wire.get("choices") or [{}])[0].get("message")) or {}
    text = message.get("reasoning_content")
    if not isinstance(text, str):
        return reply
    block = canonical_json({"type": BLOCK, "thinking": text})
    return replace(reply, message=replace(reply.message, reasoning=(block,)))


class DeepSeekProvider(chat.OpenAIProvider):
    """The DeepSeek API (streaming, no SDK retries)."""

    name = "deepseek"

    def _base_url(self) -> str:
        return self.settings.base_url or os.environ.get(URL_VAR) or DEFAULT_URL

    def _new_client(self) -> Any:
        import openai

        key = self.settings.api_key or os.environ.get(KEY_VAR)
        if not key:
            raise AuthenticationError("DeepSeek: no API key", hint=f"Set {KEY_VAR} or `api_key:` "
                                                                   "for this provider in config.yaml.")
        return openai.OpenAI(api_key=key, base_url=self._base_url(), max_retries=0,
                             timeout=sdk_timeout(openai, self.settings))

    def _context(self, model: str) -> SdkContext:
        return SdkContext("DeepSeek", self._base_url(), KEY_VAR, model, url_env=URL_VAR)

    def stream(self, request: Request, cancel: CancelToken) -> Iterator[StreamItem]:
        """Stream one reply: thinking and text deltas, then StreamDone (see Provider)."""
        import openai

        kwargs = map_request(request)
        yield from stream_reply(lambda: self._sdk_client().chat.completions.create(**kwargs),
                                cancel, StreamAccumulator(), openai, self._context(request.model),
                                map_response)
