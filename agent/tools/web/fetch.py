"""GET one URL under the web policy: `fetch_url(url, policy, max_bytes) -> Fetched`.

The public entry point of every web read (web_fetch, and http image URLs). Each hop -
the URL and every redirect - is judged by `WebPolicy.target` before anything is sent,
and the connection goes to the address judged there: the request URL names that
address, the Host header and the TLS server name (httpx's `sni_hostname` extension,
so the certificate is checked against the name) carry the host name; when an address
cannot be reached, the next one the policy allowed is tried. Redirects are followed by
hand (at most MAX_REDIRECTS), no proxy from the environment is used, and the body is read in chunks up to `max_bytes` after decompression (a gzip bomb stops at
the cap) within one deadline for the whole fetch.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urljoin

from agent.errors import ToolError
from agent.tools.web.policy import Target, WebPolicy

if TYPE_CHECKING:
    import ssl

    import httpx

    from agent.cancel import CancelToken

MAX_BYTES = 5 * 1024 * 1024
MAX_REDIRECTS = 5
CONNECT_TIMEOUT, READ_TIMEOUT, DEADLINE = 10.0, 20.0, 45.0
USER_AGENT = "hermes-agent (web_fetch)"
ACCEPT = "text/html,application/xhtml+xml,text/plain,application/json,application/pdf;q=0.9,*/*;q=0.5"
REDIRECTS = frozenset({301, 302, 303, 307, 308})


@dataclass(frozen=True)
class Fetched:
    """A fetched body: bytes (at most the cap), media type (lowercase, no parameters),
    charset when the server named one, the URL after redirects, the HTTP status."""

    body: bytes
    content_type: str
    final_url: str
    status: int = 200
    charset: str | None = None
    truncated: bool = False


def fetch_url(url: str, policy: WebPolicy, max_bytes: int = MAX_BYTES, *,  # noqa: PLR0913
              accept: str = ACCEPT, deadline: float = DEADLINE, cancel: CancelToken | None = None,
              check: Callable[[str], None] | None = None,
              tls: ssl.SSLContext | None = None) -> Fetched:
    """GET `url` under `policy` (see the module docstring). Raises WebRefused for a hop
    the policy refuses and ToolError for every other failure, each one clear line; an
    HTTP error answer (4xx, 5xx) is returned, its `status` saying so.
    `check(url)` is called for every redirect's URL (permission rules); `cancel` is a
    CancelToken whose trip stops the read; `tls` replaces the default verifying context
    (the system's CA bundle) - a private CA, or a test's own certificate."""
    import httpx  # lazy for start-up speed: the REPL draws its prompt before httpx loads

    ends = time.monotonic() + deadline
    timeout = httpx.Timeout(READ_TIMEOUT, connect=CONNECT_TIMEOUT)
    with httpx.Client(trust_env=False, follow_redirects=False, timeout=timeout,
                      verify=tls or _tls()) as client:
        current = url
        for hop in range(MAX_REDIRECTS + 1):
            target = policy.target(current)
            if hop and check is not None:
                check(current)
            try:
                fetched, location = _get(client, target, accept, max_bytes, ends, cancel)
            except httpx.TimeoutException:
                raise ToolError(f"timed out fetching {current}") from None
            except httpx.HTTPError as exc:
                raise ToolError(f"could not fetch {current}: {_reason(exc)}") from None
            if location is None:
                return fetched
            current = urljoin(current, location)
    raise ToolError(f"too many redirects (more than {MAX_REDIRECTS}) from {url}")


def _send(client: httpx.Client, target: Target, accept: str, ends: float) -> httpx.Response:
    """The streamed response from the first of the target's addresses that answers."""
    import httpx  # already loaded by fetch_url

    headers = {"Host": target.host_header, "User-Agent": USER_AGENT, "Accept": accept,
               "Accept-Encoding": "gzip, deflate"}
    extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
    for n, address in enumerate(target.addresses):
        request = client.build_request("GET", target.url_for(address), headers=headers,
                                       extensions=extensions)
        try:
            return client.send(request, stream=True)
        except (httpx.ConnectError, httpx.ConnectTimeout):
            if n + 1 == len(target.addresses) or time.monotonic() > ends:
                raise
    raise AssertionError("a Target has at least one address")


def _get(client: httpx.Client, target: Target, accept: str, max_bytes: int, ends: float,
         cancel: CancelToken | None) -> tuple[Fetched, str | None]:
    response = _send(client, target, accept, ends)
    try:
        location = response.headers.get("location")
        if response.status_code in REDIRECTS and location:
            return Fetched(b"", "", target.url, response.status_code), location
        body, truncated = _read(response, max_bytes, ends, cancel)
        media, _, params = response.headers.get("content-type", "").partition(";")
        charset = None
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.lower() == "charset" and value:
                charset = value.strip("\"' ").lower()
        return Fetched(body, media.strip().lower(), target.url, response.status_code, charset,
                       truncated), None
    finally:
        response.close()


def _read(response: httpx.Response, max_bytes: int, ends: float, cancel: CancelToken | None) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
        if cancel is not None and cancel.cancelled:
            raise ToolError("the fetch was cancelled")
        if time.monotonic() > ends:
            raise ToolError("the fetch ran past its deadline and was stopped")
        chunks.append(chunk)
        size += len(chunk)
        if size >= max_bytes:
            return b"".join(chunks)[:max_bytes], True
    return b"".join(chunks), False


def _reason(exc: Exception) -> str:
    text = str(exc).strip() or type(exc).__name__
    return text.splitlines()[0][:300]


@functools.cache
def _tls() -> ssl.SSLContext:
    """One verifying TLS context for every fetch (building one costs milliseconds)."""
    import ssl  # lazy for start-up speed: agents are built before any fetch

    import certifi  # httpx's own CA bundle

    return ssl.create_default_context(cafile=certifi.where())
