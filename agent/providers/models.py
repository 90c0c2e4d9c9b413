"""The models hermes offers (listed by each provider's spec in agent/providers/), and
the facts that are ours: cache minimums.

Prices and context windows are not kept here: they come from genai-prices' bundled data
(agent/providers/price_source.py, agent/cost/pricing.py); config.yaml `prices:` / `context_windows:`
override them. A model the data does not know has no price (cost "unknown", never
guessed) and no known context window.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.providers import registry

DEFAULT_MIN_CACHE_TOKENS = 1024
DEFAULT_CONTEXT_WINDOW = 128_000


@dataclass(frozen=True)
class ModelInfo:
    """A model we offer: its provider and minimum cacheable prefix (tokens)."""

    id: str
    provider: str  # the registered provider that makes it
    min_cache_tokens: int

    @property
    def context_window(self) -> int:
        """The window genai-prices gives (loads it); 128k when its data has none."""
        return context_window(self.id)


# Each provider's spec lists the models we offer and their cache minimums.
CATALOGUE: dict[str, ModelInfo] = {
    model_id: ModelInfo(model_id, spec.name, min_cache)
    for spec in registry.catalogued() for model_id, min_cache in spec.models
}
DEFAULT_MODELS = {spec.name: spec.default_model for spec in registry.catalogued()}

# "-20251001" (Anthropic) or "-2025-08-07" (OpenAI) at the end of an id.
_DATED_SUFFIX = re.compile(r"-(?:\d{8}|\d{4}-\d{2}-\d{2})$")


def base_model_id(model: str) -> str:
    """`model` without a trailing date snapshot suffix."""
    return _DATED_SUFFIX.sub("", model)


def lookup(model: str) -> ModelInfo | None:
    """Catalogue entry for `model`: exact id, else without a dated suffix; else None."""
    info = CATALOGUE.get(model)
    if info is None:
        info = CATALOGUE.get(base_model_id(model))
    return info


def default_model(provider: str) -> str | None:
    """A current, non-deprecated default model id for `provider`; None when it has no
    catalogue of ours (an OpenAI-compatible server: the user names the model)."""
    spec = registry.find(provider)
    return (spec or registry.FALLBACK_OWNER).default_model


def known_context_window(model: str) -> int | None:
    """The context window genai-prices' data gives `model`; None when unknown."""
    from agent.providers import price_source

    return price_source.context_window(model)


def context_window(model: str, override: int | None = None) -> int:
    """The context window: `override` (from config) wins, then genai-prices, then 128k."""
    if override:
        return override
    return known_context_window(model) or DEFAULT_CONTEXT_WINDOW


def min_cache_tokens(model: str) -> int:
    """The minimum cacheable prefix in tokens (1024, the common minimum, when the model
    is not one we offer)."""
    info = lookup(model)
    return info.min_cache_tokens if info else DEFAULT_MIN_CACHE_TOKENS


def known_provider(model: str) -> str | None:
    """The provider a model we know belongs to (our catalogue, then genai-prices' data);
    None for a model neither knows (a local server's, a new one): no guess."""
    info = lookup(model)
    if info is not None:
        return info.provider
    from agent.providers import price_source  # loads the bundled price data only for unknown ids

    found = price_source.entry(model)
    return registry.owner_named(found.provider).name if found is not None else None


def serves(provider: str, model: str) -> bool:
    """Whether a session on `provider` may send `model`: one nobody is known to make, its
    maker itself, or any model on a server that is no catalogue owner (a router, a
    local server). False: another provider makes it (agent.session_edits.switch_model
    moves a session there; a fallback or compression model is not sent)."""
    owner = known_provider(model)
    spec = registry.find(provider)
    return owner is None or spec is None or spec.name == owner or spec not in registry.catalogued()
