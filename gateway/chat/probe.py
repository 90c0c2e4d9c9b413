"""Is each configured chat platform's token accepted? One authenticated call each, for
`hermes doctor`: Telegram `getMe`, Slack `auth.test`, Discord `GET /users/@me`, Matrix
`whoami` at `gateway.matrix.homeserver`, WhatsApp a GET of the phone number id - at
the configured `gateway.<platform>.base_url` (the fakes in tests), over httpx.

A platform is configured when its section is in config.yaml or its token is set (as
`gateway/chat/boot.py` starts them). `probes(settings)` names each with a function that
returns (ok, what it said); a refused token says which variable to fix.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from frontend.config.settings import Settings

# Function-level imports below: each platform's default URL lives with its adapter,
# whose SDK (python-telegram-bot, discord.py, slack) loads only for a configured one.

TIMEOUT = 8.0
Probe = Callable[[], tuple[bool, str]]


def _configured(settings: Settings, platform: str, *tokens: str) -> bool:
    return settings.get(f"gateway.{platform}") is not None or any(
        os.environ.get(t, "").strip() for t in tokens)


def probes(settings: Settings) -> list[tuple[str, str, Probe]]:
    """(platform, its token variable, the check) for each configured platform."""
    out: list[tuple[str, str, Probe]] = []
    if _configured(settings, "telegram", "TELEGRAM_BOT_TOKEN"):
        from gateway.chat.telegram import DEFAULT_BASE_URL as TELEGRAM

        base = settings.get("gateway.telegram.base_url", TELEGRAM, kind=str)
        out.append(("telegram", "TELEGRAM_BOT_TOKEN", functools.partial(_telegram, base)))
    if _configured(settings, "slack", "SLACK_BOT_TOKEN"):
        from gateway.chat.slack.adapter import DEFAULT_BASE_URL as SLACK

        base = settings.get("gateway.slack.base_url", SLACK, kind=str)
        out.append(("slack", "SLACK_BOT_TOKEN", functools.partial(_slack, base)))
    if _configured(settings, "discord", "DISCORD_BOT_TOKEN"):
        from gateway.chat.on_discord.client import DEFAULT_BASE_URL as DISCORD

        base = settings.get("gateway.discord.base_url", DISCORD, kind=str)
        out.append(("discord", "DISCORD_BOT_TOKEN", functools.partial(_discord, base)))
    if settings.get("gateway.matrix") is not None:
        base = str(settings.get("gateway.matrix.homeserver", "", kind=str))
        out.append(("matrix", "MATRIX_ACCESS_TOKEN", functools.partial(_matrix, base)))
    if settings.get("gateway.whatsapp") is not None:
        base = str(settings.get("gateway.whatsapp.base_url", "https://graph.facebook.com", kind=str))
        phone = str(settings.get("gateway.whatsapp.phone_number_id", "", kind=(str, int)))
        out.append(("whatsapp", "WHATSAPP_ACCESS_TOKEN", functools.partial(_whatsapp, base, phone)))
    return out


def _token(name: str) -> str:
    return os.environ.get(name, "").strip()


def _telegram(base: str) -> tuple[bool, str]:
    import httpx

    token = _token("TELEGRAM_BOT_TOKEN")
    if not token:
        return False, "TELEGRAM_BOT_TOKEN is not set"
    answer = httpx.post(f"{base.rstrip('/')}{token}/getMe", timeout=TIMEOUT)
    body = answer.json()
    if answer.status_code == 200 and body.get("ok"):
        return True, f"@{body['result'].get('username')} at {base}"
    return False, f"TELEGRAM_BOT_TOKEN refused by {base}: {body.get('description', answer.status_code)}"


def _slack(base: str) -> tuple[bool, str]:
    import httpx

    token = _token("SLACK_BOT_TOKEN")
    if not token:
        return False, "SLACK_BOT_TOKEN is not set"
    url = base if base.endswith("/") else base + "/"
    answer = httpx.post(url + "auth.test", headers={"Authorization": f"Bearer {token}"},
                        timeout=TIMEOUT)
    body = answer.json()
    if body.get("ok"):
        return True, f"{body.get('user')} in {body.get('team')} at {base}"
    return False, f"SLACK_BOT_TOKEN refused by {base}: {body.get('error', answer.status_code)}"


def _discord(base: str) -> tuple[bool, str]:
    import httpx

    token = _token("DISCORD_BOT_TOKEN")
    if not token:
        return False, "DISCORD_BOT_TOKEN is not set"
    answer = httpx.get(f"{base.rstrip('/')}/users/@me", headers={"Authorization": f"Bot {token}"},
                       timeout=TIMEOUT)
    if answer.status_code == 200:
        return True, f"{answer.json().get('username')} at {base}"
    return False, f"DISCORD_BOT_TOKEN refused by {base}: HTTP {answer.status_code}"


def _matrix(base: str) -> tuple[bool, str]:
    import httpx

    token = _token("MATRIX_ACCESS_TOKEN")
    if not token:
        return False, "MATRIX_ACCESS_TOKEN is not set"
    answer = httpx.get(f"{base.rstrip('/')}/_matrix/client/v3/account/whoami",
                       headers={"Authorization": f"Bearer {token}"}, timeout=TIMEOUT)
    body = answer.json()
    if answer.status_code == 200:
        return True, f"{body.get('user_id')} at {base}"
    return False, f"MATRIX_ACCESS_TOKEN refused by {base}: {body.get('errcode', answer.status_code)}"


def _whatsapp(base: str, phone: str) -> tuple[bool, str]:
    import httpx

    from gateway.chat.whatsapp.facts import API_VERSION

    token = _token("WHATSAPP_ACCESS_TOKEN")
    if not token:
        return False, "WHATSAPP_ACCESS_TOKEN is not set"
    answer = httpx.get(f"{base.rstrip('/')}/{API_VERSION}/{phone}",
                       headers={"Authorization": f"Bearer {token}"}, timeout=TIMEOUT)
    body = answer.json()
    if answer.status_code == 200:
        return True, f"{body.get('display_phone_number')} at {base}"
    error = body.get("error") or {}
    return False, (f"WHATSAPP_ACCESS_TOKEN or phone_number_id {phone} refused by {base}: "
                   f"{error.get('message', answer.status_code)}")
