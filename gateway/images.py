"""Images a gateway client or chat sends: their bytes, before the agent scales them.

A `TurnRequest` carries `(name, source)` pairs: `source` is the bytes (a chat platform
downloaded them) or an `image_url` part's URL (the HTTP API). `load` runs in the turn's
worker thread: a `data:` URL is decoded here; an http(s) URL goes to `fetch_remote`,
which fetches it under the web policy (agent/tools/web: public addresses only, checked
before any packet and after every redirect, `web.allow_hosts` as exceptions, a download
cap) - the same rules as web_fetch. The agent then scales each image once to its
provider's limits (`AIAgent.attach_image`).
"""

from __future__ import annotations

from agent.errors import HermesError
from agent.images import ImageError, from_data_url
from agent.tools.web.fetch import fetch_url
from agent.tools.web.policy import WebPolicy

# An image_url part's URL: what the wire accepts (gateway/wire.py checks the shape).
SCHEMES = ("data:", "http://", "https://")


MAX_IMAGE_BYTES = 20 * 1024 * 1024  # of one fetched image (the largest a provider takes)


def fetch_remote(url: str, policy: WebPolicy) -> bytes:
    """The bytes of an http(s) image URL, fetched under the web policy (the same rules
    as web_fetch); ImageError (one line) when refused, failed, too large or no image."""
    hint = "send the image itself as a data: URL (data:image/png;base64,...)"
    try:
        got = fetch_url(url, policy, MAX_IMAGE_BYTES, accept="image/*")
    except HermesError as exc:
        raise ImageError(f"image URL not fetched: {exc.message}", hint) from None
    if got.status >= 400:
        raise ImageError(f"image URL not fetched: {url[:80]} answered HTTP {got.status}", hint)
    if got.truncated:
        raise ImageError(f"image URL not fetched: {url[:80]} is larger than "
                         f"{MAX_IMAGE_BYTES // 2**20} MB", hint)
    return got.body


def load(source: bytes | str, policy: WebPolicy | None = None) -> bytes:
    """The image bytes of one source; ImageError (one line) when they cannot be had.
    `policy`: the web policy an http(s) URL is fetched under (the default: public
    addresses only)."""
    if isinstance(source, bytes):
        return source
    if source.startswith("data:"):
        return from_data_url(source)[1]
    return fetch_remote(source, policy or WebPolicy())
