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
from agent.providers.openai import SPEC as OPENAI
from agent.providers.openai_compatible import SPEC as OPENAI_COMPATIBLE
from agent.providers.spec import ProviderProfile, ProviderSpec

# Order matters where settings pick a provider from the environment: the first whose
# key is set wins.
SPECS: tuple[ProviderSpec, ...] = (ANTHROPIC, OPENAI, OPENAI_COMPATIBLE)
# Whose billing rules apply to a model nobody claims or lists (a local server's).
FALLBACK_OWNER = OPENAI

_BY_NAME = {name: spec for spec in SPECS for name in spec.names}


def names() -> tuple[str, ...]:
    """Every provider name settings accept."""
    return tuple(_BY_NAME)


def find(provider: str) -> ProviderSpec | None:
    """The spec serving `provider` (any accepted name, any case); None when unknown."""
    return _BY_NAME.get(provider.lower())


def spec_for(provider: str) -> ProviderSpec:
    """The spec serving `provider`; ConfigError (one line and a hint) when unknown."""
    spec = find(provider)
    if spec is None:
        raise ConfigError(f"unknown provider {provider!r}", hint=f"Use one of: {', '.join(names())}.")
    return spec


def profile_for(provider: str, model: str) -> ProviderProfile:
    """What the wire supports for `model` served by `provider` (an unknown provider name
    is served like an OpenAI-compatible server: settings refuse it before any call)."""
    return (find(provider) or FALLBACK_OWNER).profile(model)


def extended_retention(provider: str, model: str) -> bool | None:
    """Whether `model` on `provider` keeps its prompt cache 24h on request: True/False
    where the provider publishes it, None (unknown) where it does not."""
    return (find(provider) or FALLBACK_OWNER).retention(model)


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
