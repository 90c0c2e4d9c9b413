"""Starting the configured chat platforms with the gateway (`hermes gateway`).

Every platform of gateway/chat/platforms.py is started when config.yaml has its section
(gateway.NAME) or, unless its facts say the section is needed (Telegram), its tokens
are set: its builder (`FACTS.builder` in its package, imported only then) turns the
settings into the adapter and its policy. The settings of each: its builder's docstring
(gateway/chat/telegram/boot.py, gateway/chat/on_discord/boot.py,
gateway/chat/slack/settings.py) and docs/CHAT.md.

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
from gateway.chat import platforms as registry
from gateway.chat.base import Adapter, ChatPolicy
from gateway.chat.hub import ChatHub
from gateway.chat.leader import elect

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from frontend.config.settings import Settings
    from gateway.chat.kit.facts import PlatformFacts
    from gateway.sessions import Gateway


def wanted(settings: Settings, facts: PlatformFacts) -> bool:
    """The platform is to be started: its section is there, or (unless it needs the
    section) one of its tokens is set - a missing other one is then its builder's error."""
    if settings.get(f"gateway.{facts.name}") is not None:
        return True
    return not facts.section_needed and any(os.environ.get(t, "").strip() for t in facts.tokens)


def configured(settings: Settings) -> list[tuple[Adapter, ChatPolicy]]:
    """The platforms config.yaml configures, each with its policy (ConfigError if wrong)."""
    found: list[tuple[Adapter, ChatPolicy]] = []
    for facts in registry.PLATFORMS:
        if wanted(settings, facts):
            found += registry.builder(facts).build(settings, facts)
    return found


def how_to_configure() -> str:
    """The hint when no platform is configured: each one's section or tokens."""
    return " or ".join(f"gateway.{p.name} in config.yaml" if p.section_needed
                       else f"set {' and '.join(p.tokens)}" for p in registry.PLATFORMS)


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
        facts = [(a.name, registry.find(a.name)) for a, _ in platforms]
        raise ConfigError("no chat platform could connect (see the warning above)", "; ".join(
            f"check {', '.join(f.tokens) if f else 'the token'} and gateway.{name}.base_url"
            for name, f in facts))
    names = ", ".join(a.name for a in hub.adapters)
    sys.stdout.write(f"hermes gateway: {names} connected (no HTTP API; Ctrl-C to stop)\n")
    sys.stdout.flush()
    try:
        await stop.wait()
    finally:
        await hub.stop()
        await asyncio.to_thread(gateway.close)
