"""Routing gateway requests to cached agents: one AIAgent per (client key, session name).

- Session key = owner id (SHA-256 of the client's key) + the client's session name, so
  names never collide across keys. The stored session id for a name comes from the
  route table (nothing else is in it); the store's `owner` column holds the owner id.
- The config of a session = the server's base config + the owner and its workspace
  (installation settings only). The client's choices (model, system text as the
  ephemeral layer, personality, reasoning) are the session's own (agent/sessions/choices.py),
  stored with it, so a rebuilt agent restores them; a request that names another model
  or system text changes them in place. Absent choices keep the session's current ones,
  so a client may send only its new message.
- Two messages of one session are serialised by an asyncio lock per session key (held
  without a thread while waiting); the turn itself runs in a worker thread so the
  blocking SDK call never stalls the event loop. Different sessions run in parallel.
- After a turn answered by the fallback model the session's agent is evicted, so the
  next message tries the primary model again.
- Shutdown (`begin_shutdown`, then `close`): running and queued turns are cancelled (a
  turn's history stays valid), new ones are refused with ShuttingDown, and `close` waits
  for the worker threads before it closes the agents.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from typing import Any

import anyio

from agent.agent import AIAgent
from agent.cache.idle_policy import ONE_REQUEST_PRIOR
from agent.cache.keeper import CacheKeeper
from agent.cancel import CancelToken
from agent.config import AgentConfig
from agent.events import Done, ErrorEvent, Event
from agent.images import ImageError
from agent.usage import ZERO, Usage
from frontend import commands as shared
from frontend.autonomy.goal import run_all as run_goal
from frontend.factory import make_agent
from frontend.model_switch import destination, resumed_on
from frontend.outcome import TurnOutcome
from frontend.usage_report import build_report
from gateway import commands, stateless
from gateway import images as images_in
from gateway.agent_cache import AgentCache
from gateway.fleet import Fleet, keeper_guard
from gateway.providers import SharedProviders
from gateway.ratelimit import RateLimits
from gateway.routes import Route, RouteTable
from gateway.spend import DailyLimit
from gateway.transcripts import TranscriptIndex
from gateway.turn_lock import gateway_turn
from gateway.workspaces import tenant_workspace
from memory.store import SessionStore

#: `model` values that mean "keep this session's model" (the client does not choose).
MODEL_ALIASES = ("", "hermes", "default")


@dataclass(frozen=True)
class TurnRequest:
    """One message of a client. None = keep the session's current choice."""

    owner: str
    name: str
    text: str
    model: str | None = None
    system: str | None = None
    reasoning_effort: str | None = None  # per message: never part of the agent's signature
    plan: stateless.Plan | None = None  # a stateless client's (gateway/stateless.py)
    images: tuple[tuple[str, bytes | str], ...] = ()  # (name, bytes or URL): gateway/images.py
    api: bool = False  # an HTTP API client's: its requests' `model` may switch the session


@dataclass(frozen=True)
class Started:
    """First item a sink receives: which stored session and model answer."""

    session_id: str
    model: str


@dataclass(frozen=True)
class TurnResult:
    """What the front end returns to the client."""

    session_id: str
    model: str
    answer: str
    usage: Usage
    reason: str
    error: ErrorEvent | None = None
    command: bool = False
    cost: float | None = None
    reasoning: str = ""  # the turn's thinking, for a client that asks (`include_reasoning`)
    reply: shared.Reply | None = None  # a command's reply (its `changed` and `data`)


Sink = Callable[[Any], None]


class ShuttingDown(Exception):
    """The gateway is shutting down: no new turn or session change is started."""


def session_key(owner: str, name: str) -> str:
    """The agent-cache key of a client session (owner ids are fixed-length hex)."""
    return f"{owner}:{name}"


class SessionLocks:
    """One asyncio lock per session key, dropped when nobody holds or waits for it."""

    def __init__(self) -> None:
        self._slots: dict[str, tuple[asyncio.Lock, list[int]]] = {}

    @asynccontextmanager
    async def hold(self, key: str) -> AsyncIterator[None]:
        lock, users = self._slots.setdefault(key, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            async with lock:
                yield
        finally:
            users[0] -= 1
            if users[0] == 0:
                self._slots.pop(key, None)

    def users(self, key: str) -> int:
        """How many coroutines hold or wait for the key's lock."""
        slot = self._slots.get(key)
        return slot[1][0] if slot else 0

    def __len__(self) -> int:
        return len(self._slots)


class Gateway:
    """Sessions of many clients over one AgentCache, one store and one route table."""

    def __init__(self, base: AgentConfig, store: SessionStore, routes: RouteTable, *,  # noqa: PLR0913
                 personalities: dict[str, str] | None = None, max_agents: int = 128,
                 idle_ttl: float = 3600.0, workers: int = 64,
                 daily_usd_per_key: float | None = None,
                 transcripts: TranscriptIndex | None = None,
                 rates: RateLimits | None = None) -> None:
        self.base = replace(base, source="gateway", owner=None)
        self.store = store
        self.routes = routes
        self.transcripts = transcripts  # stateless clients' index (None: never matched)
        self.personalities = dict(personalities or {})
        self.providers = SharedProviders()
        self.cache = AgentCache(self._build, max_size=max_agents, idle_ttl=idle_ttl)
        self.limiter = anyio.CapacityLimiter(workers)
        self.locks = SessionLocks()
        self.daily = DailyLimit(store, daily_usd_per_key)
        self.rates = rates or RateLimits(store)  # per-key requests/tokens per minute
        self.observers: tuple[Any, ...] = ()  # watch every turn of the agents built here (/metrics)
        self.closing = False
        self._tokens: set[CancelToken] = set()  # turns running or queued
        self._threads = 0  # worker threads running gateway work
        self._idle = threading.Condition()
        # one cache keeper for every session (chat platforms included); its thread
        # starts with the first turn (agent/cache/keeper.py)
        # an API session with one request is weak evidence of a return (idle_policy)
        self.keeper = CacheKeeper(autostart=True, first_prior=ONE_REQUEST_PRIOR)
        self.fleet = Fleet(store)  # this worker among others (gateway/fleet.py)
        #: config -> approve callback or None (refuse); set by a front end that can ask a
        #: person (gateway/chat/approvals.py); the HTTP API has none
        self.approver: Callable[[AgentConfig], Callable[[str, str], bool] | None] | None = None

    # -- configs and agents -----------------------------------------------------------
    def config_for(self, owner: str) -> AgentConfig:
        """A session's AgentConfig: the installation's, for this owner and its workspace."""
        return replace(self.base, owner=owner, cwd=tenant_workspace(self.base.home, owner))

    def _build(self, config: AgentConfig, session_id: str | None) -> AIAgent:
        """The cache's factory: resume the stored session with its stored choices (or
        start one). Tool approvals: `self.approver`'s, else none (dangerous commands
        refused unless yolo)."""
        approve = self.approver(config) if self.approver is not None else None
        row = self.store.get_session(session_id) if session_id is not None else None
        if row is not None:  # its own model and provider (/model), where configured here
            config = resumed_on(config, row)
        agent = make_agent(config, self.store, session_id=session_id, approve=approve,
                           lend=self.providers.lend, missing_ok=True)
        agent.observers = self.observers
        return agent

    def _lease(self, route: Route):
        """The session's cached agent (built or resumed as needed), leased."""
        return self.cache.lease(session_key(route.owner, route.name), self.config_for(route.owner),
                                session_id=route.session_id)

    def remember(self, route: Route, agent: AIAgent) -> None:
        """The route follows the agent's stored session (/new, compression's child)."""
        if route.session_id != agent.session_id:
            self.routes.put(replace(route, session_id=agent.session_id))

    @staticmethod
    def choose(agent: AIAgent, request: TurnRequest) -> tuple[str, str] | None:
        """Apply the request's choices to the session in place (through its
        SessionFactory); returns the model and provider to go back to if the turn fails
        (a typo must not leave the session on a model the provider refuses), else None."""
        if request.system is not None and request.system != agent.session.choices.system:
            agent.sessions.set_system(agent.session, request.system)
        model = request.model
        if model in (None, *MODEL_ALIASES) or model == agent.model:
            return None
        previous = agent.model, agent.provider_name
        # a model another configured provider makes moves the session there (the server
        # refused the others before the turn: frontend.model_switch)
        agent.switch_model(model, destination(model, agent.provider_name, agent.config).provider)
        return previous

    # -- turns ------------------------------------------------------------------------
    async def run(self, request: TurnRequest, sink: Sink | None = None,
                  cancel: CancelToken | None = None) -> TurnResult:
        """Run one message of a session to its end (serialised per session). A turn
        cancelled before it started (client gone, shutdown) leaves no trace in the
        history and ends with reason "cancelled"."""
        cancel = cancel or CancelToken()
        with self._idle:
            if self.closing:
                raise ShuttingDown()
            self._tokens.add(cancel)
        try:
            async with self.locks.hold(session_key(request.owner, request.name)):
                with anyio.CancelScope(shield=True):  # the lock is held until the thread ends
                    result: TurnResult = await anyio.to_thread.run_sync(
                        self._tracked, self._run_sync, request, sink or _ignore, cancel,
                        limiter=self.limiter)
        finally:
            with self._idle:
                self._tokens.discard(cancel)
        return result

    def _tracked(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run `fn` in this worker thread, counted so that `close` can wait for it."""
        with self._idle:
            if self.closing:
                raise ShuttingDown()
            self._threads += 1
        try:
            return fn(*args)
        finally:
            with self._idle:
                self._threads -= 1
                self._idle.notify_all()

    def _run_sync(self, request: TurnRequest, sink: Sink, cancel: CancelToken) -> TurnResult:
        if cancel.cancelled:  # given up while it waited for the session or a worker
            return TurnResult("", request.model or self.base.provider.model, "", ZERO,
                              "cancelled")
        route = self.routes.get(request.owner, request.name)
        if request.plan is not None:
            route, plan = stateless.prepare(self.store, self.routes, self.transcripts, route,
                                            request.plan)
            request = replace(request, plan=plan)
        goal = None  # /goal: its turns run as this request's
        if commands.is_command(request.text):
            result = self.command(route, request.text, api=request.api)
            again = result.reply.data if result.reply and result.reply.changed in ("retry", "custom") \
                else None  # /retry's last message, a custom command's text: a new turn
            goal = result.reply.data if result.reply and result.reply.changed == "goal" else None
            if again is None and goal is None:
                sink(Started(result.session_id, result.model))
                sink(Done(result.answer))
                return self._recorded(route, request, result)
            if again is not None:  # /retry: the last message (images re-attached unchanged)
                request = replace(request, text=again, images=tuple(
                    (image.name, image.raw()) for image in getattr(again, "images", ())))
        key = session_key(route.owner, route.name)
        with gateway_turn(self.store, self.cache, key, route.session_id), \
                self._lease(route) as agent:
            self.remember(route, agent)
            previous = self.choose(agent, request)
            if request.plan is not None:
                stateless.seed(agent.session.conversation.append, request.plan)
            sink(Started(agent.session_id, agent.model))
            self.keeper.turn_started(key, agent.caller, alive=self.cache.holding(key, agent),
                                     guard=keeper_guard(self.store, agent))
            try:
                events = (run_goal(agent, goal, cancel) if goal is not None  # /goal's turns
                          else _turn_events(agent, request, cancel))
                result = _collect(agent, events, sink)
            finally:
                self.keeper.turn_ended(key)
            fallback = agent.state.used_fallback
            if result.error is not None and previous is not None:
                agent.switch_model(*previous)
            self.remember(route, agent)
        if fallback:
            self.cache.evict(key)
        return self._recorded(route, request, result)

    def _recorded(self, route: Route, request: TurnRequest, result: TurnResult) -> TurnResult:
        """A stateless client's answered turn indexes the transcript it now holds (not a
        command that came with history the session has not got: it seeds nothing)."""
        if request.plan is not None and result.error is None and result.reason != "cancelled" \
                and not (result.command and request.plan.seed):
            stateless.record(self.transcripts, route, result.session_id, request.plan,
                             request.text, result.answer)
        return result

    def command(self, route: Route, text: str, *, api: bool = False) -> TurnResult:
        """Run a slash command on the session's cached agent (in place; the one shared
        implementation, frontend.commands); the route follows the session. `api`: an
        HTTP API client's (its answer speaks of the requests' `model`)."""
        key = session_key(route.owner, route.name)
        with gateway_turn(self.store, self.cache, key, route.session_id), \
                self._lease(route) as agent:
            reply = commands.answer(shared.Handle(agent, self.personalities), text, api=api)
            self.remember(route, agent)
            return TurnResult(agent.session_id, agent.model, reply.text, ZERO, "command",
                              command=True, reply=reply)

    async def call(self, owner: str, name: str, fn: Callable[[], Any]) -> Any:
        """Run `fn` in a worker thread under the session's lock (reset and the like)."""
        if self.closing:
            raise ShuttingDown()
        async with self.locks.hold(session_key(owner, name)):
            with anyio.CancelScope(shield=True):
                return await anyio.to_thread.run_sync(self._tracked, fn, limiter=self.limiter)

    # -- session endpoints --------------------------------------------------------------
    def find_session(self, owner: str, ident: str) -> tuple[str | None, str | None]:
        """(client session name, stored session id) of `owner` for a session name or an
        exact stored id; (None, None) when `owner` has no such session."""
        route = self.routes.get(owner, ident)
        if route.session_id is not None:
            return route.name, route.session_id
        row = self.store.get_session(ident)
        if row is not None and row.get("owner") == owner:
            return None, row["id"]
        return None, None

    def usage_report(self, owner: str, ident: str) -> dict[str, Any] | None:
        """The /usage report of one of `owner`'s sessions as JSON, None if not theirs."""
        name, stored = self.find_session(owner, ident)
        if stored is None:
            return None
        report = build_report(self.store, stored, prices=self.base.prices,
                              context_windows=self.base.context_windows)
        return {"session_name": name, "session_id": stored, **report.as_dict(),
                "budget": self.daily.status(owner)}

    def reset(self, owner: str, name: str) -> dict[str, Any] | None:
        """Start a new stored session under the same name (like /new); None if unknown."""
        route = self.routes.get(owner, name)
        if route.session_id is None:
            return None
        result = self.command(route, "/new")
        return {"session_name": name, "session_id": result.session_id,
                "previous_session_id": route.session_id, "message": result.answer}

    def begin_shutdown(self) -> None:
        """Refuse new work and cancel every running or queued turn (non-blocking)."""
        with self._idle:
            self.closing = True
            tokens = list(self._tokens)
        for token in tokens:
            token.cancel()

    def close(self, timeout: float = 10.0) -> None:
        """Stop the turns (`begin_shutdown`), wait up to `timeout` s for the worker
        threads, then close every cached agent and the shared connection pools (the
        store and the routes are closed by their owner, after this)."""
        self.begin_shutdown()
        self.keeper.stop()
        with self._idle:
            self._idle.wait_for(lambda: self._threads == 0, timeout)
        self.cache.close()
        self.providers.close()


def _ignore(_item: object) -> None:
    return None


def _turn_events(agent: AIAgent, request: TurnRequest, cancel: CancelToken):
    """The turn's events; an image that cannot be attached (no image, no vision, an http
    URL the web policy refused or could not fetch) ends it before any request, reason
    "image"."""
    policy = agent.config.web.policy  # the installation's: the same for every tenant
    try:
        images = tuple(agent.attach_image(images_in.load(source, policy), name).image
                       for name, source in request.images)
    except ImageError as exc:
        yield ErrorEvent(exc.message, exc.hint)
        yield Done("", "image")
        return
    yield from agent.run_turn(request.text, cancel, reasoning_effort=request.reasoning_effort,
                              images=images)


def _collect(agent: AIAgent, events, sink: Sink) -> TurnResult:
    """Run the turn's events into a result (frontend.outcome judges success the same way
    for every front end: an ErrorEvent is the turn's error only when the turn ended in
    error)."""
    outcome = TurnOutcome()
    for event in events:
        sink(event)
        outcome.feed(event)
    return TurnResult(agent.session_id, agent.model, outcome.answer, outcome.usage,
                      outcome.reason or "error", outcome.error, cost=outcome.total_cost,
                      reasoning=outcome.thinking)


__all__ = ["Event", "Gateway", "ShuttingDown", "Started", "TurnRequest", "TurnResult",
           "session_key"]
