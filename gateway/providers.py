"""Provider adapters shared by the gateway's agents.

Each adapter owns an SDK client (an HTTP connection pool and a TLS context: ~1 MiB and
a new connection per client). Agents with the same provider, key, base URL and timeout
can use one adapter - the model is per request - so the gateway lends one to each agent
it builds. The agent's `close()` then returns the loan instead of closing the pool;
the gateway closes the pools at shutdown.
"""

from __future__ import annotations

import threading
from dataclasses import replace

from agent.providers import make_provider
from agent.providers.base import Provider, ProviderSettings
from agent.subagent import Borrowed


class SharedProviders:
    """One adapter per (provider, api key, base URL, timeout); thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._adapters: dict[ProviderSettings, Provider] = {}

    def lend(self, settings: ProviderSettings) -> Provider:
        """An adapter for `settings` whose close() leaves the shared pool open."""
        key = replace(settings, model="")
        with self._lock:
            adapter = self._adapters.get(key)
            if adapter is None:
                adapter = self._adapters[key] = make_provider(settings)
        return Borrowed(adapter)

    def close(self) -> None:
        with self._lock:
            adapters = list(self._adapters.values())
            self._adapters.clear()
        for adapter in adapters:
            adapter.close()
