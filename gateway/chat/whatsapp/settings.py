"""WhatsApp's settings: the three secrets and `gateway: whatsapp:` in config.yaml.

    gateway:
      whatsapp:
        phone_number_id: "106540352242922"    # WhatsApp Manager > API Setup
        allowed_users: ["15550001111"]        # deny by default: numbers, country code first
        base_url: https://graph.facebook.com  # the Graph API
        listen: 127.0.0.1:8080                # --no-api only: where the webhook is served
Secrets: WHATSAPP_ACCESS_TOKEN (a system user's token), WHATSAPP_APP_SECRET (signs the
webhooks), WHATSAPP_VERIFY_TOKEN (your choice, typed into the webhook's setup) in the
environment or HERMES_HOME/.env. WhatsApp starts when the section is there.
"""

from __future__ import annotations

import os
import re
import sys
from typing import TYPE_CHECKING

from agent.errors import ConfigError
from gateway.chat.base import Adapter, ChatPolicy
from gateway.chat.whatsapp.facts import BASE_URL, TOKENS, USER_ID

if TYPE_CHECKING:
    from frontend.config.settings import Settings
    from gateway.chat.kit.facts import PlatformFacts
    from gateway.chat.whatsapp.adapter import WhatsAppAdapter


def number(value: object, where: str) -> str:
    """A phone number as WhatsApp writes it (digits only): "+1 555-000-1111" -> 15550001111."""
    digits = re.sub(r"[\s()+.-]", "", str(value)) if isinstance(value, (str, int)) else ""
    if not re.match(USER_ID, digits):
        raise ConfigError(f"{where} holds {value!r}, not a phone number",
                          'write numbers with their country code, e.g. "15550001111"')
    return digits


def _listen(settings: Settings) -> tuple[str, int]:
    value = str(settings.get("gateway.whatsapp.listen", "127.0.0.1:8080", kind=(str, int)))
    host, _, port = value.rpartition(":")
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"gateway.whatsapp.listen is {value!r}, not host:port",
                          "use e.g. 127.0.0.1:8080 (only with --no-api)")
    return host or "127.0.0.1", int(port)


def whatsapp_platform(settings: Settings) -> tuple[WhatsAppAdapter, ChatPolicy] | None:
    """WhatsApp's adapter and policy when gateway.whatsapp is configured."""
    if settings.get("gateway.whatsapp") is None:
        return None
    settings.get("gateway.whatsapp", kind=dict)  # a wrong type is one clear line
    secrets = [os.environ.get(name, "").strip() for name in TOKENS]
    for name, value in zip(TOKENS, secrets, strict=True):
        if not value:
            raise ConfigError(f"gateway.whatsapp is configured but {name} is not set",
                              f"put {name}=... in {settings.home}/.env or the environment "
                              "(docs/GATEWAY.md, WhatsApp)")
    phone = str(settings.get("gateway.whatsapp.phone_number_id", "", kind=(str, int))).strip()
    if not phone.isdigit():
        raise ConfigError(f"gateway.whatsapp.phone_number_id is {phone!r}, not a number id",
                          "copy the Phone number ID from WhatsApp Manager > API Setup")
    base_url = str(settings.get("gateway.whatsapp.base_url", BASE_URL, kind=str)).strip()
    if not re.match(r"^https?://[^/\s]+", base_url):
        raise ConfigError(f"gateway.whatsapp.base_url is {base_url!r}, not an http(s) URL",
                          f"leave it out (default {BASE_URL})")
    users = frozenset(number(v, "gateway.whatsapp.allowed_users")
                      for v in settings.get("gateway.whatsapp.allowed_users", [], kind=list))
    if not users:
        sys.stderr.write("hermes: warning: gateway.whatsapp has no allowed_users: the bot "
                         "refuses everyone\n")
    from gateway.chat.whatsapp.adapter import WhatsAppAdapter  # start-up speed: httpx, starlette

    adapter = WhatsAppAdapter(*secrets, phone_number_id=phone, base_url=base_url,
                              listen=_listen(settings))
    return adapter, ChatPolicy(users)


def build(settings: Settings, facts: PlatformFacts) -> list[tuple[Adapter, ChatPolicy]]:
    """The platform for gateway/chat/boot.py (the registry's builder: FACTS.builder)."""
    found = whatsapp_platform(settings)
    return [found] if found is not None else []
