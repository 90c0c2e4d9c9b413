"""The provider contract: one streaming call. The loop depends only on this."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from agent.cancel import CancelToken
from agent.messages import ProviderReply, Request


@dataclass(frozen=True)
class StreamText:
    """A text delta while the reply streams."""

    text: str


@dataclass(frozen=True)
class StreamThinking:
    """A thinking delta while the reply streams (front ends may ignore it)."""

    text: str


@dataclass(frozen=True)
class StreamDone:
    """The final, complete reply (always the last item of a stream)."""

    reply: ProviderReply


StreamItem = StreamText | StreamThinking | StreamDone


@dataclass(frozen=True)
class ProviderSettings:
    """How to reach a provider. `api_key`/`base_url` None -> the SDK's own env/defaults."""

    provider: str  # "anthropic" | "openai"
    model: str
    api_key: str | None = None
    base_url: str | None = None
    timeout: float = 120.0  # seconds of silence before a stream is abandoned (settings use the spec's)
    api: str = "auto"  # OpenAI family: config.yaml `openai: {api: auto|responses|chat}`
    store: bool = True  # Responses API `store` (`openai: {store: false}` for ZDR)


class Provider(Protocol):
    """A model API. `stream` yields StreamText items then exactly one StreamDone.

    Errors are raised as agent.errors.ProviderError subclasses (TransientProviderError
    for retryable ones); cancellation raises TurnCancelled and aborts the HTTP request.
    """

    name: str

    def stream(self, request: Request, cancel: CancelToken) -> Iterator[StreamItem]: ...

    def close(self) -> None: ...
