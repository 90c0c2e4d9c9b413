"""Search backends for web_search: a self-hosted SearXNG (its JSON API) or Brave's API.

`search(settings, query, count) -> list[Hit]`. The backend's URL is the operator's own
setting (a SearXNG on the LAN is the usual case), so it is not judged by the web policy
the way a URL from the model is; no proxy from the environment, no redirects, a timeout.
Brave's key comes from BRAVE_API_KEY (environment or .env); its base URL can be set
(`web.search.url`), which is how tests point it at a local fake.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.errors import ToolError
from agent.tools.web.settings import SearchSettings

PROVIDERS = ("searxng", "brave")
BRAVE_URL = "https://api.search.brave.com"
TIMEOUT = 15.0
SNIPPET_CHARS = 300


@dataclass(frozen=True)
class Hit:
    title: str
    url: str
    snippet: str


def search(settings: SearchSettings, query: str, count: int = 8) -> list[Hit]:
    """Up to `count` results for `query` from the configured backend; ToolError when the
    backend fails (one line, naming the backend)."""
    import httpx  # lazy for start-up speed

    name = settings.provider
    try:
        with httpx.Client(trust_env=False, follow_redirects=False, timeout=TIMEOUT) as client:
            if name == "searxng":
                response = client.get(settings.url.rstrip("/") + "/search",
                                      params={"q": query, "format": "json"},
                                      headers={"Accept": "application/json"})
            else:
                response = client.get(settings.url.rstrip("/") + "/res/v1/web/search",
                                      params={"q": query, "count": count},
                                      headers={"Accept": "application/json",
                                               "X-Subscription-Token": settings.api_key or ""})
    except httpx.HTTPError as exc:
        raise ToolError(f"the {name} search backend at {settings.url} failed: "
                        f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}") from None
    if response.status_code != 200:
        hint = " (is `json` among SearXNG's `search.formats`?)" if name == "searxng" and response.status_code == 403 else ""
        raise ToolError(f"the {name} search backend answered HTTP {response.status_code}{hint}")
    try:
        data = response.json()
    except ValueError:
        raise ToolError(f"the {name} search backend answered something that is not JSON") from None
    rows = data.get("results") if name == "searxng" else (data.get("web") or {}).get("results")
    return [hit for hit in map(_hit, rows or []) if hit is not None][:count]


def _hit(row: object) -> Hit | None:
    if not isinstance(row, dict) or not isinstance(row.get("url"), str):
        return None
    snippet = row.get("content") or row.get("description") or ""
    snippet = " ".join(_plain(str(snippet)).split())
    if len(snippet) > SNIPPET_CHARS:
        snippet = snippet[: SNIPPET_CHARS - 3] + "..."
    return Hit(" ".join(_plain(str(row.get("title") or "")).split()), row["url"], snippet)


def _plain(text: str) -> str:
    """Brave marks matches with <strong>; entities and tags out."""
    import html
    import re

    return html.unescape(re.sub(r"<[^>]{0,200}>", "", text))


def render(query: str, provider: str, hits: list[Hit]) -> str:
    """The results as the model reads them: a numbered list of title, URL and snippet."""
    if not hits:
        return f"No results for {query!r} ({provider})."
    count = f"{len(hits)} result" + ("s" if len(hits) != 1 else "")
    lines = [f"Web search results for {query!r} ({provider}, {count}):"]
    for n, hit in enumerate(hits, 1):
        lines.append(f"\n{n}. {hit.title or '(no title)'}\n   {hit.url}")
        if hit.snippet:
            lines.append(f"   {hit.snippet}")
    return "\n".join(lines)
