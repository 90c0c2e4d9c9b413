"""Starting the configured chat platforms with the gateway (`hermes gateway`).

config.yaml:
    gateway:
      telegram:
        base_url: https://api.telegram.org/bot   # or a self-hosted Bot API server
        allowed_users: [12345678]     # deny by default: only these user ids are answered
        allowed_chats: [-1001234567]  # ... or anyone in these chats
        groups: mention               # mention (answer when mentioned/replied to) | all
        per_user_in_group: false      # one session per user within a group
        edit_interval: 1.0            # s between edits of a streamed answer (groups: 3x)
        leader_ttl: 30                # s (>= 3); several workers: one polls, the rest stand by
      discord:                        # started when DISCORD_BOT_TOKEN is set
        allowed_users: [80351110224678912]  # Discord user ids; the rest hear one refusal
        edit_interval: 1.0            # s between edits of a streamed answer (5 per 5 s)
        base_url: https://discord.com/api/v10   # REST; the websocket URL comes from it
        leader_ttl: 30
The tokens: TELEGRAM_BOT_TOKEN, DISCORD_BOT_TOKEN in the environment or HERMES_HOME/.env.
Slack (gateway: slack:, SLACK_BOT_TOKEN + SLACK_APP_TOKEN): gateway/chat/slack/settings.py.

With the HTTP API the platforms run in its event loop (`attach`: started and stopped
by the app's lifespan, shown on /health); without it (`hermes gateway --no-api`)
`serve_chats` runs them alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from agent.errors import ConfigError
from gateway.chat.base import Adapter, ChatPolicy
from gateway.chat.hub import ChatHub
from gateway.chat.leader import elect
from gateway.chat.matrix.settings import matrix_platform
from gateway.chat.slack.settings import slack_platform
from gateway.chat.whatsapp.settings import whatsapp_platform

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from frontend.config.settings import Settings
    from gateway.sessions import Gateway


def _ids(settings: Settings, dotted: str, platform: str = "Telegram") -> frozenset[str]:
    values = settings.get(dotted, [], kind=list)
    for value in values:
        if not isinstance(value, int) and not (isinstance(value, str) and value.lstrip("-").isdigit()):
            raise ConfigError(f"{dotted} holds {value!r}, not a numeric {platform} id",
                              f"list numeric ids under {dotted} in config.yaml")
    return frozenset(str(v) for v in values)


def configured(settings: Settings) -> list[tuple[Adapter, ChatPolicy]]:
    """The platforms config.yaml configures, each with its policy (ConfigError if wrong)."""
    extra = [slack_platform(settings), matrix_platform(settings), whatsapp_platform(settings)]
    return _telegram(settings) + _discord(settings) + [p for p in extra if p is not None]


def _discord(settings: Settings) -> list[tuple[Adapter, ChatPolicy]]:
    """Discord, when DISCORD_BOT_TOKEN is set or gateway.discord is configured."""
    token = os.environ.get("DISCORD_BOT_TOKEN", "").strip()
    if settings.get("gateway.discord") is None and not token:
        return []
    settings.get("gateway.discord", {}, kind=dict)  # a wrong type is one clear line
    if not token:
        raise ConfigError("gateway.discord is configured but DISCORD_BOT_TOKEN is not set",
                          f"put DISCORD_BOT_TOKEN=... in {settings.home}/.env or the environment")
    from gateway.chat.on_discord.adapter import DiscordAdapter  # start-up speed: discord.py
    from gateway.chat.on_discord.client import DEFAULT_BASE_URL

    users = _ids(settings, "gateway.discord.allowed_users", "Discord user")
    if not users:
        sys.stderr.write("hermes: warning: gateway.discord has no allowed_users: "
                         "the bot refuses everyone\n")
    adapter = DiscordAdapter(
        token, base_url=settings.get("gateway.discord.base_url", DEFAULT_BASE_URL, kind=str),
        edit_interval=float(settings.number("gateway.discord.edit_interval", 1.0, lo=0)),
        allowed_users=users)
    adapter.leader_ttl = float(settings.number("gateway.discord.leader_ttl", 30.0, lo=3))
    return [(adapter, ChatPolicy(users, mention_only=True))]


def _telegram(settings: Settings) -> list[tuple[Adapter, ChatPolicy]]:
    if settings.get("gateway.telegram") is None:
        return []
    from gateway.chat.telegram import DEFAULT_BASE_URL, TelegramAdapter

    settings.get("gateway.telegram", kind=dict)  # a wrong type is one clear line
    token = os.environ.get("TELEGRAM_BOT_TOKEN", "").strip()
    if not token:
        raise ConfigError("gateway.telegram is configured but TELEGRAM_BOT_TOKEN is not set",
                          f"put TELEGRAM_BOT_TOKEN=... in {settings.home}/.env or the environment")
    groups = settings.get("gateway.telegram.groups", "mention", kind=str)
    if groups not in ("mention", "all"):
        raise ConfigError(f"gateway.telegram.groups is {groups!r}",
                          "use `mention` (answer when mentioned or replied to) or `all`")
    policy = ChatPolicy(_ids(settings, "gateway.telegram.allowed_users"),
                        _ids(settings, "gateway.telegram.allowed_chats"),
                        mention_only=groups == "mention",
                        per_user_in_group=bool(settings.get("gateway.telegram.per_user_in_group",
                                                            False, kind=bool)))
    if not policy.allowed_users and not policy.allowed_chats:
        sys.stderr.write("hermes: warning: gateway.telegram has no allowed_users or "
                         "allowed_chats: the bot refuses everyone\n")
    interval = float(settings.number("gateway.telegram.edit_interval", 1.0, lo=0))
    adapter = TelegramAdapter(
        token, base_url=settings.get("gateway.telegram.base_url", DEFAULT_BASE_URL, kind=str),
        edit_interval=interval, group_edit_interval=interval * 3)
    adapter.leader_ttl = float(settings.number("gateway.telegram.leader_ttl", 30.0, lo=3))
    return [(adapter, policy)]


def attach(app: Starlette, gateway: Gateway, platforms: list[tuple[Adapter, ChatPolicy]]) -> ChatHub:
    """Run `platforms` inside the Starlette app's lifespan (same loop as the API)."""
    elect(gateway, platforms)
    hub = ChatHub(gateway, {a.name: p for a, p in platforms})
    for adapter, _ in platforms:  # a platform's webhooks (WhatsApp) on the API's port
        if routes := getattr(adapter, "routes", ()):
            app.router.routes.extend(routes)
            adapter.mounted = True  # type: ignore[attr-defined]
    inner = app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(this: object) -> AsyncIterator[None]:
        async with inner(this):
            await hub.start([a for a, _ in platforms])
            try:
                yield
            finally:
                await hub.stop()  # before the gateway closes its agents

    app.router.lifespan_context = lifespan
    app.state.chats = hub
    return hub


async def serve_chats(gateway: Gateway, platforms: list[tuple[Adapter, ChatPolicy]]) -> None:
    """Run the platforms without the HTTP API until SIGINT/SIGTERM."""
    elect(gateway, platforms)
    hub = ChatHub(gateway, {a.name: p for a, p in platforms})
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await hub.start([a for a, _ in platforms])
    if not hub.adapters:
        tokens = {"telegram": "TELEGRAM_BOT_TOKEN", "slack": "SLACK_BOT_TOKEN, SLACK_APP_TOKEN",
                  "discord": "DISCORD_BOT_TOKEN", "matrix": "MATRIX_ACCESS_TOKEN",
                  "whatsapp": "WHATSAPP_ACCESS_TOKEN"}
        raise ConfigError("no chat platform could connect (see the warning above)", "; ".join(
            f"check {tokens.get(a.name, 'the token')} and gateway.{a.name}.base_url"
            for a, _ in platforms))
    names = ", ".join(a.name for a in hub.adapters)
    sys.stdout.write(f"hermes gateway: {names} connected (no HTTP API; Ctrl-C to stop)\n")
    sys.stdout.flush()
    try:
        await stop.wait()
    finally:
        await hub.stop()
        await asyncio.to_thread(gateway.close)
