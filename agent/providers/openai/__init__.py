"""OpenAI (Chat Completions and the Responses API): the facts hermes keeps about it, as
one ProviderSpec.

The Chat Completions adapter is `adapter.py` (loaded on first use; it also serves every
OpenAI-compatible server, see `agent/providers/openai_compatible/`); the Responses
adapter is `responses.py` (mapping: `responses_map.py`), used on OpenAI's and Azure's
hosts or with `openai: {api: responses}` (`api_mode`).
"""

from __future__ import annotations

import re
from urllib.parse import urlparse

from agent.providers.cache_model import CacheModel
from agent.providers.openai.cache import openai_cache
from agent.providers.spec import ImageLimits, ProviderProfile, ProviderSpec

# `reasoning_effort` (openai SDK).
EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")

# OpenAI caches prompts of 1,024+ tokens on every model (docs/CACHING.md section 1, OpenAI).
MIN_CACHE_TOKENS = 1024

MODELS = tuple((model_id, MIN_CACHE_TOKENS) for model_id in (
    "gpt-5.6-sol", "gpt-5.6-terra", "gpt-5.6-luna", "gpt-5.5", "gpt-5.4", "gpt-5.4-mini", "gpt-5.4-nano", "gpt-5.2", "gpt-5.1", "gpt-5",
    "gpt-5-mini", "gpt-5-nano", "gpt-4.1", "gpt-4.1-mini", "gpt-4.1-nano", "gpt-4o",
    "gpt-4o-mini",
))

# Models offering extended prompt cache retention (`prompt_cache_retention: "24h"`, no
# extra charge; the openai SDK's completion_create_params documents the field).
EXTENDED_RETENTION_PREFIXES = ("gpt-5", "gpt-4.1")


# ---------------------------------------------------------------- images

def tile_tokens(width: int, height: int) -> int:
    """OpenAI's high-detail cost: 85 + 170 per 512-px tile, after the image is fitted
    into 2048 x 2048 and its short side to 768 (what `IMAGES` scales it to)."""
    return 85 + 170 * (-(-width // 512)) * (-(-height // 512))


# Vision (OpenAI's docs, "Images and vision"): at high detail an image is fitted into
# 2048 x 2048, then its short side to 768 px - more pixels are never seen; 20 MB per
# image (50 MB per request).
IMAGES = ImageLimits(max_edge=2048, short_edge=768, max_pixels=2048 * 768,
                     max_bytes=20 * 1024 * 1024, tokens=tile_tokens)
# Models known to take no images (a conservative list: any other model is sent the
# image and its server answers). Compatible servers inherit it.
_TEXT_ONLY = re.compile(r"^(?:openai/)?(?:gpt-3\.5|gpt-4(?:-\d{4})?$|o1-mini|o3-mini|"
                        r"text-|davinci|babbage)",
                        re.IGNORECASE)


def sees_images(model: str) -> bool:
    """False for the models known to be text-only; True otherwise."""
    return _TEXT_ONLY.match(model) is None


# ---------------------------------------------------------------- the wire API

API_MODES = ("auto", "responses", "chat")  # config.yaml `openai: {api: ...}`
SETTINGS_SECTION = "openai"  # config.yaml's section of these settings (and `store`)
# Hosts that serve the Responses API: OpenAI's own and Azure OpenAI's.
RESPONSES_HOSTS = ("api.openai.com", ".openai.azure.com", ".cognitiveservices.azure.com")
RESPONSES_ADAPTER = "agent.providers.openai.responses:OpenAIResponsesProvider"
_GPT_VERSION = re.compile(r"^(?:openai/)?gpt-(\d+)(?:\.(\d+))?")
_REASONING_MODEL = re.compile(r"^(openai/)?(gpt-5|o\d)", re.IGNORECASE)


def api_mode(provider: str, base_url: str | None, api: str = "auto") -> str:
    """"responses" or "chat-completions" for OpenAI's provider names. `api` is
    config.yaml's `openai: {api: ...}`: auto = Responses on OpenAI's and Azure's hosts
    (no base URL = OpenAI's), Chat Completions on every other server (llama.cpp, vLLM,
    Ollama, OpenRouter: `openai-compatible` names never auto-select Responses)."""
    if api == "responses":
        return "responses"
    if api == "chat" or provider.lower() != "openai":
        return "chat-completions"
    host = (urlparse(base_url).hostname or "") if base_url else "api.openai.com"
    return "responses" if host.endswith(RESPONSES_HOSTS) else "chat-completions"


def cache_controls(model: str) -> bool:
    """GPT-5.6 and later: `prompt_cache_options` and `prompt_cache_breakpoint` exist
    (earlier models refuse both with a 400)."""
    found = _GPT_VERSION.match(model.lower())
    return found is not None and (int(found.group(1)), int(found.group(2) or 0)) >= (5, 6)


def is_reasoning_model(model: str) -> bool:
    """OpenAI's reasoning models (GPT-5 family, o-series): `reasoning` and reasoning items."""
    return bool(_REASONING_MODEL.match(model))


RESPONSES_PROFILE = ProviderProfile(api_mode="responses", sdk_module="openai")
CHAT_PROFILE = ProviderProfile(
    api_mode="chat-completions", sdk_module="openai",
    prebuilt=("openai.types.chat:ChatCompletionChunk", "openai.types.chat:ParsedChatCompletion",
              "openai.types.chat.chat_completion_chunk:Choice",
              "openai.types.chat.chat_completion_chunk:ChoiceDelta",
              "openai.types.chat.parsed_chat_completion:ParsedChoice",
              "openai.types.chat.parsed_chat_completion:ParsedChatCompletionMessage"))


def cache_options(model: str) -> str:
    """What a person can set for `model`'s prompt cache (`hermes models`)."""
    if cache_controls(model):
        return "breakpoints + prompt_cache_options (30m/12h, prewarm, diagnostics; Responses)"
    if retention(model):
        return "automatic; prompt_cache_retention 24h"
    return "automatic"


def retention(model: str) -> bool:
    """24h retention on request for gpt-5/gpt-4.1 models before 5.6 (5.6+ lifetimes are
    `prompt_cache_options.ttl`: 30m/12h)."""
    return model.lower().startswith(EXTENDED_RETENTION_PREFIXES) and not cache_controls(model)


def cache_model(model: str, wire: str) -> CacheModel:
    """OpenAI's own cache models (agent/providers/openai/cache.py)."""
    return openai_cache(model, wire, controls=True, retention=retention, described=cache_options,
                        marks=cache_controls, reports_writes=False)


def cache_prices(input_price: float, model: str = "") -> dict[str, float]:
    """GPT-5.6+ bills writes (30m and 12h alike) 1.25x input and reads 0.1x; earlier
    models charge nothing extra for writes (billed as input) and, with no published
    cached-input price, give no read discount."""
    if cache_controls(model):
        return {"cache_read": 0.1 * input_price, "cache_write_5m": 1.25 * input_price,
                "cache_write_1h": 1.25 * input_price}
    return {"cache_read": input_price, "cache_write_5m": input_price,
            "cache_write_1h": input_price}


SPEC: ProviderSpec = ProviderSpec(
    name="openai",
    names=("openai",),
    label="OpenAI",
    adapter="agent.providers.openai.adapter:OpenAIProvider",
    profile=lambda model: CHAT_PROFILE,
    cache_model=cache_model,
    thinking_modes=lambda model: ("off",),  # no thinking setting beyond effort
    efforts=EFFORTS,
    key_var="OPENAI_API_KEY",
    url_var="OPENAI_BASE_URL",
    default_url="https://api.openai.com/v1",
    models_list_path="/models",
    keyless_with_url=True,
    # reasoning models think before their first chunk without streaming anything, and a
    # local server may prefill a long prompt on a CPU for minutes
    stall_timeout=300.0,
    setup_hint=("for a local OpenAI-compatible server use "
                "`hermes --provider openai --base-url http://127.0.0.1:8080/v1`"),
    price_ids=("openai",),
    cache_prices=cache_prices,
    price_note="OpenAI GPT-5.6+ writes 1.25x, reads 0.1x; earlier models write at the input price",
    models=MODELS,
    default_model="gpt-5.2",
    images=IMAGES,
    vision=sees_images,
)
