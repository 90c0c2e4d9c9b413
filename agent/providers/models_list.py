"""One cheap authenticated call per provider - its models list - through its own SDK
(the base URL conventions are the SDK's, as in a session): what `hermes doctor` and
`hermes setup` use to see that a key is accepted and the endpoint reachable.

Anthropic and OpenAI (and OpenAI-compatible servers): `GET /v1/models`; Gemini: its
models list. No retries. `rejected(exc)`: the provider refused the key (401/403, Gemini's
400 API_KEY_INVALID); `unreachable(exc)`: no connection or no answer in time.
"""

from __future__ import annotations

from typing import Any

from agent.providers import registry

#: the provider SDKs' distributions (their versions: `hermes doctor`)
SDK_DISTRIBUTIONS = ("anthropic", "openai", "google-genai")

# Function-level imports below: each SDK loads only for its own provider's check.


def endpoint(provider: str, base_url: str | None) -> str | None:
    """The URL a check calls: the one given, else the provider's own default (its spec's
    `credentials`) - an SDK several providers share (openai's) would
    otherwise call its own maker's."""
    return base_url or registry.spec_for(provider).credentials.default_url


def count(provider: str, api_key: str | None, base_url: str | None, timeout: float) -> int | None:
    """How many models the provider lists (a first page); None when the server has no
    models list (a 404: some local servers). Raises the SDK's error otherwise."""
    adapter, base_url = registry.spec_for(provider).adapter, endpoint(provider, base_url)
    if adapter == registry.spec_for("anthropic").adapter:
        import anthropic

        with anthropic.Anthropic(api_key=api_key, base_url=base_url, max_retries=0,
                                 timeout=timeout) as client:
            try:
                return len(client.models.list(limit=20).data)
            except anthropic.NotFoundError:
                return None
    if adapter == registry.spec_for("gemini").adapter:
        from google import genai
        from google.genai import types

        gclient = genai.Client(api_key=api_key, http_options=types.HttpOptions(
            base_url=base_url, timeout=int(timeout * 1000)))
        try:
            return len(list(gclient.models.list(config={"page_size": 20}).page))
        finally:
            gclient.close()
    import openai

    with openai.OpenAI(api_key=api_key, base_url=base_url, max_retries=0,
                       timeout=timeout) as oclient:
        try:
            return len(oclient.models.list().data)
        except openai.NotFoundError:
            return None


def status(exc: Exception) -> int | None:
    """The HTTP status of an SDK's error (None: no answer)."""
    code = getattr(exc, "status_code", None) or getattr(exc, "code", None)
    return code if isinstance(code, int) else None


def rejected(exc: Exception) -> bool:
    text = str(exc)
    return status(exc) in (401, 403) or status(exc) == 400 and (
        "API_KEY_INVALID" in text or "API key not valid" in text)


_NO_ANSWER = {"APIConnectionError", "APITimeoutError", "ConnectError", "ConnectTimeout",
              "ReadTimeout", "TimeoutException", "NetworkError", "TransportError"}


def unreachable(exc: Any) -> bool:
    names = {cls.__name__ for cls in type(exc).__mro__}
    return bool(names & _NO_ANSWER) or isinstance(exc, OSError | TimeoutError)
