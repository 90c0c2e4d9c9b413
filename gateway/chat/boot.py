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
The token: TELEGRAM_BOT_TOKEN in the environment or HERMES_HOME/.env.

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

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from frontend.config.settings import Settings
    from gateway.sessions import Gateway


def _ids(settings: Settings, dotted: str) -> frozenset[str]:
    values = settings.get(dotted, [], kind=list)
    for value in values:
        if not isinstance(value, int) and not (isinstance(value, str) and value.lstrip("-").isdigit()):
            raise ConfigError(f"{dotted} holds {value!r}, not a numeric Telegram id",
                              f"list numeric ids under {dotted} in config.yaml")
    return frozenset(str(v) for v in values)


def configured(settings: Settings) -> list[tuple[Adapter, ChatPolicy]]:
    """The platforms config.yaml configures, each with its policy (ConfigError if wrong)."""
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
        raise ConfigError("no chat platform could connect (see the warning above)",
                          "check TELEGRAM_BOT_TOKEN and gateway.telegram.base_url")
    names = ", ".join(a.name for a in hub.adapters)
    sys.stdout.write(f"hermes gateway: {names} connected (no HTTP API; Ctrl-C to stop)\n")
    sys.stdout.flush()
    try:
        await stop.wait()
    finally:
        await hub.stop()
        await asyncio.to_thread(gateway.close)
