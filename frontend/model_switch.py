"""A known model picks its provider: which providers this installation can switch a
session to, and where `/model NAME` (or a gateway request's `model`) sends it.

- `configured_providers`: the settings of every catalogued provider whose key is set
  (environment, HERMES_HOME/.env, or config.yaml's `api_key:` under a `provider:` naming
  it), the session's default first; they become `AgentConfig.providers`.
- `destination`: a model another provider makes moves the session to that provider when
  it is configured, else is refused with the reason. A model nobody catalogues, or a
  session on an OpenAI-compatible server (which serves any name), stays where it is.
- `resumed_on`: a stored session resumes on its own model and provider when this
  installation has a key for it (the gateway's rebuild; the CLI's is
  `frontend.factory.session_flags`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from agent.config import AgentConfig
from agent.errors import ConfigError
from agent.providers import models, registry
from agent.providers.base import ProviderSettings
from frontend.config.openai_settings import openai_options
from frontend.config.provider_choice import check_base_url
from frontend.config.settings import Settings


def configured_providers(settings: Settings, chosen: ProviderSettings,
                         environ: Mapping[str, str] | None = None,
                         warnings: list[str] | None = None) -> tuple[ProviderSettings, ...]:
    """`chosen` (the session's default, flags applied) and every other catalogued
    provider with a key. config.yaml's `api_key:`/`base_url:` count only for the
    provider its `provider:` names (without one they belong to the default); a provider
    whose base URL is not usable is left out (switching to it is refused), said in
    `warnings`."""
    env = os.environ if environ is None else environ
    named = registry.find(settings.get("provider", kind=str) or "")
    found = [chosen]
    for spec in registry.catalogued():
        if registry.find(chosen.provider) is spec:
            continue
        own = named is spec
        key = (settings.get("api_key", kind=str) if own else None) or spec.key_in(env)
        if not key:
            continue
        config_url = settings.get("base_url", kind=str) if own else None
        url = config_url or env.get(spec.url_var) or None
        try:
            if url:
                check_base_url(url, "config.yaml `base_url`" if config_url else spec.url_var)
        except ConfigError as exc:
            if warnings is not None:
                warnings.append(f"{exc.message}: /model cannot move a session to {spec.label} "
                                "until it is fixed")
            continue
        timeout = float(settings.number("timeout", spec.stall_timeout, lo=0, above=True))
        found.append(ProviderSettings(spec.name, models.default_model(spec.name) or "", key, url,
                                      timeout=timeout, **openai_options(settings)))
    return tuple(found)


@dataclass(frozen=True)
class Destination:
    """Where a model switch goes: `provider`, or nowhere (`refusal` says why)."""

    provider: str
    refusal: str | None = None


def destination(name: str, current: str, config: AgentConfig) -> Destination:
    """Where `/model name` takes a session on `current` (see the module docstring)."""
    if models.serves(current, name):
        return Destination(current)
    owner = models.known_provider(name)
    assert owner is not None  # another provider makes it
    if config.settings_for(owner) is not None:
        return Destination(owner)
    spec, serving = registry.spec_for(owner), registry.spec_for(current)
    why = f"{name} is an {spec.label} model and this session talks to {serving.label}"
    if config.source == "gateway":
        return Destination(current, f"{why}; this gateway has no {spec.label} key configured")
    return Destination(current, f"{why}; hermes has no {spec.label} key: set {spec.key_var} "
                                f"(shell or {config.home / '.env'}) to switch to it")


def resumed_on(config: AgentConfig, row: dict[str, Any]) -> AgentConfig:
    """`config` with the stored session's model and provider as its defaults, when this
    installation has a key for that provider (else unchanged: the resume announces the
    switch to config's)."""
    stored = config.settings_for(row.get("provider") or "")
    if stored is None or not row.get("model"):
        return config
    return replace(config, provider=replace(stored, model=row["model"]))
