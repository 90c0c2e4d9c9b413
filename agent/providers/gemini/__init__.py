"""Google Gemini (the Gemini API, `generateContent` / `streamGenerateContent`): the facts
hermes keeps about it, as one ProviderSpec.

The adapter is `adapter.py` (the official `google-genai` SDK, loaded on first use; the
pure wire mapping is `wire.py`). Gemini's third cache model - a best-effort implicit
cache plus explicit `cachedContents` resources billed per token-hour while they live -
is `cache.py` (its `CacheModel`, style "resource") and `cache_model.py` (the adapter's
explicit caches per session; the arithmetic: `planner.py`; who holds which cache, shared
by every session and process: `cache_store.py`).
Everything else the code asks about Gemini is declared here and read through the registry.
"""

from __future__ import annotations

from agent.providers.gemini.cache import CACHE
from agent.providers.spec import ImageLimits, ProviderProfile, ProviderSpec

# `thinking_config.thinking_level` (google-genai 3.6 `types.ThinkingLevel`, lower case
# here; the adapter sends it upper case).
EFFORTS = ("minimal", "low", "medium", "high")

# The smallest prefix an explicit cache (`cachedContents.create`) accepts: 4,096 tokens
# on the 3.x models, 2,048 on 2.5 (docs/CACHING.md section 1, Gemini). Below it hermes
# relies on the implicit cache only.
FLOOR_3X = 4096
FLOOR_25 = 2048

# The models we offer, with their explicit-cache floor. Ids as genai-prices 0.2.3's
# `google` provider lists them (so each is priced).
MODELS = (
    ("gemini-3.5-flash", FLOOR_3X),
    ("gemini-3.5-flash-lite", FLOOR_3X),
    ("gemini-3.1-pro-preview", FLOOR_3X),
    ("gemini-3.1-flash-lite", FLOOR_3X),
    ("gemini-3-pro-preview", FLOOR_3X),
    ("gemini-3-flash-preview", FLOOR_3X),
    ("gemini-2.5-pro", FLOOR_25),
    ("gemini-2.5-flash", FLOOR_25),
    ("gemini-2.5-flash-lite", FLOOR_25),
)

# Explicit-cache storage, $ per million tokens per hour alive. genai-prices has no
# storage price, so it is ours, from Google's pricing page
# (https://ai.google.dev/gemini-api/docs/pricing, "Context caching price ... storage
# price"): $4.50 / 1,000,000 tokens per hour on the Pro models, $1.00 on Flash and
# Flash-Lite (as of December 2026); change both here
# and in README.md ("Gemini") when Google changes them.
STORAGE_PER_MTOK_HOUR = (("pro", 4.50), ("flash", 1.00))
DEFAULT_STORAGE_PER_MTOK_HOUR = 4.50  # an unknown family: the dearer rate, never too low


def floor(model: str) -> int:
    """The explicit-cache floor of `model` (tokens): 2,048 on 2.5, else 4,096."""
    return FLOOR_25 if "2.5" in model or "2-5" in model else FLOOR_3X


def storage_price(model: str) -> float:
    """$ per million tokens per hour an explicit cache of `model` costs while it lives."""
    name = model.lower()
    return next((rate for family, rate in STORAGE_PER_MTOK_HOUR if family in name),
                DEFAULT_STORAGE_PER_MTOK_HOUR)


def is_gemini(model: str) -> bool:
    """A Gemini model id ("gemini-3.5-flash", "models/gemini-2.5-pro")."""
    return model.lower().removeprefix("models/").startswith("gemini")


def cache_prices(input_price: float, model: str = "") -> dict[str, float]:
    """Gemini: cached reads 0.1x input on 2.5 and 3.x (genai-prices lists them; this is
    the rule for a model it lacks); an explicit cache's creation is billed as input
    (1.0x), which is what a "write" is here - there is no 5m/1h split; its storage per
    million token-hours is ours (`storage_price`: genai-prices has none)."""
    return {"cache_read": 0.1 * input_price, "cache_write_5m": input_price,
            "cache_write_1h": input_price, "storage_hour": storage_price(model)}


def tile_tokens(width: int, height: int) -> int:
    """Gemini's image cost: 258 tokens up to 384 px on both sides, else 258 per 768-px
    tile (Gemini API docs, "Image understanding": token calculation)."""
    if width <= 384 and height <= 384:
        return 258
    return 258 * (-(-width // 768)) * (-(-height // 768))


# Vision: inline images of up to 20 MB per request (the Gemini API's inline-data limit);
# larger images are scaled by the API anyway, so we send at most 3,072 px on a side.
IMAGES = ImageLimits(max_edge=3072, max_pixels=3072 * 3072, max_bytes=20 * 1024 * 1024,
                     tokens=tile_tokens)

PROFILE = ProviderProfile(
    api_mode="gemini-generate", sdk_module="google.genai",
    prebuilt=tuple(f"google.genai.types:{name}" for name in (
        "GenerateContentResponse", "GenerateContentConfig", "Candidate", "Content", "Part",
        "Tool", "FunctionDeclaration", "HttpOptions", "HttpResponse",
        "GenerateContentResponseUsageMetadata")))

SPEC = ProviderSpec(
    name="gemini",
    names=("gemini", "google"),
    label="Gemini",
    adapter="agent.providers.gemini.adapter:GeminiProvider",
    profile=lambda model: PROFILE,
    cache_model=lambda model, wire: CACHE,
    thinking_modes=lambda model: ("off", "budget", "adaptive"),
    efforts=EFFORTS,
    key_var="GEMINI_API_KEY",
    alt_key_vars=("GOOGLE_API_KEY",),  # google-genai reads either
    url_var="GEMINI_BASE_URL",
    default_url="https://generativelanguage.googleapis.com",
    models_list_path="/v1beta/models",
    # thinking streams no text for a while: a long think shows as silence
    stall_timeout=300.0,
    price_ids=("google",),
    cache_prices=cache_prices,
    price_note=("Gemini reads 0.1x input; an explicit cache is written at 1x input and "
                "stored at $1.00 (Flash) / $4.50 (Pro) per MTok per hour"),
    models=MODELS,
    default_model="gemini-3.5-flash",
    claims=is_gemini,
    images=IMAGES,
)
