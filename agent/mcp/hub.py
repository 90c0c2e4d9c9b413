"""The process's MCP connections: one background event loop thread owns every server.

The agent is synchronous; the SDK is asyncio. `McpHub` runs one daemon thread with an
event loop, one task per server that holds its connection open (the SDK's context
managers are entered and left in that task), and bridges calls with
`run_coroutine_threadsafe` plus a deadline. One connection per server per process:
every agent of the process (REPL, gateway chats) shares the hub.

A server's state: starting -> ready | failed; a crash (the connection closes under a
call or on its own) -> crashed, and a restart begins at once; calls meanwhile return a
clear error. `tools/list_changed` re-lists the server's tools: the hub only records the
new list (`Server.version` increases); the sessions decide what to do with it (frozen).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from agent.errors import ToolError
from agent.mcp.config import ServerConfig

if TYPE_CHECKING:
    from collections.abc import Coroutine
    from contextlib import AbstractAsyncContextManager
    from typing import TextIO

    from mcp import ClientSession
    from mcp.client._transport import TransportStreams
    from mcp.client.session import IncomingMessage
    from mcp_types import CallToolResult, Tool

T = TypeVar("T")


@dataclass
class Server:
    """One server's live state (read by other threads; written on the loop thread)."""

    config: ServerConfig
    status: str = "stopped"  # starting, ready, failed, crashed, stopped
    error: str = ""
    tools: list[dict[str, Any]] = field(default_factory=list)  # name, description, inputSchema
    version: int = 0  # bumped whenever `tools` is replaced
    restarts: int = 0
    stopping: bool = False  # an orderly stop (config change, exit): no restart
    settled: threading.Event = field(default_factory=threading.Event)
    session: ClientSession | None = None
    stop: asyncio.Event | None = None
    task: asyncio.Task[None] | None = None
    errlog: TextIO | None = None  # a stdio server's stderr (kept off the screen, read on failure)


class McpHub:
    """Every MCP server connection of this process (see module docstring)."""

    def __init__(self) -> None:
        self.servers: dict[str, Server] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()

    # ---- lifecycle (any thread) -------------------------------------------------
    def start(self, configs: tuple[ServerConfig, ...]) -> None:
        """Start the servers not running yet (concurrently, in the background)."""
        loop = self._ensure_loop()
        with self._lock:
            for config in configs:
                current = self.servers.get(config.name)
                if current is not None and current.config == config:
                    continue
                if current is not None:  # the config changed: a new connection
                    self._submit(self._stop(current), 5)
                server = Server(config, status="starting")
                self.servers[config.name] = server
                loop.call_soon_threadsafe(self._launch, server)

    def wait(self, names: list[str], deadline: float) -> None:
        """Wait until the named servers are ready or failed, at most until `deadline`
        (a time.monotonic() value)."""
        for name in names:
            server = self.servers.get(name)
            if server is not None:
                server.settled.wait(max(0.0, deadline - time.monotonic()))

    def close(self) -> None:
        """Stop every server (bounded wait) and the loop."""
        loop, self._loop = self._loop, None
        if loop is None:
            return
        for server in list(self.servers.values()):
            with contextlib.suppress(Exception):
                asyncio.run_coroutine_threadsafe(self._stop(server), loop).result(5)
        loop.call_soon_threadsafe(loop.stop)

    def call(self, name: str, tool: str, args: dict[str, Any]) -> CallToolResult:
        """Call `tool` on server `name`; the CallToolResult, or ToolError with the reason."""
        server = self.servers.get(name)
        if server is None or self._loop is None:
            raise ToolError(f"MCP server '{name}' is not running in this process "
                            "(not configured, disabled, or removed from config.yaml)")
        if server.status == "starting" and server.restarts == 0:  # first start: wait for it
            server.settled.wait(server.config.start_timeout)
        if server.status != "ready" or server.session is None:
            why = {"starting": "is still starting", "crashed": "crashed and is restarting",
                   "failed": f"failed to start ({server.error})"}.get(server.status, server.status)
            raise ToolError(f"MCP server '{name}' {why}; try again in a moment, or go on "
                            "without it")
        timeout = server.config.call_timeout
        future = asyncio.run_coroutine_threadsafe(self._call(server, tool, args), self._loop)
        try:
            return future.result(timeout + 1)
        except TimeoutError:
            future.cancel()
            raise ToolError(f"MCP server '{name}' did not answer {tool} within {timeout:g}s "
                            "(mcp_servers.{name}.call_timeout)") from None

    # ---- the loop thread ----------------------------------------------------------
    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="hermes-mcp", daemon=True).start()
                self._loop = loop
                atexit.register(self.close)
            return self._loop

    def _submit(self, coro: Coroutine[Any, Any, T], timeout: float) -> T | None:
        assert self._loop is not None
        with contextlib.suppress(Exception):
            return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)
        return None

    def _launch(self, server: Server) -> None:
        server.stop = asyncio.Event()
        server.task = asyncio.get_running_loop().create_task(self._serve(server))

    async def _serve(self, server: Server) -> None:
        """Hold one connection open until stopped or the connection ends."""
        from mcp import ClientSession  # lazy: the SDK loads only when a server is configured

        config = server.config
        if config.command and server.errlog is None:
            server.errlog = _errlog()
        try:
            async with contextlib.AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(_transport(config, server.errlog))
                session = await stack.enter_async_context(ClientSession(
                    read, write, message_handler=lambda m: self._on_message(server, m)))
                await asyncio.wait_for(session.initialize(), config.start_timeout)
                tools = await asyncio.wait_for(_list_tools(session), config.start_timeout)
                self._set_tools(server, tools)
                server.session, server.status, server.error = session, "ready", ""
                server.settled.set()
                assert server.stop is not None  # set by _launch before this task runs
                await server.stop.wait()
        except BaseException as exc:  # noqa: BLE001 - a server's failure is its state
            if server.stopping:
                pass
            elif server.status in ("ready", "crashed"):
                server.status, server.error = "crashed", server.error or _reason(exc)
            else:
                server.status = "failed"
                server.error = (f"no answer within {config.start_timeout:g}s"
                                if isinstance(_leaf(exc), TimeoutError) else _reason(exc))
                said = stderr_tail(server.errlog)
                server.error += f"; its stderr: {said}" if said else ""
        finally:
            server.session = None
            server.settled.set()
        if server.status == "crashed" and not server.stopping:
            self._restart(server)
        elif server.stopping:
            server.status = "stopped"

    def _restart(self, server: Server) -> None:
        """A crashed server gets a new connection (its tool calls error meanwhile)."""
        fresh = Server(server.config, status="starting", tools=server.tools,
                       version=server.version, restarts=server.restarts + 1)
        if self.servers.get(server.config.name) is server:
            self.servers[server.config.name] = fresh
            self._launch(fresh)

    async def _call(self, server: Server, tool: str, args: dict[str, Any]) -> CallToolResult:
        session = server.session
        if session is None:  # it went away since `call` looked
            raise ToolError(f"MCP server '{server.config.name}' is not connected; try again in a moment")
        try:
            return await session.call_tool(tool, args)
        except Exception as exc:  # noqa: BLE001
            if _closed(exc):
                server.status = "crashed"
                server.error = _reason(exc)
                if server.stop is not None:
                    server.stop.set()  # _serve ends and restarts the server
                raise ToolError(f"MCP server '{server.config.name}' crashed during {tool} "
                                f"({_reason(exc)}); it is being restarted for the next call") from None
            raise ToolError(f"MCP server '{server.config.name}' refused {tool}: {_reason(exc)}") from None

    async def _on_message(self, server: Server, message: IncomingMessage) -> None:
        method = getattr(getattr(message, "root", message), "method", "")
        if method == "notifications/tools/list_changed" and server.session is not None:
            with contextlib.suppress(Exception):
                tools = await asyncio.wait_for(_list_tools(server.session),
                                               server.config.start_timeout)
                self._set_tools(server, tools)

    def _set_tools(self, server: Server, tools: list[dict[str, Any]]) -> None:
        if tools != server.tools or server.version == 0:
            server.tools = tools
            server.version += 1

    async def _stop(self, server: Server) -> None:
        server.stopping = True
        if server.stop is not None:
            server.stop.set()
        if server.task is not None:
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(server.task), 4)
        server.status = "stopped"


def _transport(config: ServerConfig,
               errlog: TextIO | None = None) -> AbstractAsyncContextManager[TransportStreams]:
    if config.command:
        from mcp.client.stdio import StdioServerParameters, stdio_client

        params = StdioServerParameters(command=config.command, args=list(config.args),
                                       env=config.child_env(), cwd=config.cwd)
        return stdio_client(params, errlog=errlog or _devnull())
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    client = httpx2.AsyncClient(headers=dict(config.headers),
                                timeout=httpx2.Timeout(config.call_timeout, connect=config.start_timeout))
    assert config.url is not None  # a server without `command:` has a `url:` (agent/mcp/config.py)
    return streamable_http_client(config.url, http_client=client)


_DEVNULL: list[TextIO] = []
STDERR_TAIL = 400  # characters of a failed server's stderr put into its error


def _errlog() -> TextIO:
    """An unnamed temporary file for one server's stderr: never drawn over the REPL,
    read when the server fails to start (its own words are the real reason)."""
    import tempfile

    return tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115


def stderr_tail(errlog: TextIO | None) -> str:
    """The last lines a server wrote on stderr, on one line ("" when none)."""
    if errlog is None:
        return ""
    import os

    with contextlib.suppress(OSError, ValueError):  # the child wrote to the descriptor
        size = os.fstat(errlog.fileno()).st_size
        start = max(0, size - 4 * STDERR_TAIL)
        text = os.pread(errlog.fileno(), size - start, start).decode("utf-8", "replace")
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        tail = " | ".join(lines[-3:])
        return tail if len(tail) <= STDERR_TAIL else "..." + tail[-STDERR_TAIL:]
    return ""


def _devnull() -> TextIO:
    """Servers' stderr must not draw over the REPL (one handle for the process)."""
    import os

    if not _DEVNULL:
        _DEVNULL.append(open(os.devnull, "w"))  # noqa: SIM115 - lives as long as the process
    return _DEVNULL[0]


async def _list_tools(session: ClientSession) -> list[dict[str, Any]]:
    """Every page of tools/list, as plain dicts."""
    tools: list[dict[str, Any]] = []
    cursor = None
    while True:
        if cursor is None:
            page = await session.list_tools()
        else:
            from mcp_types import PaginatedRequestParams

            page = await session.list_tools(params=PaginatedRequestParams(cursor=cursor))
        tools.extend({"name": t.name, "description": t.description or "",
                      "inputSchema": t.input_schema, "readOnlyHint": _read_only(t)}
                     for t in page.tools)
        cursor = page.next_cursor
        if not cursor:
            return tools


def _read_only(tool: Tool) -> bool:
    """The tool's `readOnlyHint` annotation (plan mode allows such tools); a hint only,
    from a server the user configured."""
    notes = getattr(tool, "annotations", None)
    return getattr(notes, "read_only_hint", None) is True


def _closed(exc: BaseException) -> bool:
    text = str(exc).lower()
    return "closed" in text or isinstance(exc, EOFError | ConnectionError | BrokenPipeError)


def _leaf(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _reason(exc: BaseException) -> str:
    exc = _leaf(exc)
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


_HUB: McpHub | None = None
_HUB_LOCK = threading.Lock()


def shared_hub() -> McpHub:
    """The process's hub (made on first use, never at import)."""
    global _HUB
    with _HUB_LOCK:
        if _HUB is None:
            _HUB = McpHub()
        return _HUB
