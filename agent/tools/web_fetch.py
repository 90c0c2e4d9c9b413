"""web_fetch: read a web page (HTML as Markdown, text, JSON, PDF) under the web policy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent.errors import ToolError
from agent.tools._common import opt_bool, opt_int
from agent.tools.registry import Tool, ToolContext, require
from agent.tools.web.extract import readable
from agent.tools.web.fetch import MAX_BYTES, fetch_url
from agent.tools.web.page import Page, SessionPages, make_page
from agent.tools.web.settings import WebSettings


def web_fetch(args: dict[str, Any], ctx: ToolContext) -> str:
    """The page at `url` from `start`: fetched once per session, then the session's copy
    (said so), unless `refresh` asks for it anew."""
    url = require(args, "url").strip()
    start = opt_int(args, "start", 0, 0, 10**12)
    pages = session_pages(ctx)
    if url not in pages.pages or opt_bool(args, "refresh"):
        pages.remember(url, _fetch(url, ctx))
    return pages.view(url, start)


def session_pages(ctx: ToolContext) -> SessionPages:
    """The session's copies of what its web tools read (made on first use)."""
    if ctx.state.web is None:
        ctx.state.web = SessionPages()
    return ctx.state.web


def settings_of(ctx: ToolContext) -> WebSettings:
    return ctx.web if isinstance(ctx.web, WebSettings) else WebSettings()


def _fetch(url: str, ctx: ToolContext) -> Page:
    fetched = fetch_url(url, settings_of(ctx).policy, MAX_BYTES, cancel=ctx.state.cancel,
                        check=lambda hop: _redirect_allowed(hop, ctx))
    if fetched.status >= 400:
        excerpt = " ".join(fetched.body[:300].decode("utf-8", errors="replace").split())
        raise ToolError(f"HTTP {fetched.status} from {fetched.final_url}"
                        + (f": {excerpt}" if excerpt else ""))
    kind, title, text = readable(fetched)
    return make_page(url, fetched.final_url, kind, title, text, fetched.truncated)


def _redirect_allowed(url: str, ctx: ToolContext) -> None:
    """The permission rules on a redirect's URL: deny refuses; ask sends the model back
    to fetch that URL itself, where the rule asks the person."""
    rules = ctx.permissions
    rule = rules.verdict("web_fetch", {"url": url}, Path(ctx.cwd)) if rules is not None else None
    if rule is None or rule.kind == "allow":
        return
    if rule.kind == "deny":
        raise ToolError(f"the page redirects to {url}, which the permission rule deny "
                        f"`{rule.text}` ({rule.source}) refuses")
    raise ToolError(f"the page redirects to {url}, which the permission rule ask `{rule.text}` "
                    "covers: call web_fetch on that URL if you need it (the user is asked)")


TOOL = Tool(
    name="web_fetch",
    toolset="web",
    description=(
        "Read a web page: HTML as Markdown of its main content, text and JSON as is, PDF as "
        "text. Public http(s) URLs only. Long pages come in windows: continue with 'start' "
        "(a character offset). A URL is fetched once per session, later calls read that "
        "copy; refresh fetches again. Use it, not curl, for pages the user names; cite the "
        "URL."
    ),
    parameters={
        "type": "object",
        "properties": {
            "url": {"type": "string"},
            "start": {"type": "integer"},
            "refresh": {"type": "boolean"},
        },
        "required": ["url"],
    },
    run=web_fetch,
    read_only=True,
    untrusted=True,
)
