"""Provider profiles: the one place that says what a provider and model family support.

Everything that used to be a name check scattered over the code lives here: how caching
is marked (explicit Anthropic `cache_control` breakpoints, or the provider's automatic
prefix caching), the read granularity of automatic caching, the wire API, and the SDK
module a front end may import ahead of the first call. Pure data; no SDK import.
"""

from __future__ import annotations

from dataclasses import dataclass

# Provider names accepted in settings; the OpenAI-compatible ones share one adapter.
ANTHROPIC_NAMES = ("anthropic",)
OPENAI_NAMES = ("openai", "openai-compatible", "openrouter", "deepseek", "llamacpp", "vllm", "ollama")

# OpenAI's automatic prefix caching reads in 128-token steps (CACHING.md section 1).
OPENAI_CACHE_STEP = 128


@dataclass(frozen=True)
class ProviderProfile:
    """What the wire supports for one provider + model family."""

    family: str  # "anthropic" | "openai": which adapter and which model catalogue
    api_mode: str  # "anthropic-messages" | "chat-completions"
    sdk_module: str  # the SDK imported on first use (warm-up imports it early)
    cache_markers: bool  # True: we place cache_control breakpoints; False: automatic caching
    read_step: int  # granularity of automatic reads; 0 = exact reads at breakpoints


def family(provider: str) -> str:
    """"anthropic" for the Messages API, "openai" for every Chat Completions server."""
    return "anthropic" if provider.lower() in ANTHROPIC_NAMES else "openai"


def is_claude(model: str) -> bool:
    """A Claude model id (served by Anthropic, or behind an OpenAI-compatible router)."""
    return "claude" in model.lower()


def profile_for(provider: str, model: str) -> ProviderProfile:
    """The profile of `model` served by `provider`.

    Claude models behind an OpenAI-compatible router (OpenRouter) still need explicit
    cache markers inside content parts and read exactly at them."""
    if family(provider) == "anthropic":
        return ProviderProfile("anthropic", "anthropic-messages", "anthropic", True, 0)
    markers = is_claude(model)
    return ProviderProfile("openai", "chat-completions", "openai", markers,
                           0 if markers else OPENAI_CACHE_STEP)


# OpenAI models offering extended prompt cache retention (`prompt_cache_retention: "24h"`,
# no extra charge; the openai SDK's completion_create_params documents the field).
EXTENDED_RETENTION_PREFIXES = ("gpt-5", "gpt-4.1")


def extended_retention(provider: str, model: str) -> bool | None:
    """Whether `model` on `provider` keeps its prompt cache 24h on request: True/False for
    OpenAI itself; None (unknown) for other OpenAI-compatible servers, which publish no
    retention facts; False for Anthropic (its TTLs are the cache markers')."""
    if family(provider) == "anthropic":
        return False
    if provider.lower() != "openai":
        return None
    return model.lower().startswith(EXTENDED_RETENTION_PREFIXES)


# Claude families that accept a thinking budget but not {"type": "adaptive"} (checked
# against the SDK's ThinkingTypes capability: `adaptive` is per model).
NO_ADAPTIVE_THINKING = ("claude-3-7", "sonnet-4-0", "sonnet-4-5", "opus-4-0", "opus-4-1",
                        "opus-4-5", "haiku-4-5", "sonnet-4-2025", "opus-4-2025")


def thinking_modes(provider: str, model: str) -> tuple[str, ...]:
    """The thinking modes a request may carry: Anthropic "off"/"budget"/"adaptive" (the
    latter on newer models); OpenAI-compatible servers have none beyond effort."""
    if family(provider) != "anthropic":
        return ("off",)
    name = model.lower().replace(".", "-")
    if any(old in name for old in NO_ADAPTIVE_THINKING):
        return ("off", "budget")
    return ("off", "budget", "adaptive")
