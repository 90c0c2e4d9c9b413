"""Is each configured chat platform's token accepted? One authenticated call each, for
`hermes doctor`, described by the platform's facts (`PlatformFacts.token_check`:
Telegram `getMe`, Slack `auth.test`, Discord `GET /users/@me`) at the configured
`gateway.<platform>.base_url` (the fakes in tests), over httpx.

A platform is configured as `gateway/chat/boot.py` starts it (`wanted`). `probes(settings)`
names each with a function that returns (ok, what it said); a refused token says which
variable to fix.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gateway.chat import platforms
from gateway.chat.boot import wanted

if TYPE_CHECKING:
    from frontend.config.settings import Settings
    from gateway.chat.kit.facts import PlatformFacts

TIMEOUT = 8.0
Probe = Callable[[], tuple[bool, str]]


def probes(settings: Settings) -> list[tuple[str, str, Probe]]:
    """(platform, its token variable, the check) for each configured platform."""
    out: list[tuple[str, str, Probe]] = []
    for facts in platforms.PLATFORMS:
        if wanted(settings, facts) or os.environ.get(facts.tokens[0], "").strip():
            base = settings.get(f"gateway.{facts.name}.{facts.url_key}", facts.base_url, kind=str)
            fields = {key: str(settings.get(f"gateway.{facts.name}.{key}", "") or "")
                      for key in facts.config_keys}  # a path may name them: WhatsApp's number
            out.append((facts.name, facts.tokens[0],
                        functools.partial(check, facts, base, fields)))
    return out


def _field(body: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        body = body.get(part) if isinstance(body, dict) else None
    return body


def check(facts: PlatformFacts, base: str, fields: dict[str, str] | None = None) -> tuple[bool, str]:
    """The token check of `facts` against `base` (see the module docstring); `fields`:
    the platform's config values a path may name (`{phone_number_id}`)."""
    import httpx  # start-up speed: only when doctor asks

    spec, variable = facts.token_check, facts.tokens[0]
    token = os.environ.get(variable, "").strip()
    if not token:
        return False, f"{variable} is not set"
    path = spec.path.format(**(fields or {}), token=token)
    if spec.path.startswith("{token}"):  # the token is part of the URL, glued to the base
        url = base.rstrip("/") + path
    else:
        url = base.rstrip("/") + "/" + path.lstrip("/")
    headers = {"Authorization": spec.auth.format(token=token)} if spec.auth else {}
    answer = httpx.request(spec.method, url, headers=headers, timeout=TIMEOUT)
    try:
        body = answer.json()
    except ValueError:
        body = {}
    if answer.status_code == 200 and (spec.ok_field is None or _field(body, spec.ok_field)):
        shown = re.sub(r"\{([\w.]+)\}", lambda m: str(_field(body, m[1])), spec.shows)
        return True, f"{shown} at {base}"
    why = _field(body, spec.error_field) if spec.error_field else None
    return False, f"{variable} refused by {base}: {why or f'HTTP {answer.status_code}'}"
