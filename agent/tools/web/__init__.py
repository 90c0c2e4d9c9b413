"""The web tools' machinery (the tools themselves: agent/tools/web_fetch.py, web_search.py).

`policy` (where a fetch may connect: public addresses, plus config's `web.allow_hosts`),
`fetch` (`fetch_url`: GET one URL under the policy - every web read goes through it),
`extract` (HTML -> Markdown of the main content, text, JSON, PDF), `page` (what the
model reads, the session's copies, the injection scan), `search` (SearXNG, Brave),
`settings` (config.yaml `web:`). Nothing heavy is imported at import: httpx,
trafilatura and pypdf load on first use.
"""
