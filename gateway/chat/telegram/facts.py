"""Telegram, as data (gateway/chat/kit/facts.py)."""

from __future__ import annotations

from gateway.chat.kit.facts import PlatformFacts, TokenCheck

FACTS = PlatformFacts(
    name="telegram", label="Telegram", package="gateway.chat.telegram",
    tokens=("TELEGRAM_BOT_TOKEN",),
    config_keys=("allowed_chats", "allowed_users", "base_url", "edit_interval", "groups",
                 "leader_ttl", "per_user_in_group"),
    base_url="https://api.telegram.org/bot",
    chat_id=r"^-?[0-9]+$", chat_hint="a numeric Telegram chat id",
    target="telegram:CHAT_ID", target_noun="the Telegram chat",
    sender="the gateway's bot: gateway.telegram in config.yaml and TELEGRAM_BOT_TOKEN",
    token_check=TokenCheck("POST", "{token}/getMe", ok_field="ok", shows="@{result.username}",
                           error_field="description"),
    section_needed=True, loggers=("telegram",),
    replays=True,  # getUpdates keeps what arrived while nobody polled (24 h)
)
