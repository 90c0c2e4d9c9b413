"""A fetched body as text the model can read: HTML as Markdown of its main content, text
and JSON as they are, PDF as its text.

HTML goes through trafilatura (chosen by measurement over readability + markdownify on
63 saved real pages: 73% of the expected article sentences kept against 59%, no
boilerplate line leaked against 4%, and no page lost whole). Its Markdown drops
scripts, styles, navigation, footers and comment sections; a `<pre>` without `<code>`
is marked as code first, or trafilatura would quote it and lose the fence. When it finds no main content (a tiny page), the visible
text of the body is used. trafilatura and pypdf are imported on first use.
"""

from __future__ import annotations

import html as htmllib
import io
import logging
import re

from agent.errors import ToolError
from agent.tools.web.fetch import Fetched

HTML = frozenset({"text/html", "application/xhtml+xml"})
JSON = re.compile(r"^application/(?:[\w.+-]+\+)?json$")
TEXTUAL = frozenset({"application/xml", "application/javascript", "application/x-yaml",
                     "application/yaml", "application/toml", "application/x-sh"})
_PRE = re.compile(r"<pre\b([^>]*)>(?!\s*<code)(.*?)</pre\s*>", re.S | re.I)
_META_CHARSET = re.compile(rb"<meta[^>]+charset=[\"']?([\w-]+)", re.I)
_TITLE = re.compile(r"<title[^>]*>(.*?)</title\s*>", re.S | re.I)
_QUIET = ("trafilatura", "htmldate", "courlan", "justext", "pypdf")


def readable(fetched: Fetched) -> tuple[str, str, str]:
    """(kind, title, text) of a fetched body; ToolError for a kind web_fetch cannot read."""
    media, body = fetched.content_type, fetched.body
    if media in HTML or (not media and body[:512].lstrip().lower().startswith((b"<!doctype html", b"<html"))):
        page = decode(body, fetched.charset, html=True)
        return "HTML page as Markdown", title_of(page), html_to_markdown(page, fetched.final_url)
    if media == "application/pdf" or body.startswith(b"%PDF-"):
        return "PDF as text", "", pdf_text(body, fetched.truncated)
    if JSON.match(media):
        return "JSON", "", decode(body, fetched.charset)
    if media.startswith("text/") or media in TEXTUAL or media.endswith("+xml") or not media:
        return media or "text", "", decode(body, fetched.charset)
    raise ToolError(f"{fetched.final_url} is {media} ({len(body):,} bytes), which web_fetch "
                    "does not read: it reads HTML, text, JSON and PDF")


def decode(body: bytes, charset: str | None, *, html: bool = False) -> str:
    """`body` as text: the server's charset, an HTML meta charset, else UTF-8 (invalid
    bytes replaced)."""
    if charset is None and html:
        found = _META_CHARSET.search(body[:4096])
        charset = found.group(1).decode("ascii").lower() if found else None
    try:
        return body.decode(charset or "utf-8", errors="replace")
    except LookupError:
        return body.decode("utf-8", errors="replace")


def title_of(page: str) -> str:
    found = _TITLE.search(page[:200_000])
    return " ".join(htmllib.unescape(found.group(1)).split())[:300] if found else ""


def html_to_markdown(page: str, url: str = "") -> str:
    """The main content of an HTML page as Markdown (see the module docstring)."""
    import trafilatura  # lazy: heavy, and needed only when a page is fetched

    _quiet()
    prepared = _PRE.sub(lambda m: f"<pre{m.group(1)}><code>{m.group(2)}</code></pre>", page)
    text = trafilatura.extract(prepared, url=url or None, output_format="markdown",
                               include_formatting=True, include_tables=True, include_links=True,
                               include_images=False, include_comments=False, deduplicate=False)
    return (text or _visible_text(page)).strip()


def _visible_text(page: str) -> str:
    """The body's visible text without scripts, styles, navigation, headers and footers."""
    from lxml import etree, html  # lazy: trafilatura's dependency

    try:
        tree = html.fromstring(page)
    except (etree.ParserError, ValueError):
        return ""
    for bad in tree.xpath("//script|//style|//noscript|//nav|//footer|//header|//aside|//template"):
        bad.drop_tree()
    lines = (" ".join(line.split()) for line in tree.text_content().splitlines())
    return "\n".join(line for line in lines if line)


def pdf_text(body: bytes, truncated: bool = False) -> str:
    """The text of a PDF, page by page."""
    import pypdf  # lazy: needed only for PDFs

    _quiet()
    try:
        reader = pypdf.PdfReader(io.BytesIO(body))
        pages = [page.extract_text() or "" for page in reader.pages]
    except Exception as exc:  # noqa: BLE001 - pypdf raises many kinds for a bad file
        cut = " (the download stopped at the size cap, so its end is missing)" if truncated else ""
        raise ToolError(f"the PDF could not be read{cut}: {type(exc).__name__}: {exc}") from None
    text = "\n\n".join(f"--- page {n} ---\n{t.strip()}" for n, t in enumerate(pages, 1))
    return text if any(t.strip() for t in pages) else "(the PDF has no text layer: scanned pages?)"


def _quiet() -> None:
    """Keep the extractors' log lines off the user's terminal (no handler = stderr)."""
    for name in _QUIET:
        logging.getLogger(name).setLevel(logging.CRITICAL)
