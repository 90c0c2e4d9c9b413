"""The SDK clients one agent talks through: one per provider settings its session has
used, made on first use and kept, so a session switched to another provider and back
(/model gpt-5.2, then /model claude-...) reuses the first client and its connections.

Which settings a call uses is the session's choice (`Choices.settings`: its provider,
and its wire API); this only holds the clients.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from agent.providers.base import Charge, Provider, ProviderSettings, Services, SessionResources


class Clients:
    """Adapters by settings (the model aside: it is per request)."""

    def __init__(self, make: Callable[[ProviderSettings], Provider],
                 given: Provider | None = None, services: Services | None = None) -> None:
        """`make`: settings -> a new (or lent) adapter; `given`: an adapter to use as is
        for the first settings asked (a sub-agent's parent's client); `services` (the
        store, each session's pause model, the prices) open an adapter that holds
        provider-side resources for its sessions (`SessionResources`, base.py: Gemini's
        explicit caches)."""
        self._make = make
        self._given = given
        self._services = services or Services()
        self._made: dict[ProviderSettings, Provider] = {}

    def get(self, settings: ProviderSettings) -> Provider:
        key = replace(settings, model="")
        client = self._made.get(key)
        if client is None:
            client, self._given = (self._given or self._make(settings)), None
            self._made[key] = client
            if isinstance(client, SessionResources):
                client.open(self._services)
        return client

    def charges(self, client: Provider, session_id: str) -> Charge | None:
        """What `client` billed for session `session_id` outside its calls since last
        asked (a cache's creation and storage), or None."""
        return client.charges(session_id) if isinstance(client, SessionResources) else None

    def settle(self, session_id: str, successor: str | None = None) -> list[Charge]:
        """Session `session_id` is over on these adapters (`successor`: the session going
        on in its place): what each bills for it outside calls, as (Usage, model)."""
        found = []
        for client in self._made.values():
            billed = (client.settle(session_id, successor)
                      if isinstance(client, SessionResources) else None)
            if billed:
                found.append(billed)
        return found

    @property
    def open(self) -> bool:
        """Whether a client was made and not closed yet."""
        return bool(self._made)

    def close(self) -> None:
        made, self._made = list(self._made.values()), {}
        for client in made:
            client.close()
