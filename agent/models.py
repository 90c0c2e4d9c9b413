"""A small, dated catalogue of current models: context window, cache minimum, prices.

Prices are USD per million tokens as of `PRICES_AS_OF`; cache multipliers apply to
the model's input price (CACHING.md section 1). Unknown models get no price - cost is
then reported as unknown, never guessed. config.yaml `prices:` overrides (see pricing).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PRICES_AS_OF = "2026-11"
DEFAULT_MIN_CACHE_TOKENS = 1024
DEFAULT_CONTEXT_WINDOW = 128_000


@dataclass(frozen=True)
class ModelInfo:
    """What we know about one model id."""

    id: str
    provider: str  # "anthropic" | "openai"
    context_window: int
    min_cache_tokens: int
    input_price: float | None  # $ per million input tokens; None = not published/confirmed
    output_price: float | None  # $ per million output tokens
    cache_read_multiplier: float = 0.1
    write_5m_multiplier: float = 1.25
    write_1h_multiplier: float = 2.0


def _anthropic(
    model_id: str, window: int, min_cache: int, prices: tuple[float | None, float | None],
    read: float = 0.1,
) -> ModelInfo:
    return ModelInfo(model_id, "anthropic", window, min_cache, prices[0], prices[1], read)


def _openai(model_id: str, window: int, prices: tuple[float | None, float | None],
            read: float) -> ModelInfo:
    return ModelInfo(model_id, "openai", window, 1024, prices[0], prices[1], read)


_OPUS = (5.0, 25.0)
_SONNET = (3.0, 15.0)
_HAIKU = (1.0, 5.0)
# Fable and Mythos: no confirmed price, so none is listed - their cost shows as
# "unknown" until config.yaml `prices:` gives one (a guessed price would be a lie).
_UNPRICED = (None, None)
_FABLE = _UNPRICED
_MYTHOS = _UNPRICED
_1M = 1_000_000
_200K = 200_000

# Anthropic: the ids of anthropic/types/model_param.py that are not in
# anthropic/_data/deprecated_models.py. Cache minimums from CACHING.md; the ones it
# does not list (Sonnet 5.5, Haiku 5.5) assume their family's value - NEEDS CONFIRMATION.
# Context windows: 1M for Opus/Sonnet 4.6+ and the 5.x family (assumed), 200k for Haiku.
_ANTHROPIC = [
    _anthropic("claude-opus-5-5", _1M, 512, _OPUS, read=0.05),
    _anthropic("claude-opus-5", _1M, 512, _OPUS),
    _anthropic("claude-opus-4-8", _1M, 1024, _OPUS),
    _anthropic("claude-opus-4-7", _1M, 2048, _OPUS),
    _anthropic("claude-opus-4-6", _1M, 4096, _OPUS),
    _anthropic("claude-sonnet-5-5", _1M, 1024, _SONNET),
    _anthropic("claude-sonnet-5", _1M, 1024, _SONNET),
    _anthropic("claude-sonnet-4-6", _1M, 1024, _SONNET),
    _anthropic("claude-haiku-5-5", _200K, 4096, _HAIKU),
    _anthropic("claude-haiku-4-5", _200K, 4096, _HAIKU),
    _anthropic("claude-fable-5-2", _1M, 512, _FABLE),
    _anthropic("claude-fable-5-1", _1M, 512, _FABLE, read=0.025),
    _anthropic("claude-fable-5", _1M, 512, _FABLE),
    _anthropic("claude-mythos-5-2", _1M, 512, _MYTHOS),
    _anthropic("claude-mythos-5-1", _1M, 512, _MYTHOS),
    _anthropic("claude-mythos-5", _1M, 512, _MYTHOS),
]

# OpenAI: cached input 0.1x on GPT-5, 0.25x on GPT-4.1, 0.5x on GPT-4o (CACHING.md).
# gpt-5.4* and gpt-5.5: prices not confirmed, so not listed (cost "unknown" until
# config.yaml `prices:` sets them); the default OpenAI model is one with a known price.
_OPENAI = [
    _openai("gpt-5.5", _1M, _UNPRICED, 0.1),
    _openai("gpt-5.4", _1M, _UNPRICED, 0.1),
    _openai("gpt-5.4-mini", 400_000, _UNPRICED, 0.1),
    _openai("gpt-5.4-nano", 400_000, _UNPRICED, 0.1),
    _openai("gpt-5.2", 400_000, (1.75, 14.0), 0.1),
    _openai("gpt-5.1", 400_000, (1.25, 10.0), 0.1),
    _openai("gpt-5", 400_000, (1.25, 10.0), 0.1),
    _openai("gpt-5-mini", 400_000, (0.25, 2.0), 0.1),
    _openai("gpt-5-nano", 400_000, (0.05, 0.4), 0.1),
    _openai("gpt-4.1", 1_047_576, (2.0, 8.0), 0.25),
    _openai("gpt-4.1-mini", 1_047_576, (0.4, 1.6), 0.25),
    _openai("gpt-4.1-nano", 1_047_576, (0.1, 0.4), 0.25),
    _openai("gpt-4o", 128_000, (2.5, 10.0), 0.5),
    _openai("gpt-4o-mini", 128_000, (0.15, 0.6), 0.5),
]

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


def context_window(model: str, override: int | None = None) -> int:
    """The context window: `override` (from config) wins, then the catalogue, then 128k."""
    if override:
        return override
    info = lookup(model)
    return info.context_window if info else DEFAULT_CONTEXT_WINDOW


def min_cache_tokens(model: str) -> int:
    """The minimum cacheable prefix in tokens (1024 when the model is unknown)."""
    info = lookup(model)
    return info.min_cache_tokens if info else DEFAULT_MIN_CACHE_TOKENS
