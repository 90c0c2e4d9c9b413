"""Providers: one package per provider (its spec in `__init__.py`, its adapter beside
it), listed in `registry.py`. `make_provider` builds the adapter a setting names; SDKs
are imported only on first use."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent.providers.base import Provider, ProviderSettings

__all__ = ["make_provider"]


def make_provider(settings: ProviderSettings) -> Provider:
    """Build the adapter for `settings.provider` (no network, no SDK import yet); an
    unknown name raises ConfigError. The adapter module is named by the provider's spec
    and imported here, on first use (it imports its SDK on its first request)."""
    from agent.providers import registry

    adapter = registry.adapter_for(settings.provider, settings.base_url, settings.api)
    module, _, cls = adapter.partition(":")
    return getattr(importlib.import_module(module), cls)(settings)
