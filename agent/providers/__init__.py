"""Provider adapters. `make_provider` picks one; SDKs are imported only on first use."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent.providers.base import Provider, ProviderSettings

from agent.profile import ANTHROPIC_NAMES, OPENAI_NAMES

__all__ = ["ANTHROPIC_NAMES", "OPENAI_NAMES", "make_provider"]


def make_provider(settings: ProviderSettings) -> Provider:
    """Build the adapter for `settings.provider` (no network, no SDK import yet)."""
    name = settings.provider.lower()
    if name in ANTHROPIC_NAMES:
        from agent.providers.anthropic import AnthropicProvider

        return AnthropicProvider(settings)
    if name in OPENAI_NAMES:
        from agent.providers.openai import OpenAIProvider

        return OpenAIProvider(settings)
    from agent.errors import ConfigError

    known = ", ".join(ANTHROPIC_NAMES + OPENAI_NAMES)
    raise ConfigError(f"unknown provider {settings.provider!r}", hint=f"Use one of: {known}.")
