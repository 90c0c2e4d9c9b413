"""Guards for the gateway's HTTP layer against slow and numerous clients.

- Header timeout: a request's headers must be complete within `header_timeout` s of
  its first byte (or of the connection) - a byte-a-second client is cut, not waited on.
- Body timeout: a request's body must be complete within `body_timeout` s of the end of
  its headers - a total, not an idle time, so a client trickling one byte every few
  seconds is cut too. It is answered `408 Request Timeout` (when no response has
  started) and closed.
- Connection cap: at most `max_connections` open connections (default: the open-file
  limit minus a reserve, so accept() itself does not run out of descriptors). When
  full, the connection that has waited longest for its headers is dropped to make room
  (a fresh `/health` is answered during a flood); when none is waiting, 503 and close.
- Accept and loop errors ("Too many open files") and uvicorn's warnings are logged at
  most once per `log_every` s per kind, as one line with a count, never a traceback.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

RESERVED_FDS = 128
_BUSY = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
         b"connection: close\r\ncontent-length: 69\r\n\r\n"
         b'{"error": {"message": "server busy, retry shortly", "type": "busy"}}\n')


def _timeout_response(seconds: float) -> bytes:
    """The 408 sent to a client whose body did not arrive within `seconds`."""
    body = (b'{"error": {"message": "the request body did not arrive within %g s", '
            b'"type": "invalid_request_error", "code": "request_timeout"}}\n' % seconds)
    return (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
            b"connection: close\r\ncontent-length: %d\r\n\r\n" % len(body)) + body


def fd_limit() -> int:
    """The soft open-file limit (RLIMIT_NOFILE), or 1024 where it cannot be read."""
    try:
        import resource

        soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):
        return 1024
    return soft if soft > 0 else 1024


@dataclass(frozen=True)
class Limits:
    """Timeouts in seconds; `max_connections` None = the fd limit minus a reserve."""

    header_timeout: float = 10.0
    body_timeout: float = 30.0
    max_connections: int | None = None
    log_every: float = 10.0

    def cap(self) -> int:
        if self.max_connections is not None:
            return max(1, self.max_connections)
        return max(16, fd_limit() - RESERVED_FDS)


@dataclass
class Stats:
    """Counters for the bench and tests."""

    timed_out: int = 0
    body_timed_out: int = 0  # of timed_out: cut in the body (answered 408)
    evicted: int = 0
    refused: int = 0


def guarded_protocol(limits: Limits, stats: Stats) -> type:  # noqa: C901 - one class, small methods
    """uvicorn's h11 protocol class with the guards above (pass as `Config(http=...)`)."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    waiting: OrderedDict[Any, None] = OrderedDict()  # connections still reading headers
    cap = limits.cap()

    class GuardedH11Protocol(H11Protocol):
        _timer: asyncio.TimerHandle | None = None
        _rejected = False
        _in_body = False  # the body deadline is armed (once per request)

        def connection_made(self, transport: Any) -> None:
            if len(self.connections) >= cap and not _evict_one():
                self._rejected = True
                stats.refused += 1
                transport.write(_BUSY)
                transport.close()
                return
            super().connection_made(transport)
            waiting[self] = None
            self._arm(limits.header_timeout)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.transport.is_closing():
                return
            state = self.conn.their_state
            if state is h11.IDLE:  # still in the headers: keep the first deadline
                if self._timer is None:
                    waiting[self] = None
                    self._arm(limits.header_timeout)
                return
            waiting.pop(self, None)
            if state is h11.SEND_BODY:
                if not self._in_body:  # one deadline for the whole body, never re-armed
                    self._in_body = True
                    self._arm(limits.body_timeout)
            else:
                self._in_body = False
                self._disarm()

        def on_response_complete(self) -> None:
            self._in_body = False
            self._disarm()
            super().on_response_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            waiting.pop(self, None)
            if not self._rejected:
                super().connection_lost(exc)

        def _arm(self, seconds: float) -> None:
            self._disarm()
            self._timer = self.loop.call_later(seconds, self._timed_out)

        def _disarm(self) -> None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None

        def _timed_out(self) -> None:
            self._timer = None
            waiting.pop(self, None)
            stats.timed_out += 1
            if self._in_body and self.conn.our_state is h11.SEND_RESPONSE:
                stats.body_timed_out += 1
                self.transport.write(_timeout_response(limits.body_timeout))
                self.transport.close()  # after the 408 is flushed
                return
            self.transport.abort()

        def _drop(self) -> None:
            stats.evicted += 1
            self._disarm()
            self.transport.abort()

    def _evict_one() -> bool:
        while waiting:
            oldest, _ = waiting.popitem(last=False)
            if not oldest.transport.is_closing():
                oldest._drop()
                return True
        return False

    return GuardedH11Protocol


class _RateLimited:
    """At most one line per kind per `every` seconds, with the count since the last."""

    def __init__(self, every: float, stream: Any = None) -> None:
        self.every = every
        self.stream = stream
        self.last: dict[str, float] = {}
        self.count: dict[str, int] = {}

    def emit(self, kind: str, line: str) -> None:
        now = time.monotonic()
        self.count[kind] = self.count.get(kind, 0) + 1
        if now - self.last.get(kind, -1e18) < self.every:
            return
        times = self.count.pop(kind)
        self.last[kind] = now
        suffix = f" ({times} times in the last {self.every:g} s)" if times > 1 else ""
        out = self.stream or sys.stderr
        try:
            out.write(f"hermes gateway: {line}{suffix}\n")
            out.flush()
        except (OSError, ValueError):
            return


def _describe(context: dict[str, Any]) -> tuple[str, str]:
    exc = context.get("exception")
    message = str(context.get("message") or "event loop error")
    if isinstance(exc, OSError) and "accept" in message:
        return "accept", (f"cannot accept connections: {exc.strerror or exc}; raise the "
                          "open-file limit (ulimit -n) or lower gateway.max_connections")
    what = f"{message}: {type(exc).__name__}: {exc}" if exc is not None else message
    return message[:60], what


class _LogFilter(logging.Filter):
    def __init__(self, limiter: _RateLimited) -> None:
        super().__init__()
        self.limiter = limiter

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage().splitlines()[0] if record.getMessage() else record.name
        self.limiter.emit(f"log:{text[:60]}", text)
        return False  # printed (rate-limited) above, without a traceback


def install_quiet_errors(loop: asyncio.AbstractEventLoop, every: float,
                         stream: Any = None) -> None:
    """Loop exceptions and uvicorn's log lines, rate-limited (HERMES_DEBUG=1: untouched)."""
    if os.environ.get("HERMES_DEBUG"):
        return
    limiter = _RateLimited(every, stream)
    loop.set_exception_handler(lambda _loop, context: limiter.emit(*_describe(context)))
    for name in ("uvicorn.error", "uvicorn"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, _LogFilter) for f in logger.filters):
            logger.addFilter(_LogFilter(limiter))
