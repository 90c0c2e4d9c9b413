"""The SDK clients one agent talks through: one per provider settings its session has
used, made on first use and kept, so a session switched to another provider and back
(/model gpt-5.2, then /model claude-...) reuses the first client and its connections.

Which settings a call uses is the session's choice (`Choices.settings`: its provider,
and its wire API); this only holds the clients.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from agent.providers.base import Provider, ProviderSettings


class Clients:
    """Adapters by settings (the model aside: it is per request)."""

    def __init__(self, make: Callable[[ProviderSettings], Provider],
                 given: Provider | None = None, store: Any = None,
                 pauses: Callable[[str | None], Any] | None = None,
                 prices: Callable[[str], Any] | None = None) -> None:
        """`make`: settings -> a new (or lent) adapter; `given`: an adapter to use as is
        for the first settings asked (a sub-agent's parent's client); `store`,
        `pauses` (a session's source -> its pause model, agent/cache/idle_policy.py) and
        `prices` (model -> agent.cost.pricing.Prices) are offered to an adapter that
        plans provider-side cache resources with them (`use_store`, `use_pauses`,
        `use_prices`: Gemini's explicit caches)."""
        self._make = make
        self._given = given
        self._store = store
        self._pauses = pauses
        self._prices = prices
        self._made: dict[ProviderSettings, Provider] = {}

    def get(self, settings: ProviderSettings) -> Provider:
        key = replace(settings, model="")
        client = self._made.get(key)
        if client is None:
            client, self._given = (self._given or self._make(settings)), None
            self._made[key] = client
            use_store = getattr(client, "use_store", None)
            if use_store is not None and self._store is not None:
                use_store(self._store)
            for offer, given in (("use_pauses", self._pauses), ("use_prices", self._prices)):
                use = getattr(client, offer, None)
                if use is not None and given is not None:
                    use(given)
        return client

    def settle(self, session_id: str, successor: str | None = None) -> list[tuple[Any, str]]:
        """Session `session_id` is over on these adapters (`successor`: the session going
        on in its place): what each bills for it outside calls, as (Usage, model) - an
        adapter with provider-side resources (`settle`: Gemini's explicit caches)."""
        found = []
        for client in self._made.values():
            settle = getattr(client, "settle", None)
            billed = settle(session_id, successor) if settle is not None else None
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
