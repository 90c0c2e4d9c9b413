"""Gemini's cache model: an explicit cache (`cachedContents`) is a resource with a
lifetime, created from the frozen prefix, referenced by name, billed per token-hour
while it lives; beside it a best-effort implicit cache.

One `GeminiCaches` per adapter (one per session's client): before each request it
decides - with `planner.choose` and the session's pause model - whether the request
uses an explicit cache of the prefix (tools, tool config, system instruction), creating
one only when no live cache of the same prefix exists (`cache_store`); after each reply
it sets the cache's TTL for the coming pause (`planner.best_ttl`: the keep-warm here is
a TTL update, which costs storage, not a read). Storage is billed ahead, up to the
expiry just set, and what an early deletion leaves unused is refunded: the cost shown at
any moment is what the account pays if nothing else happens. A
prefix change (/model, /new, /compress, /personality, a tool-set change) and the end of
the session release the cache: deleted unless another session still uses it, or kept
when `planner.keep_after_exit` says its storage to expiry is cheaper than the
re-creation it saves - and then that storage is billed now, as the cost shown.

Costs reach the session as charges outside the calls (`charges`, the provider
lifecycle of agent/providers/base.py): a creation as written tokens (billed as input),
storage as token-hours - never inside a call's usage, whose prompt is what the window
holds.
Any failure of the cache resource falls back to implicit caching: never a failed turn.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any, Protocol

from agent.messages import Request
from agent.providers.gemini import floor, wire
from agent.providers.gemini import planner as plan
from agent.providers.gemini.cache_store import (
    PROCESS_LEDGER,
    CacheRow,
    Ledger,
    accrue,
    refund_after,
)
from agent.providers.gemini.server_clock import ServerClock
from agent.usage import Usage

log = logging.getLogger(__name__)

# (a session's source, its id) -> its pause model (`Services.pauses`)
PauseFactory = Callable[[str | None, str | None], "plan.Pauses"]
MARGIN = 30.0  # a cache expiring within this many seconds is not used (nor shared)
MIN_SHARERS_RATE = 0.05  # same-prefix session starts per hour assumed with no history
FIXED_TTL = 3600.0  # the "explicit" baseline's TTL: the API's default (1 hour), never extended
POLICIES = ("planner", "implicit", "explicit")


@dataclass(frozen=True)
class CachedPrefix:
    """A `cachedContents` resource as the API reports it."""

    name: str
    model: str
    tokens: int
    expires_at: float  # epoch seconds
    key: str = ""  # the prefix identity it was made for (`prefix_key`)


class CacheResources(Protocol):
    """What the adapter does with `cachedContents` besides `stream` (adapter.py)."""

    def create(self, request: Request, seconds: float) -> CachedPrefix: ...

    def extend(self, name: str, seconds: float) -> CachedPrefix: ...

    def delete(self, name: str) -> None: ...


@dataclass(frozen=True)
class CacheUse:
    """What a request sends: the cache's name and how many wire contents it holds."""

    name: str
    skip: int = 0


def prefix_parts(request: Request) -> dict[str, Any]:
    """The frozen prefix every session of the installation/project shares, as the cache
    holds it (SDK dict form): tools, tool config, the shared system blocks."""
    parts: dict[str, Any] = {}
    system = wire.map_system(request, shared=True)
    if system is not None:
        parts["system_instruction"] = system
    tools = wire.map_tools(request)
    if tools:
        parts["tools"] = tools
    tool_config = wire.map_tool_config(request)
    if tool_config is not None:
        parts["tool_config"] = tool_config
    return parts


def prefix_key(request: Request) -> str:
    """Identity of the frozen prefix: model + its canonical JSON."""
    text = json.dumps([request.model, prefix_parts(request)], sort_keys=True,
                      separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def estimate_tokens(parts: dict[str, Any]) -> int:
    """~4 characters a token (the decision only; a creation reports the exact count)."""
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return len(text) // 4


class GeminiCaches:
    """The explicit caches of the sessions one adapter serves (a gateway lends one
    adapter to many sessions; a sub-agent borrows its parent's): one `SessionCaches`
    per session id, one ledger, one server clock."""

    def __init__(self, resources: CacheResources, server: ServerClock, *,
                 ledger: Ledger | None = None,
                 prices: Callable[[str], plan.Prices | None] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.resources = resources
        self.ledger: Ledger = ledger if ledger is not None else PROCESS_LEDGER
        self.prices = prices or no_prices  # model -> its prices (None: unknown: no plan)
        # a session's pause model, by its source ("cli", "gateway", ...): the agent gives
        # the idle policy's (`AIAgent`, through `Clients`); None: implicit caching only
        self.pauses: PauseFactory | None = None
        self.clock = clock
        self.server = server
        # "planner" (hermes); the bench's baselines: "implicit" (never a resource) and
        # "explicit" (one resource per session, the API's default TTL, deleted at its end)
        self.policy = "planner"
        self.store: Any = None  # memory.store.SessionStore, when the agent offers it
        self.sessions: dict[str, SessionCaches] = {}
        self._lock = threading.Lock()

    def of(self, session_id: str | None) -> SessionCaches:
        with self._lock:
            key = session_id or ""
            found = self.sessions.get(key)
            if found is None:
                found = self.sessions[key] = SessionCaches(self, self._source(session_id),
                                                           session_id)
            return found

    def _source(self, session_id: str | None) -> str | None:
        """Where the session runs ("cli", "gateway", ...; the store's row), which picks
        its pause prior (a gateway session's single request is weak evidence of a person
        coming back, as for the keeper)."""
        if self.store is None or not session_id:
            return None
        row = self.store.get_session(session_id)
        return None if row is None else row.get("source")

    def before(self, request: Request) -> CacheUse | None:
        return self.of(request.session_id).before(request)

    def gone(self, request: Request) -> None:
        """The API no longer has the session's cache: forget it (billed to its expiry)."""
        self.of(request.session_id).gone()

    def after(self, request: Request, usage: Usage) -> None:
        self.of(request.session_id).after(request, usage)

    def charges(self, session_id: str | None) -> tuple[Usage, str] | None:
        """What session `session_id`'s cache billed (creation, storage) since last asked."""
        with self._lock:
            found = self.sessions.get(session_id or "")
        usage = None if found is None else found.take()
        return None if usage is None or found is None else (usage, found.model)

    def settle(self, session_id: str | None,
               successor: str | None = None) -> tuple[Usage, str] | None:
        """Session `session_id` is over here. With a `successor` (/new, compaction's
        child) the successor takes its state over: the cache it holds is kept while the
        successor's prefix is the same (its first request releases it otherwise).
        Without, its cache is released or kept (`SessionCaches.close`). Returns (what
        that bills and was not reported yet, the model it is priced on), or None."""
        with self._lock:
            found = self.sessions.pop(session_id or "", None)
            if found is not None and successor is not None:
                self.sessions[successor] = found
        if found is None:
            return None
        if successor is None:
            found.close()
        usage = found.take()
        return None if usage is None else (usage, found.model)

    def close(self) -> None:
        """Every session ends (the adapter closes): nothing is left to report to."""
        for session_id in list(self.sessions):
            self.settle(session_id)


class SessionCaches:
    """One session's explicit cache: the pause model, the cache it holds, what it owes."""

    def __init__(self, owner: GeminiCaches, source: str | None = None,
                 session_id: str | None = None) -> None:
        self._owner = owner
        self.source = source
        self._resources = owner.resources
        self._server = owner.server
        self.gaps: plan.Pauses | None = (owner.pauses(source, session_id) if owner.pauses
                                         else None)
        self.model = ""  # of the last request
        self.held: CacheRow | None = None
        self.created: list[str] = []  # names this session created (for reports)
        self.last_plan: plan.Plan | None = None
        self._refused: set[str] = set()  # prefix keys the API would not cache
        self._last_end: float | None = None
        self._written = 0  # creation tokens not yet reported
        self._stored = 0.0  # storage token-hours not yet reported
        self._history = 0  # tokens after the prefix in the last request

    @property
    def ledger(self) -> Ledger:
        return self._owner.ledger

    def server_now(self) -> float:
        return self._server.now()

    # ------------------------------------------------------------ requests
    def before(self, request: Request) -> CacheUse | None:
        """The cache this request uses (created or found), or None: implicit only."""
        now = self._owner.clock()
        self.model = request.model
        if (self.gaps is not None and self._last_end is not None and request.messages
                and request.messages[-1].role == "user"):
            self.gaps.observe(now - self._last_end)
        key = prefix_key(request)
        if self.held is not None and (self.held.key != key or not self._alive(self.held)):
            self.release("the prefix changed" if self.held.key != key else "expired")
        prices = self._owner.prices(request.model)
        if key in self._refused or prices is None:
            return None
        if self.held is None:
            self._adopt_or_create(request, key, prices)
        return CacheUse(self.held.name) if self.held is not None else None

    def _alive(self, row: CacheRow) -> bool:
        return not row.deleted and row.expires > self.server_now() + MARGIN

    def _adopt_or_create(self, request: Request, key: str, prices: plan.Prices) -> None:
        found = self.ledger.find(key, self.server_now() + MARGIN)
        if found is not None:
            self.held = replace(found, sessions=found.sessions + 1, uses=found.uses + 1)
            self.ledger.put(self.held)
            return
        parts = prefix_parts(request)
        if self.gaps is None:  # no pause model given: nothing to plan with
            choice = plan.Plan("implicit", why="no pause model")
        else:
            choice = plan.choose(self.gaps, estimate_tokens(parts), self._history,
                                 floor(request.model), prices)
        policy = self._owner.policy
        if policy != "planner":  # the bench's baselines (bench/gemini_cache.py)
            choice = plan.Plan("explicit" if policy == "explicit" else "implicit",
                               FIXED_TTL, why=f"policy {policy}")
        self.last_plan = choice
        if choice.kind != "explicit":
            return
        try:
            made = self._resources.create(request, choice.ttl)
        except Exception as exc:  # noqa: BLE001 - any refusal: implicit caching instead
            log.info("gemini: no explicit cache (%s)", exc)
            self._refused.add(key)
            return
        now = self.server_now()
        self.held = CacheRow(name=made.name, key=key, model=request.model, tokens=made.tokens,
                             created=now, expires=made.expires_at, billed_until=now)
        self.ledger.put(self.held)
        self.created.append(self.held.name)
        self._written += made.tokens
        self._bill(made.expires_at)

    def after(self, request: Request, usage: Usage) -> None:
        """After a reply: set the TTL for the coming pause, bill the storage so far (what
        the session owes waits for `take`)."""
        self._last_end = self._owner.clock()
        held = self.held
        prices = self._owner.prices(request.model)
        if held is not None:
            self._history = max(0, usage.prompt_tokens - held.tokens)
        if (held is not None and prices is not None and self.gaps is not None
                and self._owner.policy == "planner"):
            ttl, _cost = plan.best_ttl(self.gaps, held.tokens, self._history, prices)
            shared = self.ledger.get(held.name) or held
            if shared.expires >= self.server_now() + ttl:  # another session keeps it longer
                return
            try:
                extended = self._resources.extend(held.name, ttl)
            except Exception as exc:  # noqa: BLE001 - the cache is gone: implicit next time
                log.info("gemini: cache %s not extended (%s)", held.name, exc)
                return
            if self.held is not None:
                row = self.ledger.get(held.name) or self.held
                self.held = replace(row, expires=extended.expires_at)
                self.ledger.put(self.held)
                self._bill(extended.expires_at)

    def _bill(self, now: float) -> None:
        """Storage of the held cache up to server time `now` - its expiry: storage is
        billed ahead, to the time the cache would die if nothing else happened, so the
        cost shown never misses a cache left to expire; an early deletion refunds the
        rest (`_delete`) - billed once (`billed_until` is shared by every session using
        the cache)."""
        if self.held is None:
            return
        row = self.ledger.get(self.held.name) or self.held
        row, hours = accrue(row, now)
        self._stored += hours
        self.held = replace(self.held, billed_until=row.billed_until,
                            stored_token_hours=row.stored_token_hours)
        self.ledger.put(row)

    def take(self) -> Usage | None:
        """Creation tokens and storage token-hours not yet reported, as usage of no call."""
        written, stored = self._written, self._stored
        self._written, self._stored = 0, 0.0
        if not written and not stored:
            return None
        return Usage(write_1h=written, stored_token_hours=stored, calls=0)

    # ------------------------------------------------------------ endings
    def gone(self) -> None:
        """The API answered that the held cache does not exist: it expired (or another
        process deleted it); its storage ran to its expiry at most."""
        held, self.held = self.held, None
        if held is None:
            return
        row = self.ledger.get(held.name) or held
        if row.deleted:  # deleted (and billed) by the session that deleted it
            return
        until = min(row.expires, self.server_now())  # expired, or deleted by now at the latest
        row, hours = accrue(row, until)
        row, refund = refund_after(row, until)
        self._stored += hours - refund
        self.ledger.put(replace(row, deleted=True))

    def release(self, why: str) -> None:
        """Stop using the held cache: delete it unless another session holds it."""
        held, self.held = self.held, None
        if held is None:
            return
        row = self.ledger.get(held.name) or held
        row = replace(row, sessions=max(0, row.sessions - 1))
        if row.sessions > 0 and not row.deleted:
            self.ledger.put(row)
            return
        self._delete(row, why)

    def _delete(self, row: CacheRow, why: str) -> None:
        now = self.server_now()
        if row.expires > now:
            try:
                self._resources.delete(row.name)
            except Exception as exc:  # noqa: BLE001 - already gone: it bills nothing more
                log.info("gemini: cache %s not deleted (%s)", row.name, exc)
            now = self.server_now()
        row, hours = accrue(row, now)
        row, refund = refund_after(row, now)  # billed ahead to its expiry: the rest back
        self._stored += hours - refund
        self.ledger.put(replace(row, deleted=True))
        log.info("gemini: cache %s released (%s)", row.name, why)

    def close(self) -> None:
        """The session ends: the held cache is deleted, unless it is shared or a session
        expected back before it expires saves more than its remaining storage - then its
        storage to expiry is billed now."""
        held = self.held
        if held is None:
            return
        prices = self._owner.prices(held.model)
        now = self.server_now()
        row = self.ledger.get(held.name) or held
        if row.sessions > 1 or prices is None:
            self.release("session end")
            return
        age_hours = max((now - row.created) / 3600.0, 1e-9)
        rate = max(MIN_SHARERS_RATE, (row.uses - 1) / age_hours)  # sessions that came back
        # a one-shot session ends with every run, and is resumed in another process
        # (`hermes -q --resume` in a script): its own pause model says how likely it is
        # back before the expiry (a REPL's exit is the person leaving: not counted)
        own = (1.0 - plan.survival(self.gaps, row.expires - now)
               if self.gaps is not None and self.source == "oneshot" else 0.0)
        if plan.keep_after_exit(row.tokens, row.expires - now, prices, rate, own):
            self.held = None
            row, hours = accrue(row, row.expires)  # it lives on: billed to its expiry
            self._stored += hours
            self.ledger.put(replace(row, sessions=0))
            return
        self.release("session end")


def no_prices(model: str) -> plan.Prices | None:
    """Until the agent gives its price function (`GeminiProvider.open`): unknown."""
    return None
