"""Discord's builder: DISCORD_BOT_TOKEN and gateway.discord -> the adapter and policy.

    gateway:
      discord:                        # started when DISCORD_BOT_TOKEN is set
        allowed_users: [80351110224678912]  # Discord user ids; the rest hear one refusal
        edit_interval: 1.0            # s between edits of a streamed answer (5 per 5 s)
        base_url: https://discord.com/api/v10   # REST; the websocket URL comes from it
        leader_ttl: 30
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from gateway.chat.base import Adapter, ChatPolicy
from gateway.chat.kit.config import numeric_ids, token

if TYPE_CHECKING:
    from frontend.config.settings import Settings
    from gateway.chat.kit.facts import PlatformFacts


def build(settings: Settings, facts: PlatformFacts) -> list[tuple[Adapter, ChatPolicy]]:
    settings.get("gateway.discord", {}, kind=dict)  # a wrong type is one clear line
    secret = token(settings, facts)
    from gateway.chat.on_discord.adapter import DiscordAdapter  # start-up speed: discord.py

    users = numeric_ids(settings, "gateway.discord.allowed_users", "Discord user")
    if not users:
        sys.stderr.write("hermes: warning: gateway.discord has no allowed_users: "
                         "the bot refuses everyone\n")
    adapter = DiscordAdapter(
        secret, base_url=settings.get("gateway.discord.base_url", facts.base_url, kind=str),
        edit_interval=float(settings.number("gateway.discord.edit_interval", 1.0, lo=0)),
        allowed_users=users)
    adapter.leader_ttl = float(settings.number("gateway.discord.leader_ttl", 30.0, lo=3))
    return [(adapter, ChatPolicy(users, mention_only=True))]
