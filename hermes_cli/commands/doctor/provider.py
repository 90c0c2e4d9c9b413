"""The provider check: which key, read from where, and whether the provider accepts it.

One cheap authenticated call: the provider's models list (agent/providers/models_list.py,
through its SDK). A refused key (401/403; Gemini's 400 API_KEY_INVALID) is "key rejected"
naming the variable and where it was read (the environment, HERMES_HOME/.env or
config.yaml); a connection that fails is "unreachable" naming the base URL and its
source. No retries: the SDK's `max_retries=0`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agent.providers import models_list, registry
from frontend.config.dotenv_rules import from_dotenv
from frontend.config.provider_choice import ProviderChoice
from frontend.config.settings import Settings
from hermes_cli.commands.doctor.report import FAIL, INFO, OK, Result

NAME = "provider"
TIMEOUT = 8.0  # seconds the models list may wait on the network (the SDK's timeout)
#: the check's deadline: the network's TIMEOUT plus importing the SDK, ~3 s of CPU that a
#: loaded machine (2 cores, load 8) stretches to 12 s of wall time (measured)
DEADLINE = TIMEOUT + 30.0


@dataclass(frozen=True)
class Origins:
    """Where the key and the base URL came from, in words."""

    key: str  # "ANTHROPIC_API_KEY from the environment"
    url: str  # "http://... (ANTHROPIC_BASE_URL from HERMES_HOME/.env)"


def origins(settings: Settings, choice: ProviderChoice, environ: Mapping[str, str]) -> Origins:
    """Where `choice`'s key and URL were read: config.yaml, the environment, or
    HERMES_HOME/.env (`frontend.config.dotenv_rules.from_dotenv`)."""
    spec = registry.spec_for(choice.provider)

    def source(var: str) -> str:
        return str(settings.home / ".env") if from_dotenv(var) else "the environment"

    own = settings.get("provider", kind=str) in (None, choice.provider)
    if own and settings.get("api_key", kind=str):
        key = f"`api_key` in {settings.home / 'config.yaml'}"
    else:
        var = next((v for v in (spec.key_var, *spec.alt_key_vars) if environ.get(v)), spec.key_var)
        key = f"{var} from {source(var)}" if environ.get(var) else "no key (a local server)"
    if choice.base_url is None:
        url = "the provider's default endpoint"
    elif own and settings.get("base_url", kind=str):
        url = f"{choice.base_url} (`base_url` in {settings.home / 'config.yaml'})"
    else:
        url = f"{choice.base_url} ({spec.url_var} from {source(spec.url_var)})"
    return Origins(key, url)


def check(choice: ProviderChoice, where: Origins) -> Result:
    """List the models with the key; the verdict as one line and its fix."""
    try:
        count = models_list.count(choice.provider, choice.api_key, choice.base_url, TIMEOUT)
    except Exception as exc:  # noqa: BLE001 - each SDK's errors, sorted below
        return _verdict(choice, where, exc)
    listed = f"{count} models listed" if count is not None else "no models list (key not checked)"
    return Result(NAME, OK if count is not None else INFO,
                  f"{choice.provider}: key accepted ({where.key}) at {where.url}; {listed}"
                  if count is not None else
                  f"{choice.provider}: {where.url} answers, but has no models list")


def _verdict(choice: ProviderChoice, where: Origins, exc: Exception) -> Result:
    spec = registry.spec_for(choice.provider)
    if models_list.rejected(exc):
        return Result(NAME, FAIL, f"{choice.provider}: key rejected ({models_list.status(exc)}): "
                                  f"{where.key}, at {where.url}",
                      f"put a valid key in {spec.key_var} there (`hermes setup` writes "
                      "HERMES_HOME/.env), or check that the base URL is this key's provider")
    if models_list.unreachable(exc):
        return Result(NAME, FAIL, f"{choice.provider}: unreachable: {where.url} "
                                  f"({_short(exc)})",
                      f"check the address and your network; set {spec.url_var} or `base_url:` "
                      "to the right one, or remove it for the provider's default")
    return Result(NAME, FAIL, f"{choice.provider}: the models list failed at {where.url}: "
                              f"{_short(exc)}", "see the provider's status page, then retry")


def _short(exc: Any) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 120 else text[:117] + "..."
