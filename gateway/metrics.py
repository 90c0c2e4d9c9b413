"""`GET /metrics`: the gateway in Prometheus text format (docs/METRICS.md lists it all).

Behind its own key: `gateway.metrics_key` in config.yaml, sent as `Authorization:
Bearer <metrics_key>`. A client key is refused (403: a tenant must not see the others'
spend); without a metrics_key configured the endpoint answers 404 saying how to turn it
on. Keys appear as key ids only: the first 12 hex digits of the key's owner id (as in
the access log); a chat's owner id likewise; `none` for sessions without an owner (the
CLI's, in a shared HERMES_HOME).

Two sources, chosen per series:
- **the store** (fleet totals, true across workers and restarts): tokens by kind, cost,
  calls, keep-warm reads and their cost, cache misses by cause - summed from the usage
  rows, so they equal what the provider billed and what `/usage` shows. Every worker
  reports the same totals: aggregate with `max`, not `sum`, across instances. A scrape
  reads only the rows since the last one (`UsageTotals`: rows older than a minute are
  folded into this process's running sums, newer ones re-read each time, so a row
  committed a little late is still counted); a deleted session's calls stay counted.
- **this process** (a `worker` label, the random worker id): requests by status and
  key, rate-limit refusals, the turn-time histogram, cached agents, chat messages.

The text is written by hand (a dozen families; no client library): bench figures in
docs/METRICS.md.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import UTC, datetime
from typing import Any, Protocol

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from agent.events import Event
from agent.observe import TurnInfo
from agent.usage import is_call
from gateway.access_log import answered
from gateway.auth import KeyRing
from gateway.sessions import Gateway
from memory.db import Row
from memory.store import SessionStore


class PlatformFigures(Protocol):
    """One chat platform's counters (gateway.chat.hub.PlatformStats)."""

    messages: int
    refused: int


class ChatFigures(Protocol):
    """What /metrics reads of the chat hub (gateway.chat.hub.ChatHub)."""

    @property
    def stats(self) -> Mapping[str, PlatformFigures]: ...

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
TURN_BUCKETS = (0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, math.inf)
QUIET_PATHS = ("/metrics", "/health")  # not counted as requests (scrapes and probes)
Labels = tuple[tuple[str, object], ...]
Sample = tuple[Labels, float]


def key_id(owner: str | None) -> str:
    return owner[:12] if owner else "none"


def _escape(value: object) -> str:
    return str(value).replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _labels(pairs: Iterable[tuple[str, object]]) -> str:
    inner = ",".join(f'{name}="{_escape(value)}"' for name, value in pairs)
    return "{" + inner + "}" if inner else ""


def _number(value: float) -> str:
    if value == math.inf:
        return "+Inf"
    if float(value).is_integer():
        return str(int(value))
    return repr(float(value))


class Counter:
    """A thread-safe counter family: label values (a tuple) -> count."""

    def __init__(self, *names: str) -> None:
        self.names = names
        self.values: dict[tuple[str, ...], float] = {}
        self._lock = threading.Lock()

    def inc(self, *labels: str, by: float = 1.0) -> None:
        with self._lock:
            self.values[labels] = self.values.get(labels, 0.0) + by

    def samples(self) -> list[Sample]:
        with self._lock:
            items = sorted(self.values.items())
        return [(tuple(zip(self.names, labels, strict=True)), value) for labels, value in items]


class Histogram:
    """One histogram series: cumulative bucket counts, sum and count."""

    def __init__(self, buckets: tuple[float, ...] = TURN_BUCKETS) -> None:
        self.buckets = buckets
        self.counts = [0] * len(buckets)
        self.sum = 0.0
        self.count = 0
        self._lock = threading.Lock()

    def observe(self, value: float) -> None:
        with self._lock:
            for i, bound in enumerate(self.buckets):
                if value <= bound:
                    self.counts[i] += 1
                    break
            self.sum += value
            self.count += 1

    def lines(self, name: str, labels: Labels) -> list[str]:
        with self._lock:
            counts, total, count = list(self.counts), self.sum, self.count
        out, running = [], 0
        for bound, n in zip(self.buckets, counts, strict=True):
            running += n
            out.append(f"{name}_bucket{_labels((*labels, ('le', _number(bound))))} {running}")
        out.append(f"{name}_sum{_labels(labels)} {_number(total)}")
        out.append(f"{name}_count{_labels(labels)} {count}")
        return out


class Metrics:
    """This process's own series, and the observer that times turns (agent/observe.py:
    the gateway gives it to every agent it builds; sub-agents' turns are not turns)."""

    def __init__(self, worker: str) -> None:
        self.worker = worker
        self.requests = Counter("status", "key")
        self.turns = Histogram()

    def watch(self, events: Iterator[Event], info: TurnInfo) -> Iterator[Event]:
        if info.subagent:
            yield from events
            return
        started = time.perf_counter()
        try:
            yield from events
        finally:
            self.turns.observe(time.perf_counter() - started)


def _family(out: list[str], name: str, kind: str, text: str,
            samples: Iterable[Sample]) -> None:
    out.append(f"# HELP {name} {text}")
    out.append(f"# TYPE {name} {kind}")
    out.extend(f"{name}{_labels(labels)} {_number(value)}" for labels, value in samples)


def exposition(totals: list[Row], metrics: Metrics, *, cached_agents: int,
               chats: Mapping[str, PlatformFigures] | None = None,
               refused: dict[tuple[str, str], int] | None = None) -> str:
    """The whole /metrics text from the store's totals (rows by owner, model, kind and
    miss cause) and this process's figures."""
    out: list[str] = []
    tokens: list[Sample] = []
    cost: list[Sample] = []
    calls: list[Sample] = []
    warm_calls: list[Sample] = []
    warm_cost: list[Sample] = []
    misses: list[Sample] = []
    stored: list[Sample] = []
    for row in totals:
        base: Labels = (("model", row["model"] or "unknown"), ("key", key_id(row["owner"])))
        for kind in ("input", "cache_read", "cache_write", "output"):
            tokens.append((((("kind", kind),) + base), float(row[kind] or 0)))
        cost.append((base, float(row["cost"] or 0.0)))
        if row.get("stored"):
            stored.append((base, float(row["stored"])))
        if is_call(row):  # a charge outside calls (a cache's storage) is no call
            calls.append((base, float(row["calls"] or 0)))
        if row["kind"] == "keep_warm":
            warm_calls.append((base, float(row["calls"] or 0)))
            warm_cost.append((base, float(row["cost"] or 0.0)))
        if row["miss_cause"]:
            misses.append(((("reason", row["miss_cause"]),), float(row["calls"] or 0)))
    _family(out, "hermes_tokens_total", "counter",
            "Tokens billed by the provider, by kind (input = uncached input), model and key "
            "(fleet total, from the store).", _merged(tokens))
    _family(out, "hermes_cost_usd_total", "counter",
            "USD billed, by model and key (fleet total; calls without a known price add 0).",
            _merged(cost))
    _family(out, "hermes_provider_calls_total", "counter",
            "Provider calls, by model and key (fleet total).", _merged(calls))
    _family(out, "hermes_keepwarm_reads_total", "counter",
            "Keep-warm cache reads sent while sessions were idle (fleet total).",
            _merged(warm_calls))
    _family(out, "hermes_keepwarm_cost_usd_total", "counter",
            "USD spent on keep-warm reads (fleet total; part of hermes_cost_usd_total).",
            _merged(warm_cost))
    _family(out, "hermes_cache_storage_token_hours_total", "counter",
            "Token-hours of explicit cache storage billed (Gemini cachedContents; its cost is "
            "part of hermes_cost_usd_total), by model and key (fleet total).", _merged(stored))
    _family(out, "hermes_cache_misses_total", "counter",
            "Provider calls whose prompt cache missed, by diagnosed cause (fleet total).",
            _merged(misses))
    worker = (("worker", metrics.worker),)
    _family(out, "hermes_requests_total", "counter",
            "HTTP requests answered by this worker, by status and key.",
            [(worker + labels, value) for labels, value in metrics.requests.samples()])
    _family(out, "hermes_rate_limited_total", "counter",
            "Requests refused by a per-key rate limit on this worker, by limit and key.",
            [(worker + (("limit", limit), ("key", key_id(owner))), float(n))
             for (owner, limit), n in sorted((refused or {}).items())])
    out.append("# HELP hermes_turn_seconds Seconds per agent turn on this worker.")
    out.append("# TYPE hermes_turn_seconds histogram")
    out.extend(metrics.turns.lines("hermes_turn_seconds", worker))
    _family(out, "hermes_cached_agents", "gauge", "Agents cached in this worker's memory.",
            [(worker, float(cached_agents))])
    platforms = (chats or {}).items()
    _family(out, "hermes_chat_messages_total", "counter",
            "Chat platform messages received by this worker, by platform and outcome.",
            [(worker + (("platform", name), ("outcome", outcome)), float(value))
             for name, stats in sorted(platforms)
             for outcome, value in (("accepted", stats.messages - stats.refused),
                                    ("refused", stats.refused))])
    return "\n".join(out) + "\n"


def _merged(samples: list[Sample]) -> list[Sample]:
    """Samples with equal labels summed (turn calls and keep-warm reads of one model and
    key are one series; two owners may share a 12-digit id only by astronomic chance)."""
    merged: dict[Labels, float] = {}
    for labels, value in samples:
        merged[labels] = merged.get(labels, 0.0) + value
    return sorted(merged.items())


SUMMED = ("input", "cache_write", "cache_read", "output", "cost", "calls", "stored")
GROUP = ("owner", "model", "kind", "miss_cause")
SETTLE_S = 60.0  # rows older than this are folded for good (a commit is never that late)


class UsageTotals:
    """The store's usage sums, read incrementally: `folded` holds every row up to id
    `last`; each `read` folds the rows written more than SETTLE_S ago and adds the
    newer ones, read afresh."""

    def __init__(self, store: SessionStore, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock
        self.last = 0
        self.folded: dict[tuple[Any, ...], Row] = {}
        self._lock = threading.Lock()

    def read(self) -> list[Row]:
        with self._lock:
            cutoff = datetime.fromtimestamp(self.clock() - SETTLE_S, UTC).isoformat(
                timespec="microseconds")
            settled = self.store.usage_settled(self.last, cutoff)
            if settled is not None:
                _add(self.folded, self.store.usage_totals(self.last, settled))
                self.last = settled
            out = {k: dict(v) for k, v in self.folded.items()}
        _add(out, self.store.usage_totals(self.last))
        return list(out.values())


def _add(into: dict[tuple[Any, ...], Row], rows: list[Row]) -> None:
    for row in rows:
        key = tuple(row[name] for name in GROUP)
        slot = into.setdefault(key, {**dict(zip(GROUP, key, strict=True)),
                                     **dict.fromkeys(SUMMED, 0)})
        for name in SUMMED:
            slot[name] += row[name] or 0


class MetricsEndpoint:
    """The `/metrics` handler and the request counter (ASGI middleware) of one app."""

    def __init__(self, gateway: Gateway, keys: KeyRing, metrics_key: str | None,
                 metrics: Metrics) -> None:
        self.gateway = gateway
        self.keys = keys
        # a digest: the comparison takes the same time whatever the key's length
        self._key = None if metrics_key is None else _digest(metrics_key)
        self.metrics = metrics
        self.totals = UsageTotals(gateway.store)

    def allowed(self, authorization: str | None) -> bool:
        scheme, _, token = (authorization or "").partition(" ")
        return (self._key is not None and scheme.lower() == "bearer"
                and hmac.compare_digest(_digest(token.strip()), self._key))

    async def endpoint(self, request: Request) -> Response:
        auth = request.headers.get("authorization")
        if self._key is None:
            return _refused(404, "metrics are off: set `gateway.metrics_key` in config.yaml "
                            "and scrape with `Authorization: Bearer <metrics_key>`", "not_found")
        if not self.allowed(auth):
            if self.keys.owner(auth) is not None:
                return _refused(403, "a client key cannot read /metrics: send the gateway's "
                                "`metrics_key`", "forbidden")
            return _refused(401, "missing or invalid metrics key: send `Authorization: Bearer "
                            "<gateway.metrics_key>`", "invalid_api_key")
        text = await anyio.to_thread.run_sync(self.render, getattr(request.app.state, "chats",
                                                                   None))
        return Response(text, media_type=CONTENT_TYPE)

    def render(self, chats: ChatFigures | None = None) -> str:
        return exposition(self.totals.read(), self.metrics, cached_agents=len(self.gateway.cache),
                          chats=None if chats is None else dict(chats.stats),
                          refused=self.gateway.rates.refused)

    def middleware(self, app: ASGIApp) -> ASGIApp:
        """ASGI middleware counting every answered request (not /metrics or /health)."""
        async def counted(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http" or scope.get("path") in QUIET_PATHS:
                await app(scope, receive, send)
                return
            status = [500]
            try:
                await answered(app, scope, receive, send, status)
            finally:
                auth = dict(scope.get("headers") or []).get(b"authorization", b"")
                owner = self.keys.owner(auth.decode("latin-1")) if auth else None
                self.metrics.requests.inc(str(status[0]), key_id(owner))
        return counted


def _digest(key: str) -> bytes:
    return hashlib.sha256(key.encode("utf-8")).digest()


def _refused(status: int, message: str, code: str) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": "invalid_request_error",
                                   "param": None, "code": code}}, status_code=status)
