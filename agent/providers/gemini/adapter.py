"""Gemini adapter: the official `google-genai` SDK, streaming through
`streamGenerateContent` (SSE), with the explicit-cache model of `cache_model.py`.

The pure mapping is `wire.py`. The SDK is imported on the first request, never at
start-up (tests/test_startup_imports.py).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from agent.cancel import CancelToken
from agent.errors import (
    AuthenticationError,
    HermesError,
    ProviderError,
    TransientProviderError,
    UnreachableProviderError,
)
from agent.messages import Request
from agent.providers._client import CONNECT_TIMEOUT, LazyClient
from agent.providers._errors import SdkContext, classify_status, stream_reply
from agent.providers.base import Charge, ProviderSettings, Services, StreamDone, StreamItem
from agent.providers.gemini import wire
from agent.providers.gemini.cache_model import (
    CachedPrefix,
    CacheUse,
    GeminiCaches,
    no_prices,
    prefix_key,
    prefix_parts,
)
from agent.providers.gemini.cache_store import StoreLedger
from agent.providers.gemini.planner import Prices
from agent.providers.gemini.server_clock import ServerClock

GONE = "CachedContent not found"  # the API's words for a cache it no longer has
KEY_VARS = ("GEMINI_API_KEY", "GOOGLE_API_KEY")  # the SDK's own order of preference
URL_VAR = "GEMINI_BASE_URL"


class _Never(Exception):
    """Stands for the anthropic/openai SDK error classes `map_sdk_error` looks for:
    google-genai has none of them (its errors are mapped in `_mapped`)."""


class _SdkShape:
    APIConnectionError = APITimeoutError = APIStatusError = APIError = _Never


def api_key(settings: ProviderSettings, env: Any = os.environ) -> str | None:
    """The key: settings (config.yaml `api_key:`), else GEMINI_API_KEY, else GOOGLE_API_KEY."""
    return settings.api_key or next((env[v] for v in KEY_VARS if env.get(v)), None)


def _mapped(exc: BaseException, ctx: SdkContext) -> HermesError | None:
    """A google-genai or HTTP-library exception as our error family (None: not ours)."""
    from google.genai import errors as genai_errors

    if isinstance(exc, genai_errors.APIError):
        said = str(exc.message or exc.details or "")
        return classify_status(ctx, int(exc.code or 500), said, str(exc.status or ""))
    name = type(exc).__name__
    module = type(exc).__module__.split(".")[0]
    if module in ("httpx", "httpx2"):
        if name == "ConnectError":
            error = UnreachableProviderError(f"{ctx.label} at {ctx.base_url}: cannot connect ({exc})")
            error.hint = (f"check the base URL ({ctx.url_env}, --base-url or `base_url` in "
                          "config.yaml), or leave it out for the provider's default")
            return error
        what = "timed out" if "Timeout" in name else "connection failed or dropped"
        return TransientProviderError(f"{ctx.label} at {ctx.base_url}: {what} ({exc})")
    return None


class _Mapped:
    """An SDK stream whose errors come out as our error family; closable."""

    def __init__(self, opened: Iterable[Any], ctx: SdkContext) -> None:
        self._iter = iter(opened)
        self._ctx = ctx

    def __iter__(self) -> Iterator[Any]:
        return self

    def __next__(self) -> Any:
        try:
            return next(self._iter)
        except StopIteration:
            raise
        except Exception as exc:
            mapped = _mapped(exc, self._ctx)
            if mapped is None:
                raise
            raise mapped from exc

    def close(self) -> None:
        closer = getattr(self._iter, "close", None)
        if closer is not None:
            closer()


class GeminiProvider(LazyClient):
    """The Gemini API over google-genai: streamed replies, explicit caches planned."""

    name = "gemini"

    def __init__(self, settings: ProviderSettings) -> None:
        super().__init__(settings)
        self.server = ServerClock()
        self.caches = GeminiCaches(self, self.server)

    def _new_client(self) -> Any:
        from google import genai
        from google.genai import types

        key = api_key(self.settings)
        if not key:
            raise AuthenticationError(
                "Gemini: no API key", hint="Set GEMINI_API_KEY (or GOOGLE_API_KEY) or "
                                           "`api_key:` for this provider in config.yaml.")
        base_url = self.settings.base_url or os.environ.get(URL_VAR) or None
        # the SDK's timeout is one number (ms): the stall limit; connecting is bounded too
        timeout = max(self.settings.timeout, CONNECT_TIMEOUT)
        options = types.HttpOptions(base_url=base_url, timeout=int(timeout * 1000))
        return genai.Client(api_key=key, http_options=options)

    def _context(self, model: str = "") -> SdkContext:
        base_url = (self.settings.base_url or os.environ.get(URL_VAR)
                    or "the Gemini API")
        return SdkContext("Gemini", base_url, "GEMINI_API_KEY", model, url_env=URL_VAR)

    def stream(self, request: Request, cancel: CancelToken) -> Iterator[StreamItem]:
        """Stream one reply: text/thinking deltas, then StreamDone (see Provider). The
        cache model may first create or reuse an explicit cache of the frozen prefix;
        what that creation and its storage cost is added to the reply's usage. A cache
        the API no longer has (expired early, deleted by another process) is forgotten
        and the request sent once more without it, before anything was streamed. What
        the cache bills (its creation, storage) is a charge apart (`charges`): the
        reply's usage is the call's own."""
        use = self.caches.before(request)
        started = False
        try:
            for item in self._stream(request, use, cancel):
                started = True
                yield item
        except ProviderError as exc:
            if started or use is None or GONE not in exc.message:
                raise
            self.caches.gone(request)
            yield from self._stream(request, self.caches.before(request), cancel)

    def _stream(self, request: Request, use: CacheUse | None,
                cancel: CancelToken) -> Iterator[StreamItem]:
        ctx = self._context(request.model)
        kwargs = wire.map_request(request, use.name, use.skip) if use else wire.map_request(request)

        def open_stream() -> _Mapped:
            client = self._sdk_client()
            return _Mapped(client.models.generate_content_stream(**kwargs), ctx)

        for item in stream_reply(open_stream, cancel, wire.StreamAccumulator(), _SdkShape, ctx,
                                 wire.map_response):
            if isinstance(item, StreamDone):
                self.caches.after(request, item.reply.usage)
            yield item

    def use_clock(self, clock: Callable[[], float]) -> None:
        """Measure local time with `clock` (the bench: the fake server's clock)."""
        self.server.clock = clock
        self.caches.clock = clock

    # ------------------------------------------------ Resources (cache_model.py)
    def create(self, request: Request, seconds: float) -> CachedPrefix:
        """A `cachedContents` resource of `request`'s shared prefix, living `seconds`."""
        key = prefix_key(request)
        cache = self._sdk_client().caches.create(model=request.model, config={
            **prefix_parts(request), "ttl": f"{int(seconds)}s", "display_name": f"hermes-{key[:12]}"})
        return self._prefix(cache, request.model, key, seconds)

    def extend(self, name: str, seconds: float) -> CachedPrefix:
        """Set resource `name`'s TTL to `seconds` from now (a keep-warm: storage, no read)."""
        cache = self._sdk_client().caches.update(name=name, config={"ttl": f"{int(seconds)}s"})
        return self._prefix(cache, str(getattr(cache, "model", "") or ""), "", seconds)

    def delete(self, name: str) -> None:
        self.server.saw(self._sdk_client().caches.delete(name=name))

    def _prefix(self, cache: Any, model: str, key: str, seconds: float) -> CachedPrefix:
        self.server.saw(cache)
        usage = getattr(cache, "usage_metadata", None)
        expires = getattr(cache, "expire_time", None)
        return CachedPrefix(
            name=str(cache.name), model=model.removeprefix("models/"),
            tokens=int(getattr(usage, "total_token_count", 0) or 0),
            expires_at=expires.timestamp() if expires is not None else self.server.now() + seconds,
            key=key)

    # ------------------------------------------------ the lifecycle (base.SessionResources)
    def open(self, services: Services) -> None:
        """Share explicit caches through the session store (every process of the
        installation), not only within this process, and read a session's source there;
        plan them with the sessions' pause models and prices (without a pause model or
        a price the adapter caches implicitly only). Opened again (a gateway's shared
        adapter, a sub-agent's borrowed one), it keeps what it was first given."""
        handle = getattr(services.store, "handle", None)
        if handle is not None and not isinstance(self.caches.ledger, StoreLedger):
            self.caches.ledger = StoreLedger(handle)
            self.caches.store = services.store  # a session's source picks its pause prior
        if services.pauses is not None and self.caches.pauses is None:
            self.caches.pauses = services.pauses
        prices = services.prices
        if prices is not None and self.caches.prices is no_prices:

            def planned(model: str) -> Prices | None:
                found = prices(model)
                if found is None:
                    return None
                return Prices.per_million(found.input, found.cache_read, found.storage_hour)

            self.caches.prices = planned

    def charges(self, session_id: str | None) -> Charge | None:
        """What session `session_id`'s explicit cache billed since last asked: its
        creation (written tokens, billed as input) and storage (token-hours)."""
        return self.caches.charges(session_id)

    def settle(self, session_id: str | None, successor: str | None = None) -> Charge | None:
        """Session `session_id` is over on this adapter: its explicit cache is handed to
        `successor` (/new, compaction's child: kept while the prefix is the same), else
        released (deleted, or kept and billed to expiry); (what that bills, the model)."""
        return self.caches.settle(session_id, successor)

    def close(self) -> None:
        """Delete or keep the sessions' caches (the cache model decides), then release
        the HTTP connection pool."""
        try:
            self.caches.close()
        finally:
            super().close()

