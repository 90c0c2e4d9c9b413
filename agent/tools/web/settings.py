"""The `web:` section of config.yaml as typed settings (parsed by frontend/config/web_setup.py).

    web:
      allow_hosts: [intranet.example, 10.0.0.0/8]   # beyond public addresses (policy.py)
      search: {provider: searxng, url: http://127.0.0.1:8888}
      search: {provider: brave}                       # key: BRAVE_API_KEY (env or .env)

No `search:` -> no web_search tool in new sessions (the tool list is fixed per session).
`sandbox.network: off` -> neither web_fetch nor web_search in new sessions: they run in
hermes' own process, outside the sandbox's network namespace, so "off" must say so here
(frontend/web_setup.py decides it once, when the installation's settings are read).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agent.tools.web.policy import WebPolicy


@dataclass(frozen=True)
class SearchSettings:
    """One search backend: `provider` (searxng | brave), its base URL, its key."""

    provider: str
    url: str
    api_key: str | None = field(default=None, repr=False)


@dataclass(frozen=True)
class WebSettings:
    """The web tools' settings: where they may connect, which search backend (or none)."""

    policy: WebPolicy = field(default_factory=WebPolicy)
    search: SearchSettings | None = None
    network_off: bool = False  # `sandbox.network: off`: no web tool at all

    def unoffered(self) -> tuple[str, ...]:
        """Tools that are not offered with these settings (no backend: no web_search;
        the network off: neither web tool)."""
        if self.network_off:
            return ("web_fetch", "web_search")
        return () if self.search is not None else ("web_search",)
