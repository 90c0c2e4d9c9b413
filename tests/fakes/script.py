"""Scripted outcomes, request records and the fake clock of the fake provider."""

from __future__ import annotations

import json
import math
import threading
from dataclasses import dataclass, field
from typing import Any

ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}

DEFAULT_MESSAGES = {
    400: "Invalid request",
    401: "invalid x-api-key",
    429: "Rate limit exceeded, please retry later",
    500: "Internal server error",
    529: "Overloaded",
}


@dataclass
class ToolCall:
    """One tool call of a scripted reply. `id` is generated when None."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str | None = None


@dataclass
class Reply:
    """A successful model answer: text and/or tool calls.

    `delay`: seconds slept between streamed chunks (once before a non-streamed answer).
    `chunks`: number of pieces the text is streamed in (default 3).
    `thinking`: the thinking text when the request enables thinking (None: a
    deterministic default); `redacted`: send it as a `redacted_thinking` block.
    `arg_chunk`: stream each tool call's arguments in pieces of this many characters
    (None: two pieces), as real servers send long arguments. `usage_as_text`: the
    stream reports its usage numbers as strings (a broken proxy); the record keeps ints.
    """

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    delay: float = 0.0
    chunks: int | None = None
    thinking: str | None = None
    redacted: bool = False
    arg_chunk: int | None = None
    usage_as_text: bool = False

    def output_tokens(self) -> int:
        size = len(self.text)
        for call in self.tool_calls:
            size += len(json.dumps({"name": call.name, "arguments": call.arguments},
                                   sort_keys=True, separators=(",", ":")))
        return max(1, math.ceil(size / 4))


@dataclass
class Error:
    """An HTTP error in the API's own error shape.

    `after_chunks`: on a streamed request, send that many SSE events first and then an
    in-stream error event (HTTP status stays 200); ignored for non-streamed requests.
    """

    status: int
    message: str | None = None
    retry_after: float | None = None
    type: str | None = None
    after_chunks: int | None = None

    def error_type(self) -> str:
        return self.type or ANTHROPIC_ERROR_TYPES.get(self.status, "api_error")

    def error_message(self) -> str:
        return self.message or DEFAULT_MESSAGES.get(self.status, f"Error {self.status}")


@dataclass
class Drop:
    """Close the connection without a (complete) response.

    `after_chunks=N` on a streamed request: send N SSE events, then cut the connection.
    """

    after_chunks: int = 0


@dataclass
class Malformed:
    """On a streamed request: send `after_chunks` good SSE events, then `data` (None: an
    event whose JSON is cut short, with an Anthropic `event:` name on that API), then end
    the stream normally. Non-streamed: a Reply."""

    after_chunks: int = 1
    data: bytes | None = None


Item = Reply | Error | Drop | Malformed


@dataclass
class Record:
    """One HTTP API request as the fake server saw and answered it."""

    api: str
    path: str
    headers: dict[str, str]
    raw: bytes
    time: float
    body: dict[str, Any] = field(default_factory=dict)
    stream: bool = False
    status: int = 0
    usage: dict[str, Any] | None = None
    response_id: str | None = None
    breakpoints: int = 0
    prompt_tokens: int = 0
    cache_read: int = 0
    cache_write: int = 0
    miss_reason: str | None = None
    model: str | None = None
    error: str | None = None
    item: Item | None = None
    disconnected: bool = False
    events_sent: int = 0  # SSE events written so far (a stream in flight has some)

    @property
    def uncached(self) -> int:
        """Prompt tokens neither read from nor written to the cache."""
        return self.prompt_tokens - self.cache_read - self.cache_write


class FakeClock:
    """Manual monotonic clock for cache TTLs: starts at 0, moves only via advance()."""

    def __init__(self) -> None:
        self._now = 0.0
        self._lock = threading.Lock()

    def now(self) -> float:
        with self._lock:
            return self._now

    def advance(self, seconds: float) -> float:
        if seconds < 0:
            raise ValueError("the fake clock only moves forward")
        with self._lock:
            self._now += seconds
            return self._now

    def reset(self) -> None:
        with self._lock:
            self._now = 0.0


@dataclass
class Outcome:
    """What the HTTP layer must send back for one API request."""

    status: int = 200
    body: dict[str, Any] | None = None
    events: list[bytes] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    drop_after: int | None = None


def as_text(value: Any) -> Any:
    """Every number inside `value` as a string (usage sent by a broken proxy)."""
    if isinstance(value, dict):
        return {key: as_text(item) for key, item in value.items()}
    return str(value) if isinstance(value, int | float) and not isinstance(value, bool) else value


def split_arguments(text: str, reply: Reply) -> list[str]:
    """A tool call's arguments as streamed: two pieces, or `reply.arg_chunk`-sized ones."""
    if reply.arg_chunk:
        return [text[i:i + reply.arg_chunk] for i in range(0, len(text), reply.arg_chunk)]
    return split_text(text, 2)


def split_text(text: str, pieces: int) -> list[str]:
    """Split text into `pieces` nearly equal non-empty parts (fewer if text is short)."""
    if not text:
        return []
    pieces = max(1, min(pieces, len(text)))
    size = math.ceil(len(text) / pieces)
    return [text[i:i + size] for i in range(0, len(text), size)]


def item_from_json(data: dict[str, Any]) -> Item:
    """Build a script item from the JSON used by the control endpoint."""
    if "error" in data:
        return Error(**data["error"])
    if "drop" in data:
        return Drop(**(data["drop"] or {}))
    if "malformed" in data:
        raw = dict(data["malformed"] or {})
        if "data" in raw:
            raw["data"] = raw["data"].encode()
        return Malformed(**raw)
    calls = [ToolCall(c["name"], c.get("arguments", {}), c.get("id"))
             for c in data.get("tool_calls", [])]
    return Reply(text=data.get("text", ""), tool_calls=calls,
                 delay=data.get("delay", 0.0), chunks=data.get("chunks"),
                 thinking=data.get("thinking"), redacted=data.get("redacted", False),
                 arg_chunk=data.get("arg_chunk"), usage_as_text=data.get("usage_as_text", False))


def record_summary(rec: Record) -> dict[str, Any]:
    """JSON-friendly view of a record (for the control endpoint)."""
    return {
        "api": rec.api, "path": rec.path, "status": rec.status, "stream": rec.stream,
        "model": rec.model, "usage": rec.usage, "response_id": rec.response_id,
        "breakpoints": rec.breakpoints, "prompt_tokens": rec.prompt_tokens,
        "cache_read": rec.cache_read, "cache_write": rec.cache_write,
        "miss_reason": rec.miss_reason, "time": rec.time, "error": rec.error,
        "body": rec.body,
    }
