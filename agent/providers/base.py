"""The provider contract: one streaming call (the loop depends only on this), and the
lifecycle of an adapter that holds provider-side resources for its sessions.

The lifecycle, for every adapter that declares one (`SessionResources`; Gemini's
explicit caches are the one today):
- open: when the agent makes the client, `open(Services)` hands it the session store
  (resources shared by every process), each session's pause model and the prices;
- before a call: the adapter's own business inside `stream` (Gemini: find, create or
  drop the session's cache);
- after a call: `charges(session_id)` - what the provider billed outside the call's
  prompt since last asked (a creation, storage): recorded as a charge, not a call;
- keep-warm: what keeping a cache warm means is the cache model's answer
  (`CacheModel.keep_warm`): "replay" the last request (the keeper's read), "provider"
  (the adapter extends its own resource after each call: the keeper does nothing) or
  "none" (the provider caches by itself);
- session end: `settle(session_id, successor)` - the session's resources released or
  handed to `successor`, and what that bills;
- process exit: `close()` (every `Provider` has it) settles every session left.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from agent.cancel import CancelToken
from agent.messages import ProviderReply, Request
from agent.usage import Usage


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


class PauseModel(Protocol):
    """A session's pauses between requests (`agent.cache.idle_policy.GapModel`)."""

    def survival(self, t: float, given: float = 0.0) -> tuple[float, float]: ...

    def observe(self, seconds: float) -> None: ...


class ModelPrices(Protocol):
    """$ per million tokens of a model (`agent.cost.pricing.Prices`)."""

    @property
    def input(self) -> float: ...

    @property
    def cache_read(self) -> float: ...

    @property
    def storage_hour(self) -> float: ...


@dataclass(frozen=True)
class Services:
    """What the agent offers an adapter with session resources when it opens it.

    `store`: the session store (memory.store.SessionStore), None without one;
    `pauses(source, session_id)`: the pause model of a session from its source ("cli",
    "gateway", "oneshot") and id (its stored turns' gaps); `prices(model)`: its prices,
    None when unpriced."""

    store: Any = None
    pauses: Callable[[str | None, str | None], PauseModel] | None = None
    prices: Callable[[str], ModelPrices | None] | None = None


Charge = tuple[Usage, str]  # what a provider bills outside a call's prompt, and its model


@runtime_checkable
class SessionResources(Protocol):
    """An adapter that holds provider-side resources for sessions (module docstring)."""

    def open(self, services: Services) -> None: ...

    def charges(self, session_id: str | None) -> Charge | None: ...

    def settle(self, session_id: str | None, successor: str | None = None) -> Charge | None: ...
