"""The HTTP gateway: an OpenAI-compatible API over cached per-session agents.

    POST /v1/chat/completions        one new message of a session (stream or not)
    GET  /v1/models                  the models a client may name
    POST /v1/sessions/{id}/reset     start a new stored session under the same name
    GET  /v1/sessions/{id}/usage     the session's usage report (404: not yours)
    GET  /health                     liveness (no auth)

A session is named by the `X-Hermes-Session-Id` header (else the `user` field; else a
new name is made and returned in that header). Every response of a turn carries
`X-Hermes-Session-Id` and `X-Hermes-Stored-Session-Id`.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import socket
import sys
import threading
import traceback
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route as Path

from agent import models
from agent.cancel import CancelToken
from agent.errors import HermesError
from agent.events import Done, ErrorEvent, TextDelta, ToolStarted
from agent.providers import ANTHROPIC_NAMES
from gateway import wire
from gateway.auth import KeyRing
from gateway.sessions import Gateway, Started, TurnRequest, TurnResult

MAX_BODY = 1024 * 1024
FIRST_EVENT_WAIT = 5.0  # seconds a stream waits to report an early error as a status
_FINISHED = object()


class _TooLarge(Exception):
    pass


def _error(status: int, message: str, etype: str, code: str | None = None,
           headers: dict[str, str] | None = None) -> JSONResponse:
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
    if isinstance(exc, HermesError):
        return _error(500, exc.message + (f" ({exc.hint})" if exc.hint else ""), "server_error")
    traceback.print_exception(exc, file=sys.stderr)
    return _error(500, f"internal error: {exc!r}", "server_error")


class Api:
    """The request handlers, bound to one Gateway and one KeyRing."""

    def __init__(self, gateway: Gateway, keys: KeyRing) -> None:
        self.gateway = gateway
        self.keys = keys
        self._tasks: set[asyncio.Task] = set()
        base = gateway.base.provider
        family = "anthropic" if base.provider.lower() in ANTHROPIC_NAMES else "openai"
        ids = ["hermes", base.model]
        ids += [m for m, info in models.CATALOGUE.items() if info.provider == family]
        self.model_ids = list(dict.fromkeys(ids))

    async def health(self, _request: Request) -> Response:
        return JSONResponse({"status": "ok"})

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
        report = await anyio.to_thread.run_sync(self.gateway.usage_report, owner, ident)
        if report is None:
            return _error(404, f"no session {ident!r}", "invalid_request_error", "not_found")
        return JSONResponse(report)

    async def reset(self, request: Request) -> Response:
        owner = self.keys.owner(request.headers.get("authorization"))
        if owner is None:
            return _unauthorized()
        name = request.path_params["session"]
        result = await self.gateway.call(owner, name, lambda: self.gateway.reset(owner, name))
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
        except wire.BadRequest as exc:
            return JSONResponse(wire.error_body(exc.message, "invalid_request_error", None,
                                                exc.param), status_code=400)
        name = name or "session-" + secrets.token_hex(8)
        turn = TurnRequest(owner, name, chat.text, chat.model, chat.system)
        if chat.stream:
            return await self._stream(turn, chat)
        try:
            result = await self.gateway.run(turn)
        except Exception as exc:  # noqa: BLE001 - reported to the client as a 500
            return _internal(exc)
        headers = _session_headers(name, result.session_id)
        if result.error is not None:
            return _error(502, result.error.message, "provider_error", "upstream_error", headers)
        cid = wire.new_completion_id()
        return JSONResponse(wire.completion(cid, result.model, result.answer, result.usage),
                            headers=headers)

    # -- streaming ---------------------------------------------------------------------
    async def _stream(self, turn: TurnRequest, chat: wire.ChatRequest) -> Response:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue()
        cancel = CancelToken()

        def sink(item: object) -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed at shutdown
                loop.call_soon_threadsafe(queue.put_nowait, item)

        task = asyncio.create_task(self.gateway.run(turn, sink, cancel))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(lambda _t: queue.put_nowait(_FINISHED))
        early = await _first_events(queue)
        started = next((i for i in early if isinstance(i, Started)), None)
        texted = any(isinstance(i, TextDelta) for i in early)
        if not texted and (early[-1:] == [_FINISHED] or any(isinstance(i, ErrorEvent) for i in early)):
            try:
                result: TurnResult = await task
            except Exception as exc:  # noqa: BLE001 - reported to the client as a 500
                return _internal(exc)
            if result.error is not None:
                return _error(502, result.error.message, "provider_error", "upstream_error",
                              _session_headers(turn.name, result.session_id))
        model = started.model if started else (turn.model or self.gateway.base.provider.model)
        body = _sse(wire.new_completion_id(), model, early, queue, task, cancel,
                    chat.include_usage)
        return StreamingResponse(body, media_type="text/event-stream",
                                 headers={"cache-control": "no-cache", **_session_headers(
                                     turn.name, started.session_id if started else None)})


async def _first_events(queue: asyncio.Queue) -> list[object]:
    """Items up to the first text, error, answer or the end (at most FIRST_EVENT_WAIT s),
    so an error before any text can still be a 502 status instead of an in-stream error."""
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
        if item is _FINISHED or isinstance(item, TextDelta | ErrorEvent | Done):
            return items


async def _sse(cid: str, model: str, early: list[object], queue: asyncio.Queue,  # noqa: PLR0913
               task: asyncio.Task, cancel: CancelToken, include_usage: bool) -> AsyncIterator[bytes]:
    """chat.completion.chunk events, a finish chunk, the usage chunk, then [DONE]."""
    finished = False
    try:
        yield wire.chunk(cid, model, {"role": "assistant", "content": ""},
                         with_usage_field=include_usage)
        said, gap, error = False, False, None
        while True:
            item = early.pop(0) if early else await queue.get()
            if item is _FINISHED:
                break
            text = None
            if isinstance(item, TextDelta):
                text = ("\n\n" if gap and said else "") + item.text
                gap = False
            elif isinstance(item, Done) and not said and item.answer:
                text = item.answer  # a command's answer: no deltas were streamed
            elif isinstance(item, ToolStarted):
                gap = True
            elif isinstance(item, ErrorEvent):
                error = item
            if text:
                said = True
                yield wire.chunk(cid, model, {"content": text}, with_usage_field=include_usage)
        finished = True
        exc = task.exception()
        if exc is not None or error is not None:
            message = error.message if error is not None else f"internal error: {exc!r}"
            yield wire.sse(wire.error_body(message, "provider_error" if error else "server_error",
                                           "upstream_error" if error else None))
            yield wire.DONE
            return
        yield wire.chunk(cid, model, {}, "stop", with_usage_field=include_usage)
        if include_usage:
            yield wire.usage_chunk(cid, model, task.result().usage)
        yield wire.DONE
    finally:
        if not finished:
            cancel.cancel()  # the client went away: stop the turn (history stays valid)


def create_app(gateway: Gateway, keys: KeyRing, *,
               on_close: Callable[[], None] | None = None) -> Starlette:
    """The Starlette app; `on_close` runs at shutdown after the agents are closed."""
    api = Api(gateway, keys)

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            gateway.close()
            if on_close is not None:
                on_close()

    routes = [
        Path("/health", api.health, methods=["GET"]),
        Path("/v1/models", api.list_models, methods=["GET"]),
        Path("/v1/chat/completions", api.chat, methods=["POST"]),
        Path("/v1/sessions/{session:path}/reset", api.reset, methods=["POST"]),
        Path("/v1/sessions/{session:path}/usage", api.usage, methods=["GET"]),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.api = api
    return app


class GatewayServer:
    """uvicorn serving `app` in a background thread (tests, the bench, embedding)."""

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = 0) -> None:
        import uvicorn

        self.host = host
        self._socket = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind((host, port))
        self.port = self._socket.getsockname()[1]
        config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on",
                                timeout_graceful_shutdown=5)
        self.server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def start(self, timeout: float = 10.0) -> GatewayServer:
        self._thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self._socket]},
                                        name="hermes-gateway", daemon=True)
        self._thread.start()
        waited = 0.0
        while not self.server.started:
            if not self._thread.is_alive() or waited > timeout:
                raise RuntimeError("the gateway did not start")
            threading.Event().wait(0.01)
            waited += 0.01
        return self

    def serve(self) -> None:
        """Serve in the calling thread until Ctrl-C / SIGTERM."""
        self.server.run(sockets=[self._socket])

    def stop(self) -> None:
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=15)
            self._thread = None
        self._socket.close()

    def __enter__(self) -> GatewayServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
