"""Discord, as data (gateway/chat/kit/facts.py)."""

from __future__ import annotations

from gateway.chat.kit.facts import PlatformFacts, TokenCheck

FACTS = PlatformFacts(
    name="discord", label="Discord", package="gateway.chat.on_discord",
    tokens=("DISCORD_BOT_TOKEN",),
    config_keys=("allowed_users", "base_url", "edit_interval", "leader_ttl"),
    base_url="https://discord.com/api/v10",
    chat_id=r"^[0-9]+$", chat_hint="a numeric Discord channel id (Copy Channel ID)",
    target="discord:CHANNEL_ID", target_noun="the Discord channel",
    sender="the gateway's bot: DISCORD_BOT_TOKEN",
    token_check=TokenCheck("GET", "/users/@me", auth="Bot {token}", shows="{username}"),
    loggers=("discord",), replays=False,  # the websocket does not replay messages sent while disconnected
)
