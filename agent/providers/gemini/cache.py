"""Gemini's cache model (agent/providers/cache_model.py): style "resource".

A prefix is cached as a named `cachedContents` resource the adapter creates, references
by name, extends and deletes (`CacheResources`, adapter.py), billed per token-hour while
it lives; beside it the API's best-effort implicit cache. Which prefix gets a resource,
for how long, and when it goes, is decided per session at send time by the adapter's
planner (`cache_model.GeminiCaches`, `planner`): the request the caller builds names no
resource, and the keeper leaves it alone (`keep_warm` "provider"): the planner's TTL
update after each call is this cache's keep-warm (storage, no read).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from agent.providers.cache_model import TTLS, CacheHints, HintFacts, KeepWarm, RequestT, Style

# The miss causes hermes names for a Gemini request (the API reports none of its own).
CAUSES = {"cache_resource_gone": "the explicit cache expired or was deleted; it was read "
                                 "implicitly (or re-created) instead"}


@dataclass(frozen=True)
class GeminiCache:
    """The `CacheModel` of every Gemini model on `generateContent`."""

    style: Style = "resource"
    read_step: int = 0
    refresh_generates: bool = False  # a keep-warm is the adapter's TTL update
    keep_warm: KeepWarm = "provider"
    reports_writes: bool = False  # usageMetadata has no write count (a creation is ours)
    causes: Mapping[str, str] = field(default_factory=lambda: CAUSES)

    def lifetime(self, ttl: str) -> float:
        """Our "5m"/"1h" as a resource's TTL (the planner picks its own after a turn)."""
        return 3600.0 if ttl == "1h" else 300.0

    def write_lifetimes(self) -> tuple[str, str]:
        return TTLS

    def hints(self, facts: HintFacts) -> CacheHints:
        return CacheHints(key=facts.key, previous=facts.previous)

    def refresh(self, request: RequestT) -> RequestT:
        return replace(request, max_tokens=1)  # never asked: keep_warm is "provider"

    def options(self) -> str:
        return ("implicit, plus an explicit cachedContents resource of the frozen prefix "
                "when the planner expects it to pay (storage per token-hour)")


CACHE = GeminiCache()
