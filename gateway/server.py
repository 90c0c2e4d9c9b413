"""The HTTP gateway: an OpenAI-compatible API over cached per-session agents.

    POST /v1/chat/completions        one new message of a session (stream or not)
    GET  /v1/models                  the models a client may name
    POST /v1/sessions/{id}/reset     start a new stored session under the same name
    GET  /v1/sessions/{id}/usage     the session's usage report (404: not yours)
    GET  /health                     liveness (details - worker, chats - with a key)
    GET  /metrics                    Prometheus text, with `gateway.metrics_key` (metrics.py)

A session is named by the `X-Hermes-Session-Id` header (else the `user` field; else it
is found by the conversation the request carries, gateway/stateless.py, and its name is
returned in that header). Every response of a turn carries
`X-Hermes-Session-Id` and `X-Hermes-Stored-Session-Id`.

Errors are OpenAI-style JSON: 400 for a malformed request, 401 without a valid key, 404,
413 for a body over MAX_BODY, 502 when the provider failed (with its message), 503 while
shutting down. A client's mistake is answered, never logged with a traceback; only a
server bug (500) is logged, and its details stay in the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import sys
import traceback
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route as Path

from agent.cancel import CancelToken
from agent.errors import HermesError
from agent.events import Done, TextDelta, ThinkingDelta
from agent.providers import registry
from frontend.bridge import END, EventBridge
from frontend.model_switch import destination
from frontend.outcome import TextFold
from gateway import access_log, stateless, wire
from gateway.auth import KeyRing
from gateway.commands import free
from gateway.fleet import WorkerHeader
from gateway.listener import GatewayServer
from gateway.metrics import Metrics, MetricsEndpoint
from gateway.ratelimit import admission, command_admission
from gateway.sessions import Gateway, ShuttingDown, Started, TurnRequest, TurnResult

MAX_BODY = 16 * 1024 * 1024  # images come inline as data: URLs
MAX_HEADERS = 32 * 1024  # bytes of request headers (names + values); more -> 431
# seconds a stream waits for its first text so that an early error is still a status;
# longer than the default retries of an unreachable provider (3 waits of <= 1+2+4 s)
FIRST_EVENT_WAIT = 10.0
SWEEP_EVERY = 60.0  # seconds between idle-agent sweeps (at most; half the TTL if shorter)
SHUTDOWN_MESSAGE = ("the gateway is shutting down: the turn was stopped (the session's "
                    "history is kept; send the message again once it is back)")


class _TooLarge(Exception):
    pass


def _error(status: int, message: str, etype: str, code: str | None = None,
           headers: Mapping[str, str] | None = None) -> JSONResponse:
    return JSONResponse(wire.error_body(message, etype, code), status_code=status, headers=headers)


def _unauthorized() -> JSONResponse:
    return _error(401, "Missing or invalid API key: send `Authorization: Bearer <key>` with a "
                  "key configured on the gateway.", "invalid_request_error", "invalid_api_key",
                  {"www-authenticate": "Bearer"})


async def _read_body(request: Request) -> bytes:
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > MAX_BODY:
        raise _TooLarge()
    data = bytearray()
    async for piece in request.stream():
        data += piece
        if len(data) > MAX_BODY:
            raise _TooLarge()
    return bytes(data)


def _session_headers(name: str, stored: str | None) -> dict[str, str]:
    headers = {"x-hermes-session-id": name}
    if stored:
        headers["x-hermes-stored-session-id"] = stored
    return headers


def _internal(exc: BaseException) -> JSONResponse:
    if isinstance(exc, ShuttingDown):
        return _unavailable()
    if isinstance(exc, HermesError):
        return _error(500, exc.message + (f" ({exc.hint})" if exc.hint else ""), "server_error")
    return _error(500, _log_bug(exc), "server_error")


def _log_bug(exc: BaseException) -> str:
    """Log a server bug with its traceback; the message for the client (no details)."""
    ref = secrets.token_hex(4)
    sys.stderr.write(f"hermes gateway: internal error {ref}:\n")
    traceback.print_exception(exc, file=sys.stderr)
    return f"internal error {ref} (details in the gateway's log)"


def _unavailable() -> JSONResponse:
    return _error(503, SHUTDOWN_MESSAGE, "server_error", "shutting_down")


def _not_cancelled(result: TurnResult, headers: dict[str, str]) -> JSONResponse | None:
    """The error response for a failed or cancelled turn, else None."""
    if result.reason == "image" and result.error is not None:  # the client's to fix
        return _error(400, result.error.message, "invalid_request_error", "invalid_image", headers)
    if result.error is not None:
        return _error(502, result.error.message, "provider_error", "upstream_error", headers)
    if result.reason == "cancelled":
        return _error(503, SHUTDOWN_MESSAGE, "server_error", "shutting_down", headers)
    return None


class Api:
    """The request handlers, bound to one Gateway and one KeyRing."""

    def __init__(self, gateway: Gateway, keys: KeyRing) -> None:
        self.gateway = gateway
        self.keys = keys
        self._tasks: set[asyncio.Task[Any]] = set()
        base = gateway.base.provider
        ids = ["hermes", base.model]
        for settings in (base, *gateway.base.providers):  # each provider it has a key for
            ids += [model_id for model_id, _ in registry.spec_for(settings.provider).models]
        self.model_ids = list(dict.fromkeys(ids))

    async def health(self, request: Request) -> Response:
        """Liveness for anyone; which worker and the chats' state only with a key."""
        auth = request.headers.get("authorization")
        ops = request.app.state.metrics
        if self.keys.owner(auth) is None and not ops.allowed(auth):
            return JSONResponse({"status": "ok"})
        chats = getattr(request.app.state, "chats", None)  # gateway/chat/boot.py attach
        return JSONResponse({"status": "ok", "worker": self.gateway.fleet.worker_id,
                             **(chats.status() if chats is not None else {})})

    async def list_models(self, request: Request) -> Response:
        if self.keys.owner(request.headers.get("authorization")) is None:
            return _unauthorized()
        return JSONResponse({"object": "list", "data": [
            {"id": m, "object": "model", "created": 0, "owned_by": "hermes"}
            for m in self.model_ids]})

    async def usage(self, request: Request) -> Response:
        owner = self.keys.owner(request.headers.get("authorization"))
        if owner is None:
            return _unauthorized()
        ident = request.path_params["session"]
        if self.gateway.closing:
            return _unavailable()
        try:
            report = await anyio.to_thread.run_sync(self.gateway.usage_report, owner, ident)
        except Exception as exc:  # noqa: BLE001 - reported to the client as a 500
            return _internal(exc)
        if report is None:
            return _error(404, f"no session {ident!r}", "invalid_request_error", "not_found")
        return JSONResponse(report)

    async def reset(self, request: Request) -> Response:
        owner = self.keys.owner(request.headers.get("authorization"))
        if owner is None:
            return _unauthorized()
        name = request.path_params["session"]
        try:
            result = await self.gateway.call(owner, name, lambda: self.gateway.reset(owner, name))
        except Exception as exc:  # noqa: BLE001 - reported to the client as a 500/503
            return _internal(exc)
        if result is None:
            return _error(404, f"no session {name!r}", "invalid_request_error", "not_found")
        return JSONResponse(result)

    async def chat(self, request: Request) -> Response:
        owner = self.keys.owner(request.headers.get("authorization"))
        if owner is None:
            return _unauthorized()
        try:
            chat = wire.parse_chat(wire.parse_json(await _read_body(request)))
            name = wire.session_name(request.headers.get("x-hermes-session-id"), chat.user)
        except _TooLarge:
            return _error(413, f"the request body exceeds {MAX_BODY:,} bytes",
                          "invalid_request_error", "request_too_large")
        except ClientDisconnect:  # gone before its body arrived: nobody reads the answer
            return Response(status_code=400)
        except wire.BadRequest as exc:
            return JSONResponse(wire.error_body(exc.message, "invalid_request_error", None,
                                                exc.param), status_code=400)
        base = self.gateway.base
        refused = chat.model and destination(chat.model, base.provider.provider, base).refusal
        if refused:
            return JSONResponse(wire.error_body(refused, "invalid_request_error", None, "model"),
                                status_code=400)
        plan = None  # no session named: found by the conversation it carries
        if name is None:
            name, plan = await anyio.to_thread.run_sync(
                stateless.plan, self.gateway.transcripts, owner, chat.history)
        assert name is not None  # named by the client, or found by stateless.plan
        logged = access_log.note(request.scope, session=name)
        over = None  # the daily spend, then the rate limits; a built-in command: its request rate
        if not free(chat.text) or self.gateway.rates.any:
            over = await anyio.to_thread.run_sync(
                command_admission if free(chat.text) else admission, self.gateway, owner)
        if over is not None:
            return _error(429, over.message, "rate_limit_error", over.code,
                          {"retry-after": str(over.retry_after)})
        turn = TurnRequest(owner, name, chat.text, chat.model, chat.system, chat.reasoning_effort,
                           plan, tuple((f"image {n + 1}", url) for n, url in enumerate(chat.images)),
                           api=True)
        if chat.stream:
            return await self._stream(turn, chat, logged)
        try:
            result = logged["result"] = await self.gateway.run(turn)
        except Exception as exc:  # noqa: BLE001 - reported to the client as a 500
            return _internal(exc)
        headers = _session_headers(name, result.session_id)
        failed = _not_cancelled(result, headers)
        if failed is not None:
            return failed
        cid = wire.new_completion_id()
        thinking = result.reasoning if chat.include_reasoning else None
        return JSONResponse(wire.completion(cid, result.model, result.answer, result.usage,
                                            reasoning=thinking), headers=headers)

    # -- streaming ---------------------------------------------------------------------
    async def _stream(self, turn: TurnRequest, chat: wire.ChatRequest,
                      logged: dict[str, Any]) -> Response:
        bridge = EventBridge()
        queue = bridge.queue
        cancel = CancelToken()
        task = logged["task"] = bridge.start(self.gateway.run(turn, bridge.sink, cancel))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        try:
            early = await _first_events(queue)
        except BaseException:
            cancel.cancel()  # the request itself was cancelled: so is its turn
            raise
        started = next((i for i in early if isinstance(i, Started)), None)
        texted = any(isinstance(i, TextDelta) for i in early)
        ended = any(i is END or isinstance(i, Done) for i in early)
        if not texted and ended:
            try:
                result: TurnResult = await task
            except Exception as exc:  # noqa: BLE001 - reported to the client as a 500
                return _internal(exc)
            failed = _not_cancelled(result, _session_headers(turn.name, result.session_id))
            if failed is not None:
                return failed
        model = started.model if started else (turn.model or self.gateway.base.provider.model)
        body = _sse(wire.new_completion_id(), model, early, queue, task, cancel,
                    chat.include_usage, chat.include_reasoning)
        return StreamingResponse(body, media_type="text/event-stream",
                                 headers={"cache-control": "no-cache", **_session_headers(
                                     turn.name, started.session_id if started else None)})


async def _first_events(queue: asyncio.Queue[Any]) -> list[object]:
    """Items up to the first text, the turn's end or FIRST_EVENT_WAIT s, so that an error
    before any text can still be a 502 status instead of an in-stream error. (Not up to
    an ErrorEvent: a failed automatic compression reports one, and the turn goes on.)"""
    items: list[object] = []
    deadline = asyncio.get_running_loop().time() + FIRST_EVENT_WAIT
    while True:
        remaining = deadline - asyncio.get_running_loop().time()
        if remaining <= 0:
            return items
        try:
            item = await asyncio.wait_for(queue.get(), remaining)
        except TimeoutError:
            return items
        items.append(item)
        if item is END or isinstance(item, TextDelta | Done):
            return items


async def _sse(cid: str, model: str, early: list[object], queue: asyncio.Queue[Any],  # noqa: PLR0913
               task: asyncio.Task[Any], cancel: CancelToken, include_usage: bool,
               include_reasoning: bool = False) -> AsyncIterator[bytes]:
    """chat.completion.chunk events, a finish chunk, the usage chunk, then [DONE]."""
    finished = False
    try:
        yield wire.chunk(cid, model, {"role": "assistant", "content": ""},
                         with_usage_field=include_usage)
        fold = TextFold()
        while True:
            item = early.pop(0) if early else await queue.get()
            if item is END:
                break
            text = fold.feed(item)
            if isinstance(item, Done) and not fold.said and item.answer:
                text = item.answer  # a command's answer: no deltas were streamed
                fold.said = True
            elif isinstance(item, ThinkingDelta) and include_reasoning:
                yield wire.chunk(cid, model, {"reasoning_content": item.text},
                                 with_usage_field=include_usage)
            if text:
                yield wire.chunk(cid, model, {"content": text}, with_usage_field=include_usage)
        finished = True
        failure = _stream_failure(task)
        if failure is not None:
            yield wire.sse(failure)
            yield wire.DONE
            return
        yield wire.chunk(cid, model, {}, "stop", with_usage_field=include_usage)
        if include_usage:
            yield wire.usage_chunk(cid, model, task.result().usage)
        yield wire.DONE
    finally:
        if not finished:
            cancel.cancel()  # the client went away: stop the turn (history stays valid)


def _stream_failure(task: asyncio.Task[Any]) -> dict[str, Any] | None:
    """The in-stream error event for a turn that failed or was stopped, else None."""
    if task.cancelled():
        return wire.error_body(SHUTDOWN_MESSAGE, "server_error", "shutting_down")
    exc = task.exception()
    if isinstance(exc, ShuttingDown):
        return wire.error_body(SHUTDOWN_MESSAGE, "server_error", "shutting_down")
    if exc is not None:
        return wire.error_body(_log_bug(exc), "server_error")
    result: TurnResult = task.result()
    if result.error is not None:
        return wire.error_body(result.error.message, "provider_error", "upstream_error")
    if result.reason == "cancelled":
        return wire.error_body(SHUTDOWN_MESSAGE, "server_error", "shutting_down")
    return None


async def _sweep(gateway: Gateway) -> None:
    """Close agents idle past the TTL even when no request comes to do it."""
    every = min(SWEEP_EVERY, max(0.05, gateway.cache.idle_ttl / 2))
    while True:
        await asyncio.sleep(every)
        try:
            await anyio.to_thread.run_sync(gateway.cache.sweep)
        except Exception as exc:  # noqa: BLE001 - a failed close must not stop the sweeps
            _log_bug(exc)


class _HeaderLimit:
    """ASGI middleware: requests with more than MAX_HEADERS bytes of headers get a 431."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and sum(len(k) + len(v) for k, v in scope["headers"]) > MAX_HEADERS:
            response = _error(431, f"the request headers exceed {MAX_HEADERS:,} bytes",
                              "invalid_request_error", "headers_too_large")
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)


async def _http_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code)
    return _error(exc.status_code, str(exc.detail), "invalid_request_error", code, exc.headers)


def create_app(gateway: Gateway, keys: KeyRing, *, on_close: Callable[[], None] | None = None,
               log: access_log.AccessLog | None = None,
               metrics_key: str | None = None) -> Starlette:
    """The Starlette app; `on_close` runs at shutdown after the agents are closed;
    `metrics_key` opens /metrics (gateway/metrics.py).

    `app.state.begin_shutdown` stops the running turns: GatewayServer calls it when a
    shutdown starts, so that open streams end (with an error event) instead of holding
    the shutdown up."""
    api = Api(gateway, keys)
    metrics = MetricsEndpoint(gateway, keys, metrics_key, Metrics(gateway.fleet.worker_id))
    gateway.observers = (metrics.metrics,)  # times every turn of the agents it builds

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        sweeper = asyncio.create_task(_sweep(gateway))
        try:
            yield
        finally:
            sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await sweeper
            await anyio.to_thread.run_sync(gateway.close)  # waits for running turns
            if on_close is not None:
                on_close()
            if log is not None:
                log.close()

    routes = [
        Path("/health", api.health, methods=["GET"]),
        Path("/v1/models", api.list_models, methods=["GET"]),
        Path("/v1/chat/completions", api.chat, methods=["POST"]),
        Path("/v1/sessions/{session:path}/reset", api.reset, methods=["POST"]),
        Path("/v1/sessions/{session:path}/usage", api.usage, methods=["GET"]),
        Path("/metrics", metrics.endpoint, methods=["GET"]),
    ]
    middleware = [Middleware(access_log.AccessLogMiddleware, log=log, owner_of=keys.owner),
                  Middleware(_HeaderLimit),
                  Middleware(WorkerHeader, worker_id=gateway.fleet.worker_id),
                  Middleware(metrics.middleware)]
    app = Starlette(routes=routes, lifespan=lifespan, middleware=middleware,
                    exception_handlers={HTTPException: _http_error})
    app.state.api = api
    app.state.metrics = metrics
    app.state.begin_shutdown = gateway.begin_shutdown
    return app


__all__ = ["GatewayServer", "create_app"]
