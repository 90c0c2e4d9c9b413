"""The protocol channel: newline-delimited JSON-RPC on the real stdout only.

`protocol_pipe()` moves the process's stdout aside for the protocol and points file
descriptor 1 (and `sys.stdout`) at stderr, so nothing else - a print, a warning, a child
process (an MCP server, a tool) - can ever write on the channel. `Lines` is the SDK's
line transport plus answers to input it drops: a line that is not JSON gets a -32700
Parse error, JSON that is not a request object a -32600 Invalid Request (JSON-RPC 2.0
section 5), with one line on stderr, never a traceback.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import os
import sys
from typing import TYPE_CHECKING, Any, cast

from acp._transport import NdjsonTransport

if TYPE_CHECKING:
    from acp.task import MessageSender

log = logging.getLogger("hermes.acp")


def protocol_pipe() -> io.FileIO:
    """The original stdout as a binary file for the protocol; fd 1 is stderr from now."""
    sys.stdout.flush()
    channel = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return channel


class Lines(NdjsonTransport):
    """NdjsonTransport that answers malformed lines instead of dropping them, and writes
    each message whole to the protocol channel (a pipe, a file or a terminal alike)."""

    def __init__(self, reader: asyncio.StreamReader, channel: io.FileIO) -> None:
        super().__init__(reader, cast("MessageSender", None))  # `send` is this class's own
        self._channel = channel

    async def send(self, message: dict[str, Any]) -> None:
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode("utf-8")
        view = memoryview(data)
        while view:  # one message, never interleaved: the event loop is the only writer
            view = view[self._channel.write(view) or 0:]

    async def close(self) -> None:
        with contextlib.suppress(OSError):
            self._channel.flush()

    async def receive(self) -> dict[str, Any] | None:
        while True:
            line = (await self._read_line())
            if not line:
                return None
            line = line.strip()
            if not line:
                continue
            try:
                message = json.loads(line)
            except ValueError as exc:
                log.warning("acp: a line that is not JSON was answered with a parse error (%s)", exc)
                await self._error(None, -32700, "Parse error", str(exc))
                continue
            problem = _invalid(message)
            if problem is None and isinstance(message, dict):  # (None: it is one)
                return message
            log.warning("acp: an invalid request was answered with an error (%s)", problem)
            ident = message.get("id") if isinstance(message, dict) else None
            await self._error(ident if isinstance(ident, str | int) else None, -32600,
                              "Invalid request", problem or "not a JSON object")

    async def _error(self, ident: str | int | None, code: int, message: str, details: str) -> None:
        await self.send({"jsonrpc": "2.0", "id": ident,
                         "error": {"code": code, "message": message, "data": {"details": details}}})


def _invalid(message: object) -> str | None:
    """Why `message` is not a JSON-RPC request, notification or response (None: it is)."""
    if not isinstance(message, dict):
        return f"expected a JSON object, got {type(message).__name__}"
    if "method" in message:
        if not isinstance(message["method"], str):
            return "`method` must be a string"
        params = message.get("params")
        if params is not None and not isinstance(params, dict | list):
            return "`params` must be an object"
        return None
    if "id" in message and ("result" in message or "error" in message):
        return None
    return "neither a request (method) nor a response (id with result or error)"
