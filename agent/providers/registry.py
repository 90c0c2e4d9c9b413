"""The providers hermes knows, and every question the rest of the code asks about one.

A provider is one package under `agent/providers/` whose `__init__.py` declares a
`ProviderSpec` (see spec.py); it is registered by adding it to `SPECS` below. Nothing
outside `agent/providers/` checks a provider's or a model family's name: it asks here.

Two questions look alike and are kept apart:
- `spec_for(provider)`: the provider a session talks to (its adapter, profile, settings);
- `owner_of(model)`: the provider that makes a model (its catalogue entry, cache price
  rules) - a Claude model behind OpenRouter is served by one and owned by another.
"""

from __future__ import annotations

from agent.errors import ConfigError
from agent.providers.anthropic import SPEC as ANTHROPIC
from agent.providers.cache_model import CacheModel
from agent.providers.deepseek import SPEC as DEEPSEEK
from agent.providers.gemini import SPEC as GEMINI
from agent.providers.openai import CHAT_PROFILE, RESPONSES_ADAPTER, RESPONSES_PROFILE, api_mode
from agent.providers.openai import SPEC as OPENAI
from agent.providers.openai import cache_controls as openai_cache_controls
from agent.providers.openai_compatible import SPEC as OPENAI_COMPATIBLE
from agent.providers.spec import ImageLimits, ProviderProfile, ProviderSpec

# Order matters where settings pick a provider from the environment: the first whose
# key is set wins.
SPECS: tuple[ProviderSpec, ...] = (ANTHROPIC, OPENAI, GEMINI, DEEPSEEK, OPENAI_COMPATIBLE)
# Whose billing rules apply to a model nobody claims or lists (a local server's).
FALLBACK_OWNER = OPENAI

_BY_NAME = {name: spec for spec in SPECS for name in spec.names}


def names() -> tuple[str, ...]:
    """Every provider name settings accept."""
    return tuple(_BY_NAME)


def find(provider: str) -> ProviderSpec | None:
    """The spec serving `provider` (any accepted name, any case); None when unknown."""
    return _BY_NAME.get(provider.lower())


def label(provider: str) -> str:
    """How a person reads `provider`'s name ("OpenAI"); an unknown name as is."""
    spec = find(provider)
    return spec.label if spec is not None else provider


def spec_for(provider: str) -> ProviderSpec:
    """The spec serving `provider`; ConfigError (one line and a hint) when unknown."""
    spec = find(provider)
    if spec is None:
        raise ConfigError(f"unknown provider {provider!r}", hint=f"Use one of: {', '.join(names())}.")
    return spec


def profile_for(provider: str, model: str, api_mode: str | None = None) -> ProviderProfile:
    """What the wire supports for `model` served by `provider` over `api_mode` (see
    `wire_api`; None: the provider's default wire) - an unknown provider name is served
    like an OpenAI-compatible server: settings refuse it before any call."""
    spec = find(provider) or FALLBACK_OWNER
    if api_mode == "responses" and spec.adapter == OPENAI.adapter:
        return RESPONSES_PROFILE
    return spec.profile(model)


def cache_model(provider: str, model: str, wire: str | None = None) -> CacheModel:
    """How `model` served by `provider` over the wire API `wire` (None: the provider's
    default wire for the model) caches a prefix: the one question every room asks about
    a cache (agent/providers/cache_model.py)."""
    spec = find(provider) or FALLBACK_OWNER
    return spec.cache_model(model, wire or spec.profile(model).api_mode)


def maker_cache(owner: str, model: str) -> CacheModel:
    """The cache model of `model` at its maker (`owner`, as catalogues name it), over the
    wire its own endpoint speaks by default: what `hermes models` and /usage describe."""
    spec = owner_named(owner)
    return spec.cache_model(model, wire_api(spec.name, None))


def wire_api(provider: str, base_url: str | None, api: str = "auto") -> str:
    """The API a provider setting speaks: OpenAI's family picks Responses or Chat
    Completions (agent.providers.openai.api_mode), the others their own."""
    spec = find(provider) or FALLBACK_OWNER
    if spec.adapter == OPENAI.adapter:
        return api_mode(provider, base_url, api)
    return spec.profile("").api_mode


#: a session's wire API as `Choices.api` stores it ("" for a provider with one wire), and
#: as people read it in notices: the only place the OpenAI family's wire names are spelled
SESSION_APIS = {"responses": "responses", "chat-completions": "chat"}
API_LABELS = {"responses": "the Responses API", "chat": "Chat Completions"}


def session_api(wire: str) -> str:
    """`Choices.api` for a session on `wire` (wire_api's answer)."""
    return SESSION_APIS.get(wire, "")


def api_label(api: str) -> str:
    """A session's wire API (`Choices.api`) as a notice names it."""
    return API_LABELS.get(api, api)


def adapter_for(provider: str, base_url: str | None, api: str = "auto") -> str:
    """"module:Class" of the adapter for these settings (the spec's, or OpenAI's Responses
    adapter when the wire API is Responses)."""
    if wire_api(provider, base_url, api) == "responses":
        return RESPONSES_ADAPTER
    return spec_for(provider).adapter


def cache_controls(provider: str, model: str) -> bool:
    """GPT-5.6+ on OpenAI itself: `prompt_cache_options`/`prompt_cache_breakpoint` may be
    sent (never to earlier models, never to another server)."""
    return find(provider) is OPENAI and openai_cache_controls(model)


def thinking_modes(provider: str, model: str) -> tuple[str, ...]:
    """The thinking modes a request to `model` on `provider` may carry."""
    return (find(provider) or FALLBACK_OWNER).thinking_modes(model)


def efforts(provider: str) -> tuple[str, ...]:
    """The reasoning effort levels `provider` accepts."""
    return (find(provider) or FALLBACK_OWNER).efforts


def all_efforts() -> tuple[str, ...]:
    """Every effort level some provider accepts (what `/reasoning` parses)."""
    longest_first = sorted(SPECS, key=lambda spec: -len(spec.efforts))  # reads in order
    return tuple(dict.fromkeys(e for spec in longest_first for e in spec.efforts))


def catalogued() -> tuple[ProviderSpec, ...]:
    """The providers with a model catalogue of ours, in order."""
    return tuple(spec for spec in SPECS if spec.models)


def owner_named(name: str) -> ProviderSpec:
    """The spec of a model owner as catalogues and price data name it."""
    for spec in SPECS:
        if name == spec.name or name in spec.price_ids:
            return spec
    return FALLBACK_OWNER


def claimed_by(model: str) -> ProviderSpec:
    """The provider whose model ids look like `model` (a name check, no data), else the
    fallback owner."""
    return next((spec for spec in SPECS if spec.claims(model)), FALLBACK_OWNER)


def price_ids() -> tuple[str, ...]:
    """The genai-prices provider ids whose data hermes uses."""
    return tuple(pid for spec in SPECS for pid in spec.price_ids)


def cache_options(owner: str, model: str) -> str:
    """What a person can set for `model`'s prompt cache (`hermes models`); `owner` names
    the provider that makes it."""
    return maker_cache(owner, model).options()


def write_lifetimes(owner: str, model: str) -> tuple[str, str]:
    """What the short and long cache-write buckets mean for `model`: 5m/1h, or GPT-5.6's
    30m/12h."""
    return maker_cache(owner, model).write_lifetimes()


def image_limits(provider: str, model: str) -> ImageLimits:
    """What one image may be for `model` served by `provider`: the model's maker's limits
    (a Claude model behind OpenRouter is Anthropic's), else the serving provider's."""
    owner = next((spec for spec in SPECS if spec.claims(model)), None)
    return (owner or find(provider) or FALLBACK_OWNER).images


def sees_images(provider: str, model: str) -> bool:
    """Whether `model` takes images (each spec's conservative list of text-only models)."""
    owner = next((spec for spec in SPECS if spec.claims(model)), None)
    return (owner or find(provider) or FALLBACK_OWNER).vision(model)


def _profiles() -> tuple[ProviderProfile, ...]:
    found = [spec.profile("") for spec in SPECS] + [RESPONSES_PROFILE, CHAT_PROFILE]
    return tuple(dict.fromkeys(found))


def sdk_modules() -> tuple[str, ...]:
    """Every provider SDK's module, once each (what the warm start imports ahead)."""
    return tuple(dict.fromkeys(profile.sdk_module for profile in _profiles()))


def sdk_prebuilt() -> tuple[str, ...]:
    """Every "module:Model" of the SDKs whose schema the warm start builds ahead."""
    return tuple(dict.fromkeys(name for profile in _profiles() for name in profile.prebuilt))
