"""Which provider, model, key and base URL a run uses (`resolve_provider`).

Precedence: CLI flag > config.yaml > the provider's own env vars (its spec's `key_var` /
`url_var`, e.g. ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL, which may come from
HERMES_HOME/.env) > SDK defaults. A base URL set by env is never overridden by a
hard-coded one. Which providers exist and what they need: the registry
(agent/providers/registry.py).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from agent.errors import ConfigError
from agent.providers import registry
from frontend.config.settings import Settings, clip

NO_PROVIDER_HINT = "; ".join([
    f"set {' or '.join(dict.fromkeys(s.key_var for s in registry.SPECS))} (in your shell or "
    f"in {{home}}/.env), or put `provider: {'|'.join(s.name for s in registry.catalogued())}` "
    "and `api_key: ...` in {home}/config.yaml",
    *(s.setup_hint for s in registry.SPECS if s.setup_hint)])

@dataclass(frozen=True)
class ProviderChoice:
    """Resolved provider settings (key/base URL None -> the SDK reads its env).
    `warnings`: what the user should hear at start (a model sent to another provider)."""

    provider: str
    model: str
    api_key: str | None
    base_url: str | None
    warnings: tuple[str, ...] = ()


def _routes_any(provider: str | None) -> bool:
    """A router or local server (no endpoint of its own): it serves any model id."""
    spec = registry.find(provider) if provider else None
    return spec is not None and spec.needs_url


def _pick_provider(settings: Settings, provider: str | None, model: str | None,
                   env: Any) -> tuple[str | None, list[str]]:
    """Which provider: --provider > the provider a known model belongs to > config.yaml's
    `provider:` > the first provider whose key is set. Also the mismatch warnings."""
    from agent.providers import models

    configured = settings.get("provider", kind=str)
    inferred = models.known_provider(model) if model else None
    if provider:
        warnings = []
        if inferred and inferred != provider and not _routes_any(provider):
            warnings.append(f"{model} is an {registry.label(inferred)} model but --provider {provider} "
                            f"sends it to {registry.label(provider)}; "
                            f"drop --provider to use {inferred}")
        return provider, warnings
    if inferred and not _routes_any(configured):
        warnings = []
        if configured and configured != inferred:
            warnings.append(f"{model} is an {registry.label(inferred)} model: using provider {inferred}, not "
                            f"config.yaml's `provider: {configured}` (pass --provider to force it)")
        return inferred, warnings
    if configured:
        return configured, []
    name = next((s.name for s in registry.SPECS if s.key_in(env)), None)
    if name is None:  # a local server's URL alone
        name = next((s.name for s in registry.SPECS if s.keyless_with_url and env.get(s.url_var)), None)
    return name, []


def check_base_url(url: str, source: str) -> None:
    """An http(s) URL with a host and a valid port, or a ConfigError naming `source`
    (the flag, setting or variable it came from) - before any SDK sees it."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number 0-65535
        ok = parts.scheme in ("http", "https") and bool(parts.hostname)
        why = "it needs http:// or https:// and a host"
    except ValueError as exc:
        ok, why = False, str(exc)
    if not ok:
        raise ConfigError(f"{source} is not a usable URL: {clip(url)!r} ({why})",
                          f"fix {source}, e.g. https://api.example.com/v1 or "
                          "http://127.0.0.1:8080/v1, or leave it out for the provider's default")


def resolve_provider(settings: Settings, *, provider: str | None = None, model: str | None = None,
                     base_url: str | None = None, environ: dict[str, str] | None = None) -> ProviderChoice:
    """Apply the precedence rules; raise ConfigError saying exactly how to configure.
    config.yaml's `api_key:`/`base_url:` go with its `provider:` (or with any provider
    when it names none): a model inferred to be another provider's uses that one's env."""
    from agent.providers import models

    env = os.environ if environ is None else environ
    wanted = model or settings.get("model", kind=str)
    name, warnings = _pick_provider(settings, provider, wanted, env)
    if name is None:
        raise ConfigError("no provider configured", NO_PROVIDER_HINT.format(home=settings.home))
    if name not in registry.names():
        raise ConfigError(f"unknown provider '{name}'", f"choose one of: {', '.join(registry.names())}")
    spec = registry.spec_for(name)
    key_var, url_var = spec.key_var, spec.url_var
    own = settings.get("provider", kind=str) in (None, name)
    config_url = settings.get("base_url", kind=str) if own else None
    config_key = settings.get("api_key", kind=str) if own else None
    url = base_url or config_url or env.get(url_var) or None
    if url:
        source = ("--base-url" if base_url else "config.yaml `base_url`" if config_url
                  else url_var)
        check_base_url(url, source)
    key = config_key or spec.key_in(env) or None
    if spec.needs_url and not url:
        raise ConfigError(f"provider {name} needs a base URL (it has no default endpoint)",
                          f"pass --base-url, set {url_var} or `base_url:` in {settings.home}/config.yaml")
    if key is None and spec.keyless_with_url and url:
        key = "sk-no-key-required"  # local OpenAI-compatible servers (llama.cpp, Ollama)
    if key is None:
        raise ConfigError(f"missing API key for {name}" + (f" (the provider of {wanted})"
                                                            if wanted and not provider else ""),
                          f"set {key_var} (shell or {settings.home}/.env) or `api_key:` in "
                          f"{settings.home}/config.yaml")
    chosen = wanted or models.default_model(name)
    if not chosen:
        raise ConfigError(f"provider {name} needs a model name",
                          f"pass --model or set `model:` in {settings.home}/config.yaml")
    return ProviderChoice(name, chosen, key, url, tuple(warnings))
