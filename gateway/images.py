"""Images a gateway client or chat sends: their bytes, before the agent scales them.

A `TurnRequest` carries `(name, source)` pairs: `source` is the bytes (a chat platform
downloaded them) or an `image_url` part's URL (the HTTP API). `load` runs in the turn's
worker thread: a `data:` URL is decoded here; an http(s) URL goes to `fetch_remote`,
the one place the web policy's fetch (SSRF checks, `web.allow_hosts`, a download cap)
is wired in - until then it refuses with one clear error. The agent then scales each
image once to its provider's limits (`AIAgent.attach_image`).
"""

from __future__ import annotations

from agent.images import ImageError, from_data_url

# An image_url part's URL: what the wire accepts (gateway/wire.py checks the shape).
SCHEMES = ("data:", "http://", "https://")


def fetch_remote(url: str) -> bytes:
    """The bytes of an http(s) image URL, fetched under the web policy (the same rules
    as web_fetch). Not wired in this build: refused."""
    raise ImageError("http image URLs are fetched under the web policy: not available in "
                     f"this gateway yet ({url[:80]})",
                     "send the image itself as a data: URL (data:image/png;base64,...)")


def load(source: bytes | str) -> bytes:
    """The image bytes of one source; ImageError (one line) when they cannot be had."""
    if isinstance(source, bytes):
        return source
    if source.startswith("data:"):
        return from_data_url(source)[1]
    return fetch_remote(source)
