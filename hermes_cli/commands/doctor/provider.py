"""The provider check: which key, read from where, and whether the provider accepts it.

One cheap authenticated call through the provider's own SDK (the base URL conventions
are the SDK's, as in a session): Anthropic's and OpenAI's `GET /v1/models`, Gemini's
models list. A refused key (401/403; Gemini's 400 API_KEY_INVALID) is "key rejected"
naming the variable and where it was read (the environment, HERMES_HOME/.env or
config.yaml); a connection that fails is "unreachable" naming the base URL and its
source. No retries: the SDK's `max_retries=0`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agent.providers import registry
from frontend.config.settings import ProviderChoice, Settings
from hermes_cli.commands.doctor.report import FAIL, INFO, OK, Result

NAME = "provider"
TIMEOUT = 8.0  # seconds for the models list (the check's deadline is a little longer)


@dataclass(frozen=True)
class Origins:
    """Where the key and the base URL came from, in words."""

    key: str  # "ANTHROPIC_API_KEY from the environment"
    url: str  # "http://... (ANTHROPIC_BASE_URL from HERMES_HOME/.env)"


def origins(settings: Settings, choice: ProviderChoice, before: Mapping[str, str],
            environ: Mapping[str, str]) -> Origins:
    """Where `choice`'s key and URL were read: config.yaml, the environment as it was
    before HERMES_HOME/.env was loaded (`before`), or that .env."""
    spec = registry.spec_for(choice.provider)
    dotenv = str(settings.home / ".env")

    def source(var: str) -> str:
        return "the environment" if before.get(var) else dotenv

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
        count = _models(choice)
    except Exception as exc:  # noqa: BLE001 - each SDK's errors, sorted below
        return _verdict(choice, where, exc)
    listed = f"{count} models listed" if count is not None else "no models list (key not checked)"
    return Result(NAME, OK if count is not None else INFO,
                  f"{choice.provider}: key accepted ({where.key}) at {where.url}; {listed}"
                  if count is not None else
                  f"{choice.provider}: {where.url} answers, but has no models list")


def _models(choice: ProviderChoice) -> int | None:
    """How many models the provider lists (None: it has no models list: a 404)."""
    adapter = registry.spec_for(choice.provider).adapter
    if "anthropic" in adapter:
        import anthropic

        with anthropic.Anthropic(api_key=choice.api_key, base_url=choice.base_url,
                                 max_retries=0, timeout=TIMEOUT) as client:
            try:
                return len(client.models.list(limit=20).data)
            except anthropic.NotFoundError:
                return None
    if "gemini" in adapter:
        from google import genai
        from google.genai import types

        gclient = genai.Client(api_key=choice.api_key, http_options=types.HttpOptions(
            base_url=choice.base_url, timeout=int(TIMEOUT * 1000)))
        try:
            return len(list(gclient.models.list(config={"page_size": 20}).page))
        finally:
            gclient.close()
    import openai

    with openai.OpenAI(api_key=choice.api_key, base_url=choice.base_url, max_retries=0,
                       timeout=TIMEOUT) as oclient:
        try:
            return len(oclient.models.list().data)
        except openai.NotFoundError:
            return None


def _status(exc: Exception) -> int | None:
    code = getattr(exc, "status_code", None) or getattr(exc, "code", None)
    return code if isinstance(code, int) else None


def _rejected(exc: Exception) -> bool:
    status, text = _status(exc), str(exc)
    return status in (401, 403) or status == 400 and (
        "API_KEY_INVALID" in text or "API key not valid" in text)


def _unreachable(exc: Exception) -> bool:
    names = {cls.__name__ for cls in type(exc).__mro__}
    return bool(names & {"APIConnectionError", "APITimeoutError", "ConnectError",
                         "ConnectTimeout", "ReadTimeout", "TimeoutException", "NetworkError",
                         "TransportError"}) or isinstance(exc, OSError | TimeoutError)


def _verdict(choice: ProviderChoice, where: Origins, exc: Exception) -> Result:
    spec = registry.spec_for(choice.provider)
    if _rejected(exc):
        return Result(NAME, FAIL, f"{choice.provider}: key rejected ({_status(exc)}): "
                                  f"{where.key}, at {where.url}",
                      f"put a valid key in {spec.key_var} there (`hermes setup` writes "
                      "HERMES_HOME/.env), or check that the base URL is this key's provider")
    if _unreachable(exc):
        return Result(NAME, FAIL, f"{choice.provider}: unreachable: {where.url} "
                                  f"({_short(exc)})",
                      f"check the address and your network; set {spec.url_var} or `base_url:` "
                      "to the right one, or remove it for the provider's default")
    return Result(NAME, FAIL, f"{choice.provider}: the models list failed at {where.url}: "
                              f"{_short(exc)}", "see the provider's status page, then retry")


def _short(exc: Any) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 120 else text[:117] + "..."
