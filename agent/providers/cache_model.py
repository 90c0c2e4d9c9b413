"""The cache-model room: how a provider caches a prompt's prefix, as one small protocol.

A provider caches a prefix in one of three styles:
- "markers": hermes marks where entries end (Anthropic's `cache_control`, GPT-5.6's
  `prompt_cache_breakpoint`, a Claude model behind a router); an entry lives for the
  lifetime its mark names (our "5m" | "1h", whatever the wire calls them);
- "automatic": the provider caches prefixes by itself and reads them in fixed steps
  (OpenAI before 5.6, OpenAI-compatible servers);
- "resource": the prefix is a named resource the client creates, references by name,
  keeps alive by updating its lifetime and deletes; it costs storage per token-hour while
  it lives (Gemini's `cachedContents`).

Everything the rest of hermes asks about a cache it asks the session's `CacheModel`
(`agent.providers.registry.cache_model(provider, model, wire)`), never a provider's name
or wire API: the request's cache hints and breakpoints (agent/modelcall/calls.py), what
keeping it warm means (`keep_warm`: "replay" - the keeper replays the last request,
agent/cache/keeper.py, keepwarm.py; "provider" - the adapter keeps its own resource warm
after each call and the keeper leaves it alone; "none" - nothing to keep), a miss's
diagnosis (lifetime, read step, the causes a provider reports), the cost of a write, a
read, a refresh and storage.

Costs: a write, a read and storage are priced by the model maker's `cache_prices` rules
(`ProviderSpec.cache_prices`: keys `cache_read`, `cache_write_5m`, `cache_write_1h` -
the short and long lifetimes' writes - and `storage_hour`, $ per million token-hours);
a refresh costs what its request reads and writes, plus output when `refresh_generates`;
storage is billed from `Usage.stored_token_hours`.

A provider registers its cache model in its `ProviderSpec` (`cache_model=`: a function
(model, wire API) -> CacheModel). Pure data here: no SDK, no I/O. The I/O of a resource
cache (create, extend, delete) and its charges are its adapter's, through the provider
lifecycle (agent/providers/base.py, `SessionResources`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import Field, dataclass, field, replace
from typing import Any, ClassVar, Literal, Protocol, TypeVar

from agent.messages import CacheHints

Style = Literal["markers", "automatic", "resource"]
# Our names of the short and long lifetime (config `cache.ttl`, `Breakpoint.ttl`, the
# usage buckets `write_5m`/`write_1h`); each cache model says what they mean on its wire.
TTLS = ("5m", "1h")
MARKER_SECONDS: Mapping[str, float] = {"5m": 300.0, "1h": 3600.0}  # Anthropic's 5m/1h


class Cached(Protocol):
    """What a cache model reads of a request (`agent.messages.Request`)."""

    __dataclass_fields__: ClassVar[dict[str, Field[Any]]]  # a dataclass (`replace` works)
    model: str
    max_tokens: int
    cache: CacheHints


RequestT = TypeVar("RequestT", bound=Cached)
RequestT_contra = TypeVar("RequestT_contra", bound=Cached, contravariant=True)


@dataclass(frozen=True)
class HintFacts:
    """What the caller knows when it builds one request's cache hints."""

    key: str  # the prefix's identity: installation + provider + model (agent.prompts.prefix)
    ttl: str  # the lifetime this turn's entries get: "5m" | "1h"
    extended: bool  # the user allows extended retention (`cache.extended_retention` not off)
    previous: str | None = None  # the previous response of this cache chain
    session_id: str | None = None
    prefix_tokens: int = 0  # estimated tools + system tokens


KeepWarm = Literal["replay", "provider", "none"]  # what keeping a cache warm means


class CacheModel(Protocol):
    """How one provider + model + wire API caches a prefix (module docstring)."""

    @property
    def style(self) -> Style: ...

    @property
    def read_step(self) -> int: ...  # automatic reads' granularity; 0: exact reads at marks

    @property
    def refresh_generates(self) -> bool: ...  # a keep-warm produces output (a 1-token answer)

    @property
    def reports_writes(self) -> bool: ...  # its usage reports cache writes apart from input

    @property
    def keep_warm(self) -> KeepWarm: ...  # what keeping it warm means (module docstring)

    @property
    def causes(self) -> Mapping[str, str]: ...  # miss causes its provider reports -> meaning

    def lifetime(self, ttl: str) -> float:
        """Seconds an entry written with our lifetime name `ttl` lives on this wire."""
        ...

    def write_lifetimes(self) -> tuple[str, str]:
        """What the short and long write buckets mean here, for people ("5m", "1h")."""
        ...

    def hints(self, facts: HintFacts) -> CacheHints:
        """What a request carries for its cache."""
        ...

    def refresh(self, request: RequestT) -> RequestT:
        """The keep-warm read of the entry `request` wrote (keep_warm "replay"): a request
        to send, billed like a call."""
        ...

    def options(self) -> str:
        """What a person can set for this cache (`hermes models`)."""
        ...


@dataclass(frozen=True)
class PrefixCache:
    """A "markers" or "automatic" cache described by its facts (Anthropic's, OpenAI's on
    both wires, OpenAI-compatible servers'); see each provider package for its own."""

    style: Style
    read_step: int = 0
    seconds: Mapping[str, float] = field(default_factory=lambda: MARKER_SECONDS)
    wire_lifetimes: Mapping[str, str] | None = None  # our name -> the request's (GPT-5.6)
    retention: bool | None = None  # keeps prefixes 24h on request (None: unknown)
    refresh_generates: bool = True
    reports_writes: bool = True
    causes: Mapping[str, str] = field(default_factory=dict)
    described: str = ""  # `options()`; "" -> from the style
    # the wire takes max_tokens 0: the request populates the cache and generates nothing
    # (Anthropic's Messages API; set refresh_generates False with it)
    zero_output: bool = False

    def lifetime(self, ttl: str) -> float:
        return self.seconds.get(ttl, self.seconds["5m"])

    def write_lifetimes(self) -> tuple[str, str]:
        if self.wire_lifetimes is None:
            return TTLS
        return self.wire_lifetimes["5m"], self.wire_lifetimes["1h"]

    def hints(self, facts: HintFacts) -> CacheHints:
        wire = self.wire_lifetimes
        return CacheHints(
            key=facts.key,
            retention="24h" if facts.extended and self.retention else None,
            lifetime=None if wire is None else wire.get(facts.ttl, wire["5m"]),
            previous=facts.previous,
        )

    @property
    def keep_warm(self) -> KeepWarm:
        return "none" if self.style == "automatic" else "replay"

    def refresh(self, request: RequestT) -> RequestT:
        if self.zero_output:
            return replace(request, max_tokens=0)  # the same prefix, no answer at all
        if self.refresh_generates:
            return replace(request, max_tokens=1)  # the same prefix, a 1-token answer
        return replace(request, cache=replace(request.cache, refresh=True))

    def options(self) -> str:
        if self.described:
            return self.described
        return "cache_control breakpoints 5m/1h" if self.style == "markers" else "automatic"


CacheModelFor = Callable[[str, str], CacheModel]  # (model, wire API) -> its cache model
