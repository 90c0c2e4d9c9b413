"""config.yaml `web:` -> WebSettings (agent/tools/web/settings.py), one clear error each.

    web:
      allow_hosts: [intranet.example, 10.0.0.0/8]   # web_fetch beyond public addresses
      search: {provider: searxng, url: http://127.0.0.1:8888}
      search: {provider: brave}      # BRAVE_API_KEY from the environment or HERMES_HOME/.env
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

from agent.errors import ConfigError
from agent.sandbox.policy import SandboxSettings
from agent.tools.web.policy import parse_allow_hosts
from agent.tools.web.search import BRAVE_URL, PROVIDERS
from agent.tools.web.settings import SearchSettings, WebSettings

SEARCH_EXAMPLE = "for example `web: {search: {provider: searxng, url: http://127.0.0.1:8888}}`"


def web_settings(settings, sandbox: SandboxSettings | None = None) -> WebSettings:  # noqa: ANN001 - frontend.settings.Settings
    """The web tools' settings from config.yaml (and BRAVE_API_KEY from the environment);
    with the sandbox on and `sandbox.network: off`, no web tool is offered."""
    settings.get("web", None, kind=dict)  # `web: 5` is one clear error
    try:
        policy = parse_allow_hosts(settings.get("web.allow_hosts"))
    except ValueError as exc:
        raise ConfigError(str(exc), f"edit {settings.home / 'config.yaml'}") from None
    off = sandbox is not None and sandbox.enabled and sandbox.network == "off"
    return WebSettings(policy, _search(settings), network_off=off)


def _search(settings) -> SearchSettings | None:  # noqa: ANN001
    raw = settings.get("web.search", None, kind=dict)
    if raw is None:
        return None
    provider = raw.get("provider")
    if provider not in PROVIDERS:
        raise ConfigError(f"config.yaml: `web.search.provider` must be one of "
                          f"{', '.join(PROVIDERS)}, got {provider!r}", SEARCH_EXAMPLE)
    url = raw.get("url", BRAVE_URL if provider == "brave" else None)
    if not isinstance(url, str) or urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).hostname:
        raise ConfigError(f"config.yaml: `web.search.url` must be the http(s) URL of the "
                          f"{provider} server, got {url!r}", SEARCH_EXAMPLE)
    key = None
    if provider == "brave":
        key = os.environ.get("BRAVE_API_KEY", "").strip()
        if not key:
            raise ConfigError("config.yaml: `web.search.provider: brave` needs BRAVE_API_KEY",
                              f"put BRAVE_API_KEY=... in {settings.home / '.env'} or the environment")
    return SearchSettings(provider, url, key or None)
