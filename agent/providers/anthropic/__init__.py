"""Anthropic (the Messages API): the facts hermes keeps about it, as one ProviderSpec.

The adapter is `adapter.py` (loaded on first use); everything else the code asks about
Anthropic - cache markers, thinking modes, efforts, settings, prices, the models we
offer and their cache minimums - is declared here and read through the registry.
"""

from __future__ import annotations

from agent.providers.cache_model import PrefixCache
from agent.providers.spec import ImageLimits, ProviderProfile, ProviderSpec, pixel_tokens

# Effort is `output_config.effort` (anthropic 2.14).
EFFORTS = ("low", "medium", "high", "xhigh", "max")

# Claude families that accept a thinking budget but not {"type": "adaptive"} (checked
# against the SDK's ThinkingTypes capability: `adaptive` is per model).
NO_ADAPTIVE_THINKING = ("claude-3-7", "sonnet-4-0", "sonnet-4-5", "opus-4-0", "opus-4-1",
                        "opus-4-5", "haiku-4-5", "sonnet-4-2025", "opus-4-2025")

# The ids of anthropic/types/model_param.py that are not in
# anthropic/_data/deprecated_models.py. Cache minimums (docs/CACHING.md section 1, "Minimum
# cacheable prefix"): 512 for Opus 5.5, Opus 5 and Fable/Mythos 5.x; 1,024 for Sonnet 5
# and Sonnet 4.6 and Opus 4.8; 2,048 for Opus 4.7; 4,096 for Opus 4.6 and Haiku 4.5.
# Sonnet 5.5 and Haiku 5.5 are not listed there: they take their family's value
# (Sonnet 5: 1,024; Haiku 4.5: 4,096) - NEEDS CONFIRMATION.
MODELS = (
    ("claude-opus-5-5", 512),
    ("claude-opus-5", 512),
    ("claude-opus-4-8", 1024),
    ("claude-opus-4-7", 2048),
    ("claude-opus-4-6", 4096),
    ("claude-sonnet-5-5", 1024),  # family value (Sonnet 5), not in the table
    ("claude-sonnet-5", 1024),
    ("claude-sonnet-4-6", 1024),
    ("claude-haiku-5-5", 4096),  # family value (Haiku 4.5), not in the table
    ("claude-haiku-4-5", 4096),
    ("claude-fable-5-2", 512),
    ("claude-fable-5-1", 512),
    ("claude-fable-5", 512),
    ("claude-mythos-5-2", 512),
    ("claude-mythos-5-1", 512),
    ("claude-mythos-5", 512),
)

PROFILE = ProviderProfile(
    api_mode="anthropic-messages", sdk_module="anthropic",
    prebuilt=tuple(f"anthropic.types:{name}" for name in (
        "RawMessageStartEvent", "RawMessageDeltaEvent", "RawMessageStopEvent",
        "RawContentBlockStartEvent", "RawContentBlockDeltaEvent", "RawContentBlockStopEvent")))
# Anthropic caches where `cache_control` marks end an entry, for 5 minutes or an hour;
# reads are exact at the marks; its TTLs are the marks' (no retention setting). A
# keep-warm sends `max_tokens: 0`: the Messages API reference says "Set to `0` to populate
# the prompt cache without generating a response" (prompt-caching#pre-warming-the-cache),
# so it costs the read alone (no output token).
CACHE = PrefixCache("markers", retention=False, refresh_generates=False, zero_output=True)


# Vision (Anthropic's docs): an image over 1,568 px on its long edge or ~1.15 megapixels
# is scaled down by the API anyway (the bytes are paid for, the pixels are not seen);
# 5 MB per image (the base64 text). Tokens ~ width * height / 750. Every Claude model
# we offer (3.x and later) takes images.
IMAGES = ImageLimits(max_edge=1568, max_pixels=1_150_000, max_bytes=5 * 1024 * 1024,
                     tokens=pixel_tokens)


def is_claude(model: str) -> bool:
    """A Claude model id (served by Anthropic, or behind an OpenAI-compatible router)."""
    return "claude" in model.lower()


def thinking_modes(model: str) -> tuple[str, ...]:
    """"off"/"budget", plus "adaptive" on the newer models."""
    name = model.lower().replace(".", "-")
    if any(old in name for old in NO_ADAPTIVE_THINKING):
        return ("off", "budget")
    return ("off", "budget", "adaptive")


def cache_prices(input_price: float, model: str = "") -> dict[str, float]:
    """Anthropic bills 5m writes 1.25x input, 1h writes 2x, reads 0.1x (docs/CACHING.md section 1)."""
    return {"cache_read": 0.1 * input_price, "cache_write_5m": 1.25 * input_price,
            "cache_write_1h": 2.0 * input_price}


SPEC = ProviderSpec(
    name="anthropic",
    names=("anthropic",),
    label="Anthropic",
    adapter="agent.providers.anthropic.adapter:AnthropicProvider",
    profile=lambda model: PROFILE,
    cache_model=lambda model, wire: CACHE,
    thinking_modes=thinking_modes,
    efforts=EFFORTS,
    key_var="ANTHROPIC_API_KEY",
    url_var="ANTHROPIC_BASE_URL",
    default_url="https://api.anthropic.com",
    models_list_path="/v1/models",
    # once the prompt is read the stream keeps moving (thinking deltas, `ping` events)
    stall_timeout=120.0,
    price_ids=("anthropic",),
    cache_prices=cache_prices,
    price_note="Anthropic writes 1.25x (5m) / 2x (1h) input, reads 0.1x",
    models=MODELS,
    default_model="claude-sonnet-5-5",
    claims=is_claude,
    images=IMAGES,
)
