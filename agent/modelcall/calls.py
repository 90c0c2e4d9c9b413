"""One model call: shape the request, place breakpoints, retry, fall back, account.

`ModelCaller.call(grace)` is the `call_model` the loop uses. It yields StreamText while
the reply streams, Notice/UsageEvent events, and finally StreamDone.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import replace

from agent.cancel import CancelToken
from agent.config import AgentConfig
from agent.cost import pricing
from agent.cost.budget import Budget, Estimate
from agent.diagnosis import CacheFacts, diagnose, fingerprint
from agent.errors import TransientProviderError, TurnCancelled, UnreachableProviderError
from agent.events import Notice
from agent.loop import CallItem
from agent.messages import Message, ProviderReply, Reasoning, Request, SystemBlock, ToolSchema
from agent.modelcall.caching import place_breakpoints
from agent.modelcall.ledger import Billed, Ledger
from agent.prompts.prefix import cache_key
from agent.providers import models
from agent.providers._errors import CancelledMidStream
from agent.providers.base import Provider, SessionResources, StreamDone, StreamText, StreamThinking
from agent.providers.cache_model import CacheModel, HintFacts
from agent.providers.reasoning import for_model, max_tokens_for
from agent.providers.registry import cache_model, profile_for
from agent.providers.spec import ProviderProfile
from agent.retry import RetryPolicy
from agent.sessions.call_state import CallState
from agent.sessions.conversation import repaired
from agent.sessions.session import Session
from agent.tokens import estimate_tokens, images_tokens
from agent.usage import CHARGE_KIND, Usage
from memory.store import SessionStore


def stream_with_retries(provider: Provider, request: Request, policy: RetryPolicy,  # noqa: PLR0913
                        cancel: CancelToken, *, label: str = "", text: bool = True,
                        connected: bool = True) -> Generator[CallItem, None, ProviderReply]:
    """One call with bounded, jittered retries of transient errors.

    Yields StreamText (unless `text` is False) and a Notice per retry; returns the reply
    or raises the last error (TurnCancelled when cancelled while waiting). `connected`
    False (nothing has reached this provider yet): a provider that cannot be reached at
    all is a wrong base URL, raised at once instead of retried like an outage."""
    attempts = max(1, policy.attempts)
    for attempt in range(1, attempts + 1):
        cancel.check()
        try:
            reply = None
            for item in provider.stream(request, cancel):
                if isinstance(item, StreamText | StreamThinking):
                    if text:
                        yield item
                elif isinstance(item, StreamDone):
                    reply = item.reply
            if reply is None:
                raise TransientProviderError("the provider stream ended without a reply")
            return reply
        except TransientProviderError as exc:
            if not connected and isinstance(exc, UnreachableProviderError):
                raise
            if attempt == attempts:
                if not exc.hint:
                    exc.hint = (f"it still failed after {attempts} tries; try again later, or "
                                "set `fallback_model` in config.yaml")
                raise
            delay = policy.delay(attempt, exc.retry_after)
            yield Notice(f"{label}{exc.message} - retrying in {delay:.1f}s ({attempt}/{attempts - 1})",
                         "warning")
            if cancel.wait(delay):
                raise TurnCancelled() from None
    raise AssertionError("unreachable")


def _tokens(messages: list[Message]) -> int:
    """Estimated tokens of messages as sent (text, tool arguments, reasoning, images)."""
    text = "".join(m.wire_text + "".join(c.arguments for c in m.tool_calls)
                   + "".join(m.reasoning) for m in messages)
    return estimate_tokens(text) + sum(images_tokens(m.images) for m in messages)


def received(partial: ProviderReply) -> tuple[ProviderReply, int]:
    """A cut reply with its output counted from what arrived (text, tool arguments,
    thinking) when that is more than the usage reported; and that estimate (0 if the
    report stands)."""
    message = partial.message
    arrived = estimate_tokens(message.content + "".join(c.arguments for c in message.tool_calls)
                              + "".join(message.reasoning))
    if arrived <= partial.usage.output:
        return partial, 0
    return replace(partial, usage=replace(partial.usage, output=arrived)), arrived


class ModelCaller:
    """Builds requests for one session and performs calls with retries and fallback.

    Built once per agent; it holds references (the agent's current session, the
    provider), never copies: the model, the tool schemas and the reasoning settings are
    the session's choices (agent.sessions.choices), read at each call, so a model switch, a
    /reasoning change or a compression seam is seen by the next call. Per turn: the
    cancel token and the reasoning effort; the reasoning settings are fixed at the
    turn's start (`begin_turn`)."""

    def __init__(self, config: AgentConfig, provider: Callable[[], Provider],  # noqa: PLR0913
                 store: SessionStore | None, session: Callable[[], Session],
                 clock: Callable[[], float] = time.time,
                 budget: Budget | None = None) -> None:
        self.config = config
        self._provider = provider
        self.store = store
        self._session = session
        self.clock = clock
        self.budget = budget
        self.ledger = Ledger(store, budget, config.prices)  # where its calls are recorded
        self.cancel = CancelToken()
        self.reasoning_effort: str | None = None  # per turn; not part of the signature
        self._turn_reasoning: Reasoning | None = None
        self._prefix: tuple[tuple[str, str, tuple[ToolSchema, ...]], int] | None = None
        self.ttl_override: str | None = None  # a lifetime fixed for this turn's calls
        # the idle policy's choice per call, given the tokens the call writes
        # (agent/cache/keeper.py sets it at each turn start); its last answer is _call_ttl
        self.ttl_policy: Callable[[int], str] | None = None
        self._call_ttl: str | None = None
        self.last_sent: tuple[Request, float] | None = None  # the last request and its send time
        # a reply has come through this caller, so the base URL works: from then on a
        # refused connection is an outage (retried, fallback). The gateway serves many
        # sessions from one proven URL, so its agents retry from the first call.
        self.reached = config.source == "gateway"

    def begin_turn(self, cancel: CancelToken, reasoning_effort: str | None) -> None:
        """The running turn's token and per-message settings."""
        self.cancel = cancel
        self.reasoning_effort = reasoning_effort
        # fixed for the whole turn: a tool loop never changes thinking mode midway
        self._turn_reasoning = self.reasoning.with_effort(reasoning_effort)

    def moved_provider(self) -> None:
        """The session now talks to another provider (/model): its URL has not answered
        yet (a refused connection is a wrong URL again, not an outage), the last request
        is not the new provider's to replay (keep-warm) and the previous response id
        names nothing there."""
        self.reached = self.config.source == "gateway"
        self.last_sent = None
        self.state.previous_response_id = None

    @property
    def reasoning(self) -> Reasoning:
        """The session's reasoning settings (its choice; /reasoning replaces it)."""
        return self.session.choices.reasoning

    @property
    def tools(self) -> tuple[ToolSchema, ...]:
        """The session's frozen tool schemas (its choice; /mcp reload replaces it)."""
        return self.session.choices.tools

    @property
    def turn_reasoning(self) -> Reasoning:
        """The reasoning settings the running (or next) turn's calls use."""
        return self._turn_reasoning or self.reasoning

    @property
    def session(self) -> Session:
        return self._session()

    @property
    def provider(self) -> Provider:
        return self._provider()

    @property
    def state(self) -> CallState:
        return self.session.calls

    @property
    def model(self) -> str:
        return self.session.model

    def profile(self, model: str | None = None) -> ProviderProfile:
        return profile_for(self.session.provider, model or self.model, self.api_mode)

    def cache_model(self, model: str | None = None) -> CacheModel:
        """How this session's provider caches `model`'s prefix on the session's wire."""
        return cache_model(self.session.provider, model or self.model, self.api_mode)

    @property
    def api_mode(self) -> str:
        """The wire API of this session's provider (agent.providers.registry.wire_api;
        the session keeps the one it started with: Choices.api)."""
        return self.session.choices.wire(self.config)

    @property
    def ttl(self) -> str:
        """The lifetime this call's cache entries get: the idle policy's, else config's."""
        return self.ttl_override or self._call_ttl or self.config.cache_ttl

    def unwritten_tokens(self) -> int:
        """Estimated tokens the next call writes: the messages after where the model's
        previous request wrote, or the whole prompt when nothing of it is cached (first
        call of the model, or its entry outlived)."""
        model = self.model
        index = self.state.last_index_by_model.get(model)
        last = self.state.last_by_model.get(model)
        expired = last is None or self.clock() - last[1] >= self._ttl_seconds(model)
        messages = self.session.conversation.messages
        if index is None or expired:
            return self.prefix_tokens + self.history_tokens()
        return _tokens(messages[index + 1:])

    def _choose_ttl(self) -> None:
        """Let the idle policy pick this call's lifetime for what the call writes."""
        if self.ttl_policy is not None:
            self._call_ttl = self.ttl_policy(self.unwritten_tokens())

    def _ttl_seconds(self, model: str) -> int:
        """The cache lifetime the diagnosis compares idle gaps with."""
        return int(self.cache_model(model).lifetime(self.ttl))

    def build_request(self, model: str | None = None) -> Request:
        """The neutral request for the current history (pure given the state)."""
        model = model or self.model
        session = self.session
        messages = repaired(session.conversation.messages)
        blocks = session.blocks
        system = [SystemBlock(text, "stable", scope) for scope, text in blocks]
        if session.ephemeral:
            system.append(SystemBlock(session.ephemeral, "ephemeral"))
        breakpoints = []
        cache = self.cache_model(model)
        if cache.style == "markers":
            breakpoints = place_breakpoints(
                has_tools=bool(self.tools),
                stable_system_index=len(blocks) - 1,
                shared_system_indexes=tuple(range(len(blocks) - 1)),
                message_count=len(messages),
                previous_last_index=self.state.last_index_by_model.get(model),
                ttl=self.ttl,  # type: ignore[arg-type]
                prefix_ttl=self.config.prefix_ttl,  # type: ignore[arg-type]
            )
        reasoning = for_model(self.turn_reasoning, session.provider, model)
        hints = cache.hints(HintFacts(
            key=cache_key(self.config.home, session.provider, model), ttl=self.ttl,
            extended=getattr(self.config, "cache_retention", "auto") != "off",
            previous=self.state.previous_response_id, session_id=session.id,
            prefix_tokens=self.prefix_tokens))
        return Request(
            model=model,
            system=system,
            messages=messages,
            tools=list(self.tools),
            max_tokens=max_tokens_for(reasoning, self.config.max_tokens),
            breakpoints=breakpoints,
            session_id=session.id,
            reasoning_effort=reasoning.effort,
            reasoning=reasoning,
            cache=hints,
        )

    @property
    def prefix_tokens(self) -> int:
        """Estimated tokens of tools + system: what every call re-sends (computed once
        per system text: it changes only by a deliberate rebuild)."""
        key = (self.session.stable, self.session.ephemeral, self.tools)
        if self._prefix is None or self._prefix[0] != key:  # identical objects: O(1) each
            text = "".join(t.canonical() for t in self.tools) + key[0] + key[1]
            self._prefix = (key, estimate_tokens(text))
        return self._prefix[1]

    def history_tokens(self) -> int:
        """Estimated tokens of the messages (what a thinking-settings change re-sends)."""
        return _tokens(self.session.conversation.messages)

    def estimate(self) -> Estimate:
        """The next call's estimated tokens (prompt + output) and cost: the part the
        last call sent is priced as a cache read, the rest as a write (or uncached),
        the output as the session's average so far (none before any call: a guess
        would make a small --max-usd turn the first call into a grace call). The prompt
        is never taken as smaller than the last call's, as the provider counted it: the
        history only grows between calls, and a character estimate can fall short."""
        prompt = max(self.prefix_tokens + self.history_tokens(), self.state.last_prompt_tokens)
        read = min(self.state.last_prompt_tokens, prompt)
        calls = max(1, self.state.calls_made)
        output = self.state.output_tokens // calls if self.state.calls_made else 0
        fresh = prompt - read
        usage = (Usage(write_5m=fresh, cache_read=read, output=output, calls=1)
                 if self.cache_model().style == "markers"
                 else Usage(uncached=fresh, cache_read=read, output=output, calls=1))
        return Estimate(prompt + output, pricing.cost(usage, self.model, self.config.prices))

    def budget_limit(self) -> str | None:
        """The budget limit the next call would cross (the loop's `limit`), or None."""
        return None if self.budget is None else self.budget.check(self.estimate())

    def call(self, grace: bool = False) -> Iterator[CallItem]:
        """Perform one model call for the loop (see module docstring)."""
        self._choose_ttl()
        request = self.build_request()
        if not self.state.warned_small and self.cache_model().style == "markers":
            self.state.warned_small = True
            minimum = models.min_cache_tokens(self.model)
            if self.prefix_tokens < minimum:
                yield Notice(
                    f"The stable prefix (~{self.prefix_tokens:,} tokens) is below {self.model}'s "
                    f"minimum cacheable size ({minimum:,}); it will not be cached until the "
                    "conversation grows past it.",
                    "warning",
                )
        try:
            reply = yield from self._with_retries(request)
        except TransientProviderError as exc:
            fallback = self.config.fallback_model
            first = isinstance(exc, UnreachableProviderError) and not self.reached
            if not fallback or fallback == self.model or first:  # same URL: no use
                raise
            if not models.serves(self.session.provider, fallback):  # another provider's
                raise
            yield Notice(f"{self.model} failed ({exc.message}); answering with the fallback "
                         f"model {fallback} (its cache starts cold).", "warning")
            reasoning = for_model(self.turn_reasoning, self.session.provider, fallback)
            request = replace(request, model=fallback, reasoning=reasoning,
                              reasoning_effort=reasoning.effort,
                              max_tokens=max_tokens_for(reasoning, self.config.max_tokens))
            reply = yield from self._with_retries(request)
            self.state.used_fallback = True
        yield from self._account(request, reply)
        yield StreamDone(reply)

    def _with_retries(self, request: Request) -> Generator[CallItem, None, ProviderReply]:
        self.last_sent = (request, self.clock())
        try:
            reply = yield from stream_with_retries(self.provider, request, self.config.retry,
                                                   self.cancel, connected=self.reached)
            self.reached = True
            return reply
        except CancelledMidStream as exc:
            # the provider processed (and billed, and cached) the prompt before the cancel,
            # and billed the output it sent: a cut stream reports none, so count it
            exc.partial, arrived = received(exc.partial)
            yield from self._account(request, exc.partial)
            if arrived:
                yield Notice(f"cancelled: ~{arrived:,} output tokens had arrived and are "
                             "counted (estimated: a cut stream reports no usage)", "info")
            raise

    def _account(self, request: Request, reply: ProviderReply) -> Iterator[CallItem]:
        """Record usage, diagnose misses, and advance the cache chain."""
        now = self.clock()
        usage = reply.usage
        model = reply.model or request.model
        current = fingerprint(request)
        previous, last_time = self.state.previous_fingerprint, self.state.last_call_time
        previous_prompt = 0
        if request.model in self.state.last_by_model:
            previous, last_time, previous_prompt = self.state.last_by_model[request.model]
        gap = None if last_time is None else now - last_time
        diagnosis = diagnose(
            previous=previous,
            current=current,
            usage=usage,
            provider_reason=reply.miss_reason,
            provider_missed=reply.missed_tokens,
            facts=CacheFacts(
                gap_seconds=gap,
                ttl_seconds=self._ttl_seconds(request.model),
                prefix_tokens=self.prefix_tokens,
                min_tokens=models.min_cache_tokens(model),
                # a resource cache (Gemini) holds the shared prefix only, by design: a
                # read of it is the whole read, not a partial one
                previous_prompt=0 if self.cache_model(request.model).style == "resource"
                else previous_prompt,
                step=self.cache_model(request.model).read_step,
            ),
        )
        self.state.calls_made += 1
        self.state.output_tokens += usage.output
        event = self.ledger.record(self.session.id, self.session.provider, self.state, Billed(
            usage, model, reply.response_id, cause=diagnosis.cause, detail=diagnosis.detail,
            missed_tokens=diagnosis.missed_tokens, provider_reason=reply.miss_reason,
            fingerprint=current.key()))
        self.state.diagnoses.append(diagnosis)
        self.state.previous_fingerprint = current
        self.state.previous_response_id = reply.response_id
        self.state.last_index_by_model[request.model] = len(request.messages) - 1
        self.state.last_call_time = now
        self.state.last_by_model[request.model] = (current, now, usage.prompt_tokens)
        self.state.last_prompt_tokens = usage.prompt_tokens
        self.state.cache_known = usage.cache_known
        self.state.last_cached_tokens = (usage.cache_read + usage.cache_write
                                         if usage.cache_known else usage.prompt_tokens)
        yield event
        yield from self._charges()

    def _charges(self) -> Iterator[CallItem]:
        """What the provider billed outside the call (a cache resource's creation and
        storage: the provider lifecycle, agent/providers/base.py), recorded as a charge of
        the turn - no call, and no part of the call's prompt."""
        provider = self.provider
        charge = (provider.charges(self.session.id)
                  if isinstance(provider, SessionResources) else None)
        if charge is not None:
            usage, model = charge
            yield self.ledger.record(self.session.id, self.session.provider, self.state,
                                     Billed(usage, model, kind=CHARGE_KIND), numbered=False)
