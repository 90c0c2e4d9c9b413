"""The cache keeper: carries idle sessions' prompt caches across the user's pauses.

One keeper serves many sessions (the REPL registers its one; the gateway every cached
agent, so chat platforms get it without code of their own). Front ends tell it when a
turn starts and ends; in between the session is idle and the keeper decides, with
agent.cache.idle_policy, whether a keep-warm read (agent/modelcall/keepwarm.py) shortly before the
entry expires is expected to pay, and which TTL each call's breakpoints get, for the
tokens that call writes (unless the user set `cache.ttl`/`cache.prefix_ttl`: explicit
wins).

Guarantees:
- never sent while a turn runs: a session is "busy" from `turn_started` to
  `turn_ended`, and `turn_started` first cancels an in-flight keep-warm and waits for
  it to end (the turn's request always goes after it, never beside it);
- bounded: reads stop when the policy stops expecting them to pay, and always at
  `cache.keep_warm_max_idle`; a session whose agent the front end dropped (`alive`
  False: the gateway's cache evicted it) is forgotten at the next pass (`prune`) - a
  watch holds the agent's caller, so keeping it would keep every agent ever served;
- deterministic for tests: `run_due()` does what is due at the keeper's clock now
  (the background thread started by `start()` only calls it).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field

from agent.cache.idle_policy import GapModel, Rates, choose_ttl, next_step
from agent.cancel import CancelToken
from agent.cost import pricing
from agent.messages import Request
from agent.modelcall.calls import ModelCaller
from agent.modelcall.keepwarm import KeepWarmResult, keep_warm
from agent.providers import models

WAIT_FOR_INFLIGHT = 30.0  # seconds a turn waits at most for a cancelled keep-warm to end
IDLE_POLL = 60.0  # the background thread wakes at least this often


@dataclass
class Watch:
    """One session under the keeper's watch."""

    key: str
    caller: ModelCaller
    gaps: GapModel = field(default_factory=GapModel)
    busy: bool = False
    idle_since: float | None = None
    stopped: str = ""
    reads: int = 0
    turn_growth: int = 0
    turns: int = 0  # turns ended, and the model calls they made (share ending a turn)
    calls: int = 0
    calls_at_start: int = 0
    prompt_at_end: int = 0
    alive: Callable[[], bool] | None = None  # False once the front end dropped the agent
    # held around each read; yields "" or why not to send it (another gateway worker
    # serves the session now: gateway/fleet.py keeper_guard)
    guard: Callable[[], AbstractContextManager[str]] | None = None
    inflight: CancelToken | None = None
    done: threading.Event = field(default_factory=threading.Event)
    plan: tuple[float, float] | None = None  # (idle_since, when) of the read planned

    def __post_init__(self) -> None:
        self.done.set()


@dataclass(frozen=True)
class KeeperEvent:
    """What the keeper did (for logs and tests): a read, or why it stopped."""

    key: str
    action: str  # "read" | "stop"
    detail: str = ""
    result: KeepWarmResult | None = None


def rates_for(caller: ModelCaller) -> Rates:
    """The policy's price multipliers for the caller's model (defaults when unpriced)."""
    price = pricing.prices(caller.model, caller.config.prices)
    if price is None or not price.input:
        return Rates()
    base = price.input
    generates = caller.cache_model().refresh_generates  # a prewarm generates no token
    return Rates(read=price.cache_read / base, write_5m=price.cache_write_5m / base,
                 write_1h=price.cache_write_1h / base,
                 output=price.output / base if generates else 0.0)


def _seconds(caller: ModelCaller, sent: Request) -> float:
    """The lifetime of the entry the request wrote last (its last mark's), on the
    caller's cache model."""
    ttl = sent.breakpoints[-1].ttl if sent.breakpoints else caller.config.cache_ttl
    return float(caller.cache_model().lifetime(ttl))


def ttl_pair(caller: ModelCaller) -> dict[str, float]:
    """The short and long lifetimes the caller's "5m"/"1h" choice means on its cache."""
    cache = caller.cache_model()
    return {"short": cache.lifetime("5m"), "long": cache.lifetime("1h")}


def adaptive(caller: ModelCaller) -> bool:
    """Keep-warm and adaptive TTLs apply: `cache.keep_warm: auto` and the cache model
    keeps its entries warm by a replayed read (`CacheModel.keep_warm` "replay": marks);
    not a provider's own cache (automatic) nor one its adapter keeps (a resource)."""
    config = caller.config
    return getattr(config, "keep_warm", "auto") == "auto" and \
        caller.cache_model().keep_warm == "replay"


class CacheKeeper:
    """Keeps idle sessions' caches warm (see module docstring)."""

    def __init__(self, clock: Callable[[], float] = time.time,
                 on_event: Callable[[KeeperEvent], None] | None = None, *,
                 autostart: bool = False,
                 first_prior: tuple[tuple[float, float], ...] | None = None) -> None:
        self.clock = clock
        self.first_prior = first_prior  # idle_policy.GapModel.first of every new session
        self.autostart = autostart  # start the thread with the first turn
        self.on_event = on_event
        self._watches: dict[str, Watch] = {}
        self._lock = threading.RLock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- front-end hooks ---------------------------------------------------------------
    def turn_started(self, key: str, caller: ModelCaller, *,
                     alive: Callable[[], bool] | None = None,
                     guard: Callable[[], AbstractContextManager[str]] | None = None) -> None:
        """A turn begins: end any keep-warm in flight, learn the gap, pick the TTL.
        `alive` tells whether the front end still holds the agent (the gateway's cache
        may close it; then the keeper forgets the session)."""
        with self._lock:
            watch = self._watches.get(key)
            if watch is None or watch.caller is not caller:
                if watch is not None and watch.inflight is not None:
                    watch.inflight.cancel()
                gaps = (watch.gaps if watch is not None  # the session's history
                        else GapModel(first=self.first_prior))
                old = watch
                watch = self._watches[key] = Watch(key, caller, gaps=gaps)
                if old is not None:
                    watch.done = old.done
            watch.alive, watch.guard = alive, guard
            watch.busy = True
            if self.autostart and self._thread is None and not self._stop.is_set():
                self.start()
            if watch.inflight is not None:
                watch.inflight.cancel()
            done = watch.done
        done.wait(WAIT_FOR_INFLIGHT)
        with self._lock:
            if watch.idle_since is not None:
                watch.gaps.observe(self.clock() - watch.idle_since)
            watch.idle_since = None
            watch.calls_at_start = caller.state.calls_made
            caller.ttl_override, caller.ttl_policy = None, None
            if adaptive(caller) and not getattr(caller.config, "ttl_explicit", False):
                caller.ttl_policy = self._policy(watch, caller)

    def _policy(self, watch: Watch, caller: ModelCaller) -> Callable[[int], str]:
        """The lifetime of each call of the turn, given the tokens that call writes: a
        1h write pays only if it ends the turn (the session's share of calls that did)
        and the pause after it outlives 5 minutes (idle_policy.choose_ttl)."""
        gaps, rates, pair = watch.gaps, rates_for(caller), ttl_pair(caller)
        max_idle = self._max_idle(caller)
        ends_turn = (watch.turns + 1) / (watch.calls + 2)  # one turn in two calls before any

        def choose(written: int) -> str:
            prompt = max(caller.state.last_prompt_tokens, caller.prefix_tokens) + written
            return choose_ttl(gaps, max(1, prompt), max(1, written), rates,
                              max_idle=max_idle, ends_turn=ends_turn, **pair)
        return choose

    def turn_ended(self, key: str) -> None:
        """The turn is over: the session is idle from now."""
        with self._lock:
            watch = self._watches.get(key)
            if watch is None:
                return
            prompt = watch.caller.state.last_prompt_tokens
            watch.turn_growth = max(0, prompt - watch.prompt_at_end)
            watch.prompt_at_end = prompt
            watch.turns += 1
            watch.calls += max(1, watch.caller.state.calls_made - watch.calls_at_start)
            watch.busy, watch.idle_since, watch.stopped, watch.reads = False, self.clock(), "", 0
        self._wake.set()

    def forget(self, key: str) -> None:
        """Stop watching a session (closed, evicted, /new)."""
        with self._lock:
            watch = self._watches.pop(key, None)
            if watch is not None and watch.inflight is not None:
                watch.inflight.cancel()

    def prune(self) -> int:
        """Forget the idle sessions whose agent is gone (see the module docstring);
        returns how many. Their learned gaps go too: a rebuilt agent starts afresh."""
        with self._lock:
            gone = [key for key, watch in self._watches.items()
                    if not watch.busy and watch.inflight is None and watch.alive is not None
                    and not watch.alive()]
            for key in gone:
                del self._watches[key]
        return len(gone)

    def __len__(self) -> int:
        with self._lock:
            return len(self._watches)

    def watching(self, key: str) -> Watch | None:
        with self._lock:
            return self._watches.get(key)

    # -- scheduling ----------------------------------------------------------------------
    def _max_idle(self, caller: ModelCaller) -> float:
        return float(getattr(caller.config, "keep_warm_max_idle", 3 * 3600.0))

    def _expiry(self, watch: Watch) -> float:
        """When the last request's final cache entry expires (keeper clock)."""
        sent = watch.caller.last_sent
        if sent is None or not sent[0].breakpoints:
            return float("-inf")
        return sent[1] + _seconds(watch.caller, sent[0])

    def _decide(self, watch: Watch, now: float) -> tuple[str, float]:
        """("read", when) / ("stop", 0) / ("wait", 0) for an idle watch."""
        caller = watch.caller
        if watch.alive is not None and not watch.alive():
            watch.stopped = "the session's agent was closed"
            return "stop", 0.0
        sent = caller.last_sent
        if not adaptive(caller) or sent is None or sent[0].session_id != caller.session.id:
            return "stop", 0.0  # nothing sent yet, or the session changed (/new, /resume)
        minimum, prompt = models.min_cache_tokens(caller.model), caller.state.last_prompt_tokens
        if prompt < minimum and not caller.state.last_cached_tokens:
            # the provider cached none of it: each read would pay the whole prompt, read 0
            watch.stopped = (f"the prompt (~{prompt:,} tokens) is below {caller.model}'s minimum "
                             f"cacheable size ({minimum:,}): nothing is cached to keep warm")
            return "stop", 0.0
        assert watch.idle_since is not None
        start, expires = watch.idle_since, self._expiry(watch)
        if expires <= now:
            return "stop", 0.0
        ttl = _seconds(caller, sent[0])
        step = next_step(watch.gaps, prefix=max(1, caller.state.last_prompt_tokens), ttl=ttl,
                         elapsed=now - start, expires=expires - start, rates=rates_for(caller),
                         max_idle=self._max_idle(caller))
        if step.action != "read":
            watch.stopped = step.why
            return "stop", 0.0
        return "read", start + step.at

    def _planned(self, watch: Watch, now: float) -> tuple[str, float]:
        """`_decide`, but a read planned in this idle spell is taken as is until it is
        due (then decided afresh). The policy is not re-run for every idle session on
        every wake-up: with 100 idle sessions that was ~20 ms of CPU per gateway turn."""
        plan = watch.plan
        if plan is not None and plan[0] == watch.idle_since and now < plan[1]:
            return "read", plan[1]
        action, when = self._decide(watch, now)
        watch.plan = (watch.idle_since, when) if action == "read" and watch.idle_since \
            is not None else None
        return action, when

    def next_due(self) -> float | None:
        """The keeper-clock time of the next planned read, if any."""
        now = self.clock()
        with self._lock:
            times = [self._planned(w, now) for w in self._watches.values()
                     if not w.busy and w.idle_since is not None and not w.stopped]
        due = [t for action, t in times if action == "read"]
        return min(due) if due else None

    def run_due(self) -> list[KeeperEvent]:
        """Send every keep-warm read due now (one at a time); return what was done."""
        self.prune()
        events: list[KeeperEvent] = []
        done: set[str] = set()  # at most one read per session per pass
        while True:
            with self._lock:
                now, job = self.clock(), None
                for watch in self._watches.values():
                    if watch.busy or watch.idle_since is None or watch.stopped or watch.key in done:
                        continue
                    action, when = self._planned(watch, now)
                    if action == "stop":
                        watch.stopped = watch.stopped or "the entry expired or keep-warm is off"
                        events.append(KeeperEvent(watch.key, "stop", watch.stopped))
                    elif when <= now:
                        job = watch
                        break
                if job is None:
                    break
                cancel = job.inflight = CancelToken()
                done.add(job.key)
                job.done.clear()
            try:
                with job.guard() if job.guard is not None else contextlib.nullcontext("") as why:
                    result = None if why else keep_warm(job.caller, cancel)
            finally:
                with self._lock:
                    job.inflight = None
                    job.done.set()
            if result is None:  # not ours to keep warm any more: stop watching it
                self.forget(job.key)
                events.append(KeeperEvent(job.key, "stop", why))
                continue
            with self._lock:
                job.reads += 1
                if not result.ok:
                    job.stopped = f"keep-warm failed: {result.error}"
            events.append(KeeperEvent(job.key, "read", result.error, result))
        for event in events:
            if self.on_event is not None:
                self.on_event(event)
        return events

    # -- background thread -------------------------------------------------------------
    def start(self) -> CacheKeeper:
        """Run `run_due` in a daemon thread until `stop()` (real time)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="cache-keeper", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        with self._lock:
            for watch in self._watches.values():
                if watch.inflight is not None:
                    watch.inflight.cancel()
        if self._thread is not None:
            self._thread.join(timeout=WAIT_FOR_INFLIGHT)
            self._thread = None

    def _loop(self) -> None:
        while not self._stop.is_set():
            with contextlib.suppress(Exception):  # the keeper outlives one bad session
                self.run_due()
            due = self.next_due()
            wait = IDLE_POLL if due is None else min(IDLE_POLL, max(0.05, due - self.clock()))
            self._wake.wait(wait)
            self._wake.clear()
