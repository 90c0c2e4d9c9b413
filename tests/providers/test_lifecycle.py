"""The provider lifecycle (agent/providers/base.py): an adapter holding resources for
sessions is opened with the agent's services also when it is lent (a gateway's shared
adapter, a sub-agent's), keeping what it was first given. Fast tier: no request."""

from __future__ import annotations

from agent.cache.pauses import session_pauses
from agent.cost import pricing
from agent.providers.base import ProviderSettings, Services
from agent.providers.clients import Clients
from agent.providers.gemini.adapter import GeminiProvider
from agent.subagent import Borrowed

SETTINGS = ProviderSettings("gemini", "gemini-3.5-flash", "k", "http://127.0.0.1:9")


def test_a_lent_adapter_is_opened_with_the_borrowers_services_once():
    shared = GeminiProvider(SETTINGS)
    first, second = session_pauses(), session_pauses()
    lent = Clients(lambda settings: Borrowed(shared), services=Services(None, first, pricing.prices))
    lent.get(SETTINGS)
    assert shared.caches.pauses is first  # the gateway's agents plan with a pause model
    assert shared.caches.prices("gemini-3.5-flash") is not None
    Clients(lambda settings: Borrowed(shared), services=Services(None, second)).get(SETTINGS)
    assert shared.caches.pauses is first  # a later borrower changes nothing
    shared.close()
