"""OpenAI (Chat Completions): the facts hermes keeps about it, as one ProviderSpec.

The adapter is `adapter.py` (loaded on first use; it also serves every
OpenAI-compatible server, see `agent/providers/openai_compatible/`).
"""

from __future__ import annotations

from agent.providers.anthropic import is_claude
from agent.providers.spec import ProviderProfile, ProviderSpec

# `reasoning_effort` (openai SDK).
EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")

# OpenAI's automatic prefix caching reads in 128-token steps (CACHING.md section 1).
CACHE_STEP = 128

# OpenAI caches prompts of 1,024+ tokens on every model (CACHING.md section 1, OpenAI).
MIN_CACHE_TOKENS = 1024

MODELS = tuple((model_id, MIN_CACHE_TOKENS) for model_id in (
    "gpt-5.5", "gpt-5.4", "gpt-5.4-mini", "gpt-5.4-nano", "gpt-5.2", "gpt-5.1", "gpt-5",
    "gpt-5-mini", "gpt-5-nano", "gpt-4.1", "gpt-4.1-mini", "gpt-4.1-nano", "gpt-4o",
    "gpt-4o-mini",
))

# Models offering extended prompt cache retention (`prompt_cache_retention: "24h"`, no
# extra charge; the openai SDK's completion_create_params documents the field).
EXTENDED_RETENTION_PREFIXES = ("gpt-5", "gpt-4.1")


def profile(model: str) -> ProviderProfile:
    """Automatic prefix caching in 128-token steps - except Claude models behind an
    OpenAI-compatible router (OpenRouter), which still need explicit cache markers inside
    content parts and read exactly at them."""
    markers = is_claude(model)
    return ProviderProfile(api_mode="chat-completions", sdk_module="openai", cache_markers=markers,
                           read_step=0 if markers else CACHE_STEP)


def cache_prices(input_price: float) -> dict[str, float]:
    """No extra charge for writes (billed as input) and, with no published cached-input
    price, no read discount."""
    return {"cache_read": input_price, "cache_write_5m": input_price,
            "cache_write_1h": input_price}


SPEC = ProviderSpec(
    name="openai",
    names=("openai",),
    label="OpenAI",
    adapter="agent.providers.openai.adapter:OpenAIProvider",
    profile=profile,
    thinking_modes=lambda model: ("off",),  # no thinking setting beyond effort
    efforts=EFFORTS,
    retention=lambda model: model.lower().startswith(EXTENDED_RETENTION_PREFIXES),
    key_var="OPENAI_API_KEY",
    url_var="OPENAI_BASE_URL",
    keyless_with_url=True,
    # reasoning models think before their first chunk without streaming anything, and a
    # local server may prefill a long prompt on a CPU for minutes
    stall_timeout=300.0,
    setup_hint=("for a local OpenAI-compatible server use "
                "`hermes --provider openai --base-url http://127.0.0.1:8080/v1`"),
    price_ids=("openai",),
    cache_prices=cache_prices,
    price_note="OpenAI writes at the input price",
    reports_cache_writes=False,  # only reads: writes are billed as input
    models=MODELS,
    default_model="gpt-5.2",
)
