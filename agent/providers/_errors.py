"""The SDK boundary shared by both adapters: exception mapping and a cancellable stream.

`map_sdk_error` turns an `anthropic`/`openai` SDK exception (or a raw transport error
from the HTTP library under them) into our `ProviderError` family with a message that
quotes what the provider said. `read_stream` reads an SDK stream in a daemon thread so
that a Ctrl-C (`CancelToken.cancel`) returns control at once, whatever the socket does;
the threads are kept for the next stream (`_Readers`), so a call starts none.

Neither SDK is imported here: the SDK module is passed in by the adapter.
"""

from __future__ import annotations

import email.utils
import json
import os
import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from agent.cancel import CancelToken
from agent.errors import (
    AuthenticationError,
    PromptTooLongError,
    ProviderError,
    TransientProviderError,
    TurnCancelled,
    UnreachableProviderError,
)
from agent.messages import ProviderReply
from memory.redact import redact_url

# Error `type`/`code` values sent inside a 200 stream, mapped to the status they mean.
_TYPE_STATUS = {
    "rate_limit_error": 429,
    "rate_limit_exceeded": 429,
    "overloaded_error": 529,
    "api_error": 500,
    "server_error": 500,
    "timeout_error": 504,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "invalid_request_error": 400,
    "request_too_large": 413,
}
_TOO_LONG_MARKERS = (
    "prompt is too long",
    "context_length_exceeded",
    "maximum context length",
    "context window",
    "too many tokens",
)


@dataclass(frozen=True)
class SdkContext:
    """Who we were talking to, for messages and hints."""

    label: str  # "Anthropic" / "OpenAI"
    base_url: str
    key_env: str  # "ANTHROPIC_API_KEY" / "OPENAI_API_KEY"
    model: str = ""
    url_env: str = ""  # "ANTHROPIC_BASE_URL" / "OPENAI_BASE_URL"

    def __post_init__(self) -> None:  # shown in messages: never a password from the URL
        object.__setattr__(self, "base_url", redact_url(self.base_url))


def parse_retry_after(headers: Any) -> float | None:
    """Seconds to wait from `retry-after-ms` / `retry-after` (seconds or HTTP date)."""
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _error_fields(body: Any) -> tuple[str, str, str]:
    """(message, type, code) from an API error body (nested under "error" or not)."""
    if not isinstance(body, dict):
        return (str(body) if body else "", "", "")
    nested = body.get("error")
    inner: dict[str, Any] = nested if isinstance(nested, dict) else body
    message = inner.get("message") or ""
    return (str(message), str(inner.get("type") or ""), str(inner.get("code") or ""))


def classify_status(
    ctx: SdkContext,
    status: int,
    said: str,
    code: str = "",
    retry_after: float | None = None,
) -> ProviderError:
    """Map an HTTP status plus the provider's own words to our error family."""
    head = f"{ctx.label} API error {status}"
    quoted = f"{head}: {said}" if said else head
    low = f"{said} {code}".lower()
    if status in (400, 413) and any(marker in low for marker in _TOO_LONG_MARKERS):
        return PromptTooLongError(
            quoted, hint="Compress the conversation or start a new session.", status=status
        )
    if status == 429:
        return TransientProviderError(quoted, status=status, retry_after=retry_after)
    if status in (408, 425) or status >= 500:
        return TransientProviderError(quoted, status=status, retry_after=retry_after)
    if status in (401, 403):
        hint = (
            f"Set {ctx.key_env} (or `api_key` for this provider in config.yaml) to a key "
            f"that {ctx.base_url} accepts."
        )
        return AuthenticationError(quoted, hint=hint, status=status)
    if status == 404:
        hint = f"Check the model name ({ctx.model!r}) and the base URL ({ctx.base_url})."
        return ProviderError(quoted, hint=hint, status=status)
    if status == 402:
        return ProviderError(quoted, hint="Check the account's credits or billing.", status=status)
    if status == 413:
        return PromptTooLongError(quoted, hint="The request is too large.", status=status)
    return ProviderError(quoted, status=status)


def _causes(exc: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    while exc is not None and exc not in chain and len(chain) < 8:
        chain.append(exc)
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return chain


def _never_connected(exc: BaseException, httpx2: Any) -> bool:
    """Refused, unknown host, no route, a URL the client cannot use: no byte was sent.
    (A dropped or timed-out connection had connected: those stay retried.)"""
    return any(isinstance(e, httpx2.ConnectError | httpx2.UnsupportedProtocol)
               and not isinstance(e, httpx2.TimeoutException) for e in _causes(exc))


def _root(exc: BaseException) -> str:
    return str(_causes(exc)[-1]) or type(exc).__name__


def map_sdk_error(exc: BaseException, sdk: Any, ctx: SdkContext) -> ProviderError | None:
    """Translate `exc` raised by `sdk` (the imported SDK module); None if not ours to map."""
    import httpx2

    if isinstance(exc, sdk.APIConnectionError | httpx2.TransportError):
        timed_out = isinstance(exc, sdk.APITimeoutError | httpx2.TimeoutException)
        if not timed_out and _never_connected(exc, httpx2):
            error: TransientProviderError = UnreachableProviderError(
                f"{ctx.label} at {ctx.base_url}: cannot connect ({_root(exc)})")
            where = f"{ctx.url_env}, " if ctx.url_env else ""
            error.hint = (f"check the base URL ({where}--base-url or `base_url` in config.yaml), "
                          "or leave it out for the provider's default")
            return error
        what = "timed out" if timed_out else "connection failed or dropped"
        error = TransientProviderError(f"{ctx.label} at {ctx.base_url}: {what} ({exc})")
        if timed_out:
            error.hint = ("no data arrived within the provider timeout; set `timeout:` (seconds) "
                          "in config.yaml to wait longer or give up sooner")
        return error
    if isinstance(exc, sdk.APIStatusError):
        said, err_type, code = _error_fields(exc.body)
        said = said or str(exc.message)
        status = exc.status_code
        if status < 400:  # an error event inside a 200 stream
            status = _TYPE_STATUS.get(err_type) or _TYPE_STATUS.get(code) or 500
        retry_after = parse_retry_after(getattr(exc.response, "headers", None))
        return classify_status(ctx, status, said, code or err_type, retry_after)
    if isinstance(exc, sdk.APIError):  # openai: error payload inside the stream
        said, err_type, code = _error_fields(exc.body)
        status = _TYPE_STATUS.get(code) or _TYPE_STATUS.get(err_type) or 500
        if any(marker in f"{said} {code}".lower() for marker in _TOO_LONG_MARKERS):
            status = 400
        return classify_status(ctx, status, said or str(exc.message), code or err_type)
    if isinstance(exc, json.JSONDecodeError):  # `data: {not json` inside the stream
        return TransientProviderError(
            f"{ctx.label} at {ctx.base_url}: the response stream carried malformed JSON ({exc})")
    if isinstance(exc, UnicodeDecodeError):  # bytes that are not UTF-8 inside the stream
        return TransientProviderError(
            f"{ctx.label} at {ctx.base_url}: the response stream was not UTF-8 text "
            f"({exc.reason} at byte {exc.start})")
    base = getattr(sdk, "AnthropicError", None) or getattr(sdk, "OpenAIError", Exception)
    text = str(exc)
    lowered = text.lower()
    if isinstance(exc, TypeError | base) and ("authentication" in lowered or "credentials" in lowered):
        hint = f"Set {ctx.key_env} or `api_key` for this provider in config.yaml."
        return AuthenticationError(f"{ctx.label}: no usable API key ({text})", hint=hint)
    return None


class CancelledMidStream(TurnCancelled):
    """Cancelled after the provider had reported the prompt's usage: that prompt is
    billed, so `partial` (a ProviderReply of what arrived) lets the caller record it."""

    def __init__(self, partial: ProviderReply) -> None:
        super().__init__(partial=partial)
        self.partial: ProviderReply = partial


_ITEM, _END, _ERROR, _CANCELLED = range(4)


class _Reader:
    """A daemon thread that opens and drains one SDK stream into a queue."""

    def __init__(self, open_stream: Callable[[], Iterable[Any]], cancel: CancelToken) -> None:
        self.open_stream = open_stream
        self.cancel = cancel
        self.inbox: queue.SimpleQueue[tuple[int, Any]] = queue.SimpleQueue()
        self.stream: Any = None

    def close_stream(self) -> None:
        closer = getattr(self.stream, "close", None)
        if closer is None:
            return
        try:
            closer()
        except Exception:  # noqa: BLE001 - closing races with the reader thread
            return

    def abort(self) -> None:
        """Cancel callback: wake the consumer, then cut the HTTP read."""
        self.inbox.put((_CANCELLED, None))
        self.close_stream()

    def run(self) -> None:
        try:
            self.stream = self.open_stream()
            if self.cancel.cancelled:
                self.close_stream()
                return
            for item in self.stream:
                self.inbox.put((_ITEM, item))
                if self.cancel.cancelled:
                    return
            self.inbox.put((_END, None))
        except BaseException as exc:  # noqa: BLE001 - handed to the consuming thread
            self.inbox.put((_ERROR, exc))


class _Readers:
    """Daemon threads that run readers, each kept for the next one when done (a new
    thread per model call cost more than the hand-over). A reader still blocked on a
    cancelled stream's socket keeps its thread; another is started when none is idle."""

    def __init__(self) -> None:
        self.forked()

    def forked(self) -> None:
        """Start empty (also in a forked child, which has none of the parent's threads)."""
        self.pid = os.getpid()
        self.jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self.idle = threading.Semaphore(0)  # threads done with a job, waiting for the next

    def run(self, job: Callable[[], None]) -> None:
        if self.pid != os.getpid():
            self.forked()
        self.jobs.put(job)
        if not self.idle.acquire(blocking=False):
            threading.Thread(target=self._work, name="hermes-provider-stream",
                             daemon=True).start()

    def _work(self) -> None:
        jobs = self.jobs
        while True:
            jobs.get()()  # a reader's run() hands every exception to its consumer
            self.idle.release()


# a forked child (none of the parent's threads) finds out in run(), by its pid: an
# at-fork handler would run Python code in every command's pre-exec child too
_READERS = _Readers()


def read_stream(open_stream: Callable[[], Iterable[Any]], cancel: CancelToken) -> Iterator[Any]:
    """Yield the items of the SDK stream `open_stream()` returns, read in a daemon thread
    (one of `_READERS`).

    The request itself (connect, headers) also runs in the thread. When `cancel` trips,
    the stream is closed (best effort, from the cancelling thread) and TurnCancelled is
    raised here at once. Exceptions from the SDK are re-raised unmapped.
    """
    cancel.check()
    reader = _Reader(open_stream, cancel)
    remove = cancel.on_cancel(reader.abort)
    finished = False
    try:
        _READERS.run(reader.run)
        while True:
            kind, value = reader.inbox.get()
            if kind == _CANCELLED or cancel.cancelled:
                raise TurnCancelled()
            if kind == _ERROR:
                raise value
            if kind == _END:
                finished = True
                return
            yield value
    finally:
        remove()
        if not finished:
            reader.close_stream()


def _shaped(ctx: SdkContext, step: Callable[..., Any], *args: Any) -> Any:
    """Run one reading step (feed an event, map the reply): data of the wrong shape (a
    field missing or of another type) is a malformed stream, retried like one - never a
    traceback."""
    try:
        return step(*args)
    except (KeyError, IndexError, TypeError, AttributeError, ValueError) as exc:
        raise TransientProviderError(
            f"{ctx.label} at {ctx.base_url}: the response stream carried an event of the "
            f"wrong shape ({type(exc).__name__}: {exc})") from exc


def stream_reply(open_stream: Callable[[], Iterable[Any]], cancel: CancelToken, accumulator: Any,
                 sdk: Any, ctx: SdkContext, map_response: Callable[[dict[str, Any]], Any]) -> Iterator[Any]:
    """The shared body of both adapters' `stream()`: feed SDK events to `accumulator`,
    yield StreamText per text delta, map SDK errors, end with StreamDone. A cancel after
    the usage arrived raises CancelledMidStream carrying it."""
    from agent.errors import HermesError
    from agent.providers.base import StreamDone, StreamText

    try:
        for event in read_stream(open_stream, cancel):
            text = _shaped(ctx, accumulator.feed, event.model_dump())
            if text:
                yield StreamText(text) if isinstance(text, str) else text  # or StreamThinking
    except TurnCancelled:
        partial = accumulator.partial()
        if partial is None:
            raise
        raise CancelledMidStream(map_response(partial)) from None
    except HermesError:
        raise
    except Exception as exc:
        mapped = map_sdk_error(exc, sdk, ctx)
        if mapped is None:
            raise
        raise mapped from exc
    yield StreamDone(_shaped(ctx, map_response, accumulator.response()))
