"""Telegram's builder: config.yaml's gateway.telegram -> the adapter and its policy
(gateway/chat/boot.py calls `build` when the section is there).

    gateway:
      telegram:
        base_url: https://api.telegram.org/bot   # or a self-hosted Bot API server
        allowed_users: [12345678]     # deny by default: only these user ids are answered
        allowed_chats: [-1001234567]  # ... or anyone in these chats
        groups: mention               # mention (answer when mentioned/replied to) | all
        per_user_in_group: false      # one session per user within a group
        edit_interval: 1.0            # s between edits of a streamed answer (groups: 3x)
        leader_ttl: 30                # s (>= 3); several workers: one polls, the rest stand by
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from agent.errors import ConfigError
from gateway.chat.base import Adapter, ChatPolicy, Undelivered
from gateway.chat.kit.config import numeric_ids, token
from gateway.chat.kit.pieces import send_pieces
from gateway.chat.text import split_message

if TYPE_CHECKING:
    from frontend.config.settings import Settings
    from gateway.chat.kit.facts import PlatformFacts


def build(settings: Settings, facts: PlatformFacts) -> list[tuple[Adapter, ChatPolicy]]:
    from gateway.chat.telegram.adapter import TelegramAdapter  # start-up speed: PTB

    settings.get("gateway.telegram", kind=dict)  # a wrong type is one clear line
    secret = token(settings, facts)
    groups = settings.get("gateway.telegram.groups", "mention", kind=str)
    if groups not in ("mention", "all"):
        raise ConfigError(f"gateway.telegram.groups is {groups!r}",
                          "use `mention` (answer when mentioned or replied to) or `all`")
    policy = ChatPolicy(numeric_ids(settings, "gateway.telegram.allowed_users", facts.label),
                        numeric_ids(settings, "gateway.telegram.allowed_chats", facts.label),
                        mention_only=groups == "mention",
                        per_user_in_group=bool(settings.get("gateway.telegram.per_user_in_group",
                                                            False, kind=bool)))
    if not policy.allowed_users and not policy.allowed_chats:
        sys.stderr.write("hermes: warning: gateway.telegram has no allowed_users or "
                         "allowed_chats: the bot refuses everyone\n")
    interval = float(settings.number("gateway.telegram.edit_interval", 1.0, lo=0))
    adapter = TelegramAdapter(
        secret, base_url=settings.get("gateway.telegram.base_url", facts.base_url, kind=str),
        edit_interval=interval, group_edit_interval=interval * 3)
    adapter.leader_ttl = float(settings.number("gateway.telegram.leader_ttl", 30.0, lo=3))
    return [(adapter, policy)]


async def deliver_alone(settings: Settings, facts: PlatformFacts, chat: str, text: str,
                        keep: dict[str, Any]) -> None:
    """A job's answer sent by a Bot of its own on the configured token: a gateway that
    runs no Telegram adapter (`keep` holds the Bot between calls; "close" shuts it)."""
    from telegram import Bot  # start-up speed: PTB
    from telegram.error import TelegramError

    try:
        bot = keep.get("bot")
        if bot is None:
            base = settings.get("gateway.telegram.base_url", facts.base_url, kind=str)
            bot = Bot(token(settings, facts), base_url=base.rstrip("/") + "{token}")
            await bot.initialize()
            keep["bot"] = bot
            keep["close"] = bot.shutdown
    except (TelegramError, ConfigError) as exc:
        raise Undelivered(f"telegram: {exc}") from None
    await send_pieces(split_message(text), lambda piece: bot.send_message(chat_id=int(chat), text=piece),
                      TelegramError, lambda exc: f"telegram: {exc}")
