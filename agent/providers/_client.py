"""The SDK client an adapter owns: created on first use, under a lock (the gateway shares
one adapter across threads), released by close()."""

from __future__ import annotations

import threading
from typing import Any

from agent.providers.base import ProviderSettings

# Seconds to open the TCP (and TLS) connection: a reachable API answers in well under a
# second; the read timeout (`ProviderSettings.timeout`) is the stream's stall limit.
CONNECT_TIMEOUT = 10.0


def sdk_timeout(sdk: Any, settings: ProviderSettings) -> Any:
    """The SDK's Timeout: connect within CONNECT_TIMEOUT, then abandon a stream that sends
    nothing for `settings.timeout` seconds."""
    return sdk.Timeout(settings.timeout, connect=min(CONNECT_TIMEOUT, settings.timeout))


class LazyClient:
    """Base of the adapters: `_new_client()` builds the SDK client (subclasses)."""

    def __init__(self, settings: ProviderSettings) -> None:
        self.settings = settings
        self._client: Any = None
        self._client_lock = threading.Lock()

    def _new_client(self) -> Any:
        raise NotImplementedError

    def _sdk_client(self) -> Any:
        """The SDK client, created once."""
        with self._client_lock:
            if self._client is None:
                self._client = self._new_client()
            return self._client

    def close(self) -> None:
        """Release the HTTP connection pool."""
        with self._client_lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()
