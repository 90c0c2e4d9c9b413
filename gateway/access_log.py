"""The gateway's access log: one JSON line per request, never a byte of message content.

    {"ts": "2026-11-30T22:41:07.123Z", "key": "3f2a9c01b7d4", "method": "POST",
     "path": "/v1/chat/completions", "status": 200, "session": "session-…",
     "stored_session": "20261130-224105-a1b2c3", "model": "claude-sonnet-5-5",
     "prompt_tokens": 2311, "cached_tokens": 2265, "output_tokens": 12,
     "cache_read_share": 0.9801, "cost_usd": 0.00123, "duration_ms": 41.7}

- `key` is the first 12 hex digits of the owner id (SHA-256 of the client key): enough to
  tell keys apart, useless to recover one. Without a valid key: null.
- `cache_read_share` and `cost_usd` are null when the provider reported no cache figures
  or the model has no known price (never 0 for unknown).
- /health is not logged (probes would drown the log).

Where: `gateway.access_log` in config.yaml or `hermes gateway --access-log`: "stderr" or
"-" (the default), a file path (appended), or "off".

Flood bound: a token bucket of `gateway.access_log_rate` lines per second (default 50,
bursts of twice that). Lines over it are not written but counted and summarised in one
line, written at most once a second (on a request a second or more after the last
summary, or at shutdown):
    {"ts": ..., "event": "suppressed", "lines": 9120, "since": ..., "statuses": {"401": 9120}}
So a flood writes at most rate + burst + 1 lines per second.
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, MutableMapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agent.errors import ConfigError

NOTE = "hermes.access"  # the scope key where handlers note what the log needs
DEFAULT_RATE = 50.0
OFF = ("off", "none", "false", "")


def _now_iso(stamp: float | None = None) -> str:
    moment = datetime.fromtimestamp(time.time() if stamp is None else stamp, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class AccessLog:
    """Rate-bounded writer of JSON lines (thread-safe)."""

    def __init__(self, write: Callable[[str], object], *, rate: float = DEFAULT_RATE,
                 burst: float | None = None, clock: Callable[[], float] = time.monotonic,
                 close: Callable[[], None] | None = None) -> None:
        if rate <= 0:
            raise ValueError("rate must be > 0")
        self._write = write
        self._close = close
        self.rate = rate
        self.burst = burst if burst is not None else 2 * rate
        self._clock = clock
        self._tokens = self.burst
        self._last = clock()
        self._lock = threading.Lock()
        self.suppressed = 0
        self._statuses: Counter[str] = Counter()
        self._since: str | None = None
        self._summarised = clock()

    def emit(self, fields: dict[str, Any]) -> bool:
        """Write one line, or count it when over the rate. True when written."""
        with self._lock:
            now = self._clock()
            self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
            self._last = now
            if self._tokens >= 1:
                self._tokens -= 1
                if now - self._summarised >= 1.0:
                    self._summary()
                self._line(fields)
                return True
            self.suppressed += 1
            self._statuses[str(fields.get("status"))] += 1
            self._since = self._since or fields.get("ts") or _now_iso()
            if now - self._summarised >= 1.0:
                self._summary()
            return False

    def _summary(self) -> None:
        if self.suppressed:
            self._line({"ts": _now_iso(), "event": "suppressed", "lines": self.suppressed,
                        "since": self._since, "statuses": dict(sorted(self._statuses.items()))})
        self.suppressed, self._since = 0, None
        self._statuses.clear()
        self._summarised = self._clock()

    def _line(self, fields: dict[str, Any]) -> None:
        # a full disk or a closed stream never fails a request
        with contextlib.suppress(OSError, ValueError):
            self._write(json.dumps(fields, ensure_ascii=False, separators=(",", ":")) + "\n")

    def close(self) -> None:
        """Write the pending summary, then close the file (if any)."""
        with self._lock:
            self._summary()
        if self._close is not None:
            self._close()


def open_log(target: str | bool | None, rate: float = DEFAULT_RATE) -> AccessLog | None:
    """The access log for a `--access-log` / `gateway.access_log` value (None: off)."""
    target = "stderr" if target is None or target is True else str(target).strip()
    if target.lower() in OFF:
        return None
    if target in ("-", "stderr"):
        return AccessLog(lambda line: (sys.stderr.write(line), sys.stderr.flush()), rate=rate)
    path = Path(target).expanduser()
    try:
        handle = path.open("a", encoding="utf-8", buffering=1)
    except OSError as exc:
        raise ConfigError(f"cannot open the access log {path}: {exc.strerror or exc}",
                          "fix `gateway.access_log` / --access-log: a writable file, "
                          "'stderr' or 'off'") from None
    return AccessLog(handle.write, rate=rate, close=handle.close)


def note(scope: MutableMapping[str, Any], **fields: Any) -> dict[str, Any]:
    """Record what a handler knows (session, result, streaming task) for the log line."""
    slot = scope.get(NOTE)
    if slot is None:
        return {}
    slot.update(fields)
    return slot


def fields_of(note_: dict[str, Any]) -> dict[str, Any]:
    """The turn's fields of the line from what the handler noted (no content)."""
    result = note_.get("result")
    task = note_.get("task")
    if result is None and task is not None and task.done() and not task.cancelled() \
            and task.exception() is None:
        result = task.result()
    out: dict[str, Any] = {"session": note_.get("session")}
    if result is None:
        return out
    usage = result.usage
    share = usage.hit_rate
    return {**out, "stored_session": result.session_id or None, "model": result.model,
            "prompt_tokens": usage.prompt_tokens,
            "cached_tokens": usage.cache_read if usage.cache_known else None,
            "output_tokens": usage.output,
            "cache_read_share": None if share is None else round(share, 4),
            "cost_usd": None if result.cost is None else round(result.cost, 8)}


async def answered(app: Any, scope: Any, receive: Any, send: Any, status: list[int]) -> None:
    """Run the ASGI `app`, noting the response's status in `status[0]` as it starts
    (left as it was when no response started)."""
    async def sending(message: Any) -> None:
        if message["type"] == "http.response.start":
            status[0] = message["status"]
        await send(message)
    await app(scope, receive, sending)


class AccessLogMiddleware:
    """ASGI middleware: one line per HTTP request, written when the response (a stream
    included) has ended."""

    def __init__(self, app: Any, log: AccessLog | None, owner_of: Callable[[str | None], str | None]) -> None:
        self.app = app
        self.log = log
        self.owner_of = owner_of

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if self.log is None or scope["type"] != "http" or scope.get("path") == "/health":
            await self.app(scope, receive, send)
            return
        started, stamp = time.monotonic(), time.time()
        slot: dict[str, Any] = {}
        scope[NOTE] = slot
        status = [500]
        try:
            await answered(self.app, scope, receive, send, status)
        finally:
            headers = dict(scope.get("headers") or [])
            auth = headers.get(b"authorization", b"").decode("latin-1")
            owner = self.owner_of(auth) if auth else None
            self.log.emit({"ts": _now_iso(stamp), "key": owner[:12] if owner else None,
                           "method": scope.get("method"), "path": scope.get("path"),
                           "status": status[0], **fields_of(slot),
                           "duration_ms": round((time.monotonic() - started) * 1000, 1)})
