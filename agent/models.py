"""The models hermes offers per provider, and the facts that are ours: cache minimums.

Prices and context windows are not kept here: they come from genai-prices' bundled data
(agent/price_source.py, agent/pricing.py); config.yaml `prices:` / `context_windows:`
override them. A model the data does not know has no price (cost "unknown", never
guessed) and no known context window.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

DEFAULT_MIN_CACHE_TOKENS = 1024
DEFAULT_CONTEXT_WINDOW = 128_000


@dataclass(frozen=True)
class ModelInfo:
    """A model we offer: its provider and minimum cacheable prefix (tokens)."""

    id: str
    provider: str  # "anthropic" | "openai"
    min_cache_tokens: int

    @property
    def context_window(self) -> int:
        """The window genai-prices gives (loads it); 128k when its data has none."""
        return context_window(self.id)


def _anthropic(model_id: str, min_cache: int) -> ModelInfo:
    return ModelInfo(model_id, "anthropic", min_cache)


def _openai(model_id: str) -> ModelInfo:
    # OpenAI caches prompts of 1,024+ tokens on every model (CACHING.md section 1, OpenAI).
    return ModelInfo(model_id, "openai", 1024)


# Anthropic: the ids of anthropic/types/model_param.py that are not in
# anthropic/_data/deprecated_models.py. Cache minimums: CACHING.md section 1 ("Minimum
# cacheable prefix") lists 512 for Opus 5.5, Opus 5 and Fable/Mythos 5.x; 1,024 for
# Sonnet 5 and Sonnet 4.6 and Opus 4.8; 2,048 for Opus 4.7; 4,096 for Opus 4.6 and
# Haiku 4.5. It does not list Sonnet 5.5 and Haiku 5.5: they take their family's value
# (Sonnet 5: 1,024; Haiku 4.5: 4,096) - NEEDS CONFIRMATION.
_ANTHROPIC = [
    _anthropic("claude-opus-5-5", 512),
    _anthropic("claude-opus-5", 512),
    _anthropic("claude-opus-4-8", 1024),
    _anthropic("claude-opus-4-7", 2048),
    _anthropic("claude-opus-4-6", 4096),
    _anthropic("claude-sonnet-5-5", 1024),  # family value (Sonnet 5), not in CACHING.md
    _anthropic("claude-sonnet-5", 1024),
    _anthropic("claude-sonnet-4-6", 1024),
    _anthropic("claude-haiku-5-5", 4096),  # family value (Haiku 4.5), not in CACHING.md
    _anthropic("claude-haiku-4-5", 4096),
    _anthropic("claude-fable-5-2", 512),
    _anthropic("claude-fable-5-1", 512),
    _anthropic("claude-fable-5", 512),
    _anthropic("claude-mythos-5-2", 512),
    _anthropic("claude-mythos-5-1", 512),
    _anthropic("claude-mythos-5", 512),
]

_OPENAI = [_openai(model_id) for model_id in (
    "gpt-5.5", "gpt-5.4", "gpt-5.4-mini", "gpt-5.4-nano", "gpt-5.2", "gpt-5.1", "gpt-5",
    "gpt-5-mini", "gpt-5-nano", "gpt-4.1", "gpt-4.1-mini", "gpt-4.1-nano", "gpt-4o",
    "gpt-4o-mini",
)]

CATALOGUE: dict[str, ModelInfo] = {info.id: info for info in _ANTHROPIC + _OPENAI}
DEFAULT_MODELS = {"anthropic": "claude-sonnet-5-5", "openai": "gpt-5.2"}

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


def default_model(provider: str) -> str:
    """A current, non-deprecated default model id for `provider` ("anthropic"/"openai")."""
    return DEFAULT_MODELS.get(provider, DEFAULT_MODELS["openai"])


def known_context_window(model: str) -> int | None:
    """The context window genai-prices' data gives `model`; None when unknown."""
    from agent import price_source

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
    from agent import price_source  # loads the bundled price data only for unknown ids

    found = price_source.entry(model)
    return found.provider if found is not None else None
