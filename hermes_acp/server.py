"""`hermes acp`: run the ACP agent on stdin/stdout until the editor closes the pipe.

Stdout carries the protocol and nothing else (hermes_acp/wire.py); logs, warnings and
notices go to stderr or to the editor as protocol messages. Settings are read once; a
broken config.yaml or a missing key does not stop the process: every session/new then
answers with that error (one line and its hint), which the editor shows.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import threading
from typing import TYPE_CHECKING, cast

from agent.errors import HermesError
from frontend.setup import Flags
from hermes_acp.wire import protocol_pipe
from memory.errors import HermesMemoryError

if TYPE_CHECKING:
    import io

    from acp.interfaces import Agent

    from hermes_acp.service import HermesAcp

BUFFER = 50 * 1024 * 1024  # bytes of one JSON-RPC line (an embedded file can be large)


class OneLine(logging.Formatter):
    """Log records as one line each; tracebacks only with HERMES_DEBUG=1."""

    def format(self, record: logging.LogRecord) -> str:
        text = f"hermes acp: {record.levelname.lower()}: {record.getMessage()}"
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            text += f" ({type(exc).__name__}: {exc})"
            if os.environ.get("HERMES_DEBUG"):
                text += "\n" + self.formatException(record.exc_info)
        return " ".join(text.split("\n")) if not os.environ.get("HERMES_DEBUG") else text


def _logging() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLine())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.DEBUG if os.environ.get("HERMES_DEBUG") else logging.WARNING)


def run_acp(flags: Flags) -> int:
    """Serve one editor over stdio; 0 when it closed the connection."""
    channel = protocol_pipe()
    _logging()
    from frontend.setup import load_settings
    from hermes_acp.service import HermesAcp

    settings, problem = None, None
    try:
        settings = load_settings()
    except (HermesError, HermesMemoryError) as exc:
        problem = exc
        logging.getLogger("hermes.acp").warning("%s", exc.message)
    agent = HermesAcp(settings, flags, problem)
    try:
        asyncio.run(_serve(agent, channel))
    except Exception as exc:  # noqa: BLE001 - one line on stderr, never on the channel
        logging.getLogger("hermes.acp").error("stopped: %s: %s", type(exc).__name__, exc)
        return 1
    return 0


def _feed(loop: asyncio.AbstractEventLoop, reader: asyncio.StreamReader) -> None:
    """Stdin into `reader` from a thread: a pipe, a file or a terminal alike (an event-loop
    pipe transport refuses regular files)."""
    def pump() -> None:
        try:
            while True:
                data = os.read(0, 65536)
                if not data:
                    break
                loop.call_soon_threadsafe(reader.feed_data, data)
        except (OSError, RuntimeError):  # stdin failed, or the loop closed first
            return
        finally:
            with contextlib.suppress(RuntimeError):  # the loop closed first
                loop.call_soon_threadsafe(reader.feed_eof)

    threading.Thread(target=pump, name="acp-stdin", daemon=True).start()


async def _serve(agent: HermesAcp, channel: io.FileIO) -> None:
    from acp.agent.connection import AgentSideConnection

    from hermes_acp.wire import Lines

    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=BUFFER)
    _feed(loop, reader)
    # HermesAcp answers part of acp.interfaces.Agent (no fork_session, set_config_option,
    # ext_*): the SDK answers "method not found" for the rest
    conn = AgentSideConnection(cast("Agent", agent), Lines(reader, channel), listening=False,
                               use_unstable_protocol=True)
    try:
        await conn.listen()
    finally:
        await asyncio.shield(conn.close())
        await agent.close()
