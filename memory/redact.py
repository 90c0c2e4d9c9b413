"""Credentials out of URLs before they are shown or stored.

A base URL may carry a password (`https://user:secret@proxy/v1`) or a key in its query
(`?api_key=...`); `redact_url` keeps the scheme, host, port and path and replaces the
secret parts with `***`, so sessions rows, exports and error messages never hold them.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

MASK = "***"
_SECRET_PARAM = re.compile(r"key|token|secret|pass|auth|sig|credential", re.IGNORECASE)
_USERINFO = re.compile(r"(?<=://)[^/@\s]+@")


def redact_url(url: str | None) -> str | None:
    """`url` with userinfo and secret-looking query values masked; None stays None."""
    if not url or ("@" not in url and "=" not in url):
        return url
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:  # not a parseable URL: mask anything shaped like userinfo
        return _USERINFO.sub(f"{MASK}@", url)
    netloc = parts.netloc
    if parts.username is not None or parts.password is not None:
        netloc = f"{MASK}@{host}" + (f":{port}" if port else "")
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(_SECRET_PARAM.search(k) for k, _ in pairs):
            query = urlencode([(k, MASK if _SECRET_PARAM.search(k) else v) for k, v in pairs],
                              safe="*")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
