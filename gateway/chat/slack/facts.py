"""Slack, as data (gateway/chat/kit/facts.py)."""

from __future__ import annotations

from gateway.chat.kit.facts import PlatformFacts, TokenCheck

FACTS = PlatformFacts(
    name="slack", label="Slack", package="gateway.chat.slack",
    tokens=("SLACK_BOT_TOKEN", "SLACK_APP_TOKEN"),
    config_keys=("allowed_users", "base_url", "edit_interval", "leader_ttl"),
    base_url="https://slack.com/api/",
    chat_id=r"^[CGD][A-Z0-9]{2,}$",
    chat_hint="a Slack channel id (like C0123ABCD: the channel's details)",
    target="slack:CHANNEL_ID", target_noun="the Slack channel",
    sender="the gateway's Slack app: SLACK_BOT_TOKEN and SLACK_APP_TOKEN",
    token_check=TokenCheck("POST", "auth.test", auth="Bearer {token}", ok_field="ok",
                           shows="{user} in {team}", error_field="error"),
    replays=False,  # Socket Mode does not redeliver events sent while disconnected
    builder="settings", loggers=("slack_bolt", "slack_sdk"),
)
