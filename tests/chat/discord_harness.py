"""Discord harness: the fake provider behind the agent, FakeDiscord in front, and the
real gateway (build_app + uvicorn) with Discord attached, on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from frontend.config.settings import load_settings
from gateway.boot import build_app
from gateway.server import GatewayServer
from tests.fakes import FakeProvider
from tests.fakes.discord_api import FakeDiscord
from tests.helpers import GATEWAY_MODEL, KEY_A

OWNER = 500000000000000111  # the allowed Discord user
STRANGER = 500000000000000666


class DiscordChats:
    """Starts gateways with Discord over one HERMES_HOME, one fake provider, one fake
    Discord."""

    def __init__(self, home: Path, fake: FakeProvider, dc: FakeDiscord) -> None:
        self.home = home
        self.fake = fake
        self.dc = dc
        self.servers: list[GatewayServer] = []
        self.config: dict[str, Any] = {
            "provider": "anthropic", "model": GATEWAY_MODEL, "api_key": "provider-key",
            "base_url": fake.anthropic_base_url, "toolsets": ["file"],
            "gateway": {"api_keys": [KEY_A], "discord": {
                "base_url": dc.base_url, "allowed_users": [OWNER], "edit_interval": 0.5}},
        }

    def start(self, **discord: Any) -> GatewayServer:
        self.config["gateway"]["discord"].update(discord)
        (self.home / "config.yaml").write_text(yaml.safe_dump(self.config), encoding="utf-8")
        server = GatewayServer(build_app(load_settings(self.home), self.home)).start()
        self.servers.append(server)
        self.dc.wait_for(lambda: self.adapter(server).connected, what="the gateway websocket")
        return server

    def hub(self, server: GatewayServer) -> Any:
        return server.server.config.app.state.chats

    def adapter(self, server: GatewayServer) -> Any:
        return next(a for a in self.hub(server).adapters if a.name == "discord")

    def stop_all(self) -> None:
        while self.servers:
            self.servers.pop().stop()

    def turns(self, server: GatewayServer, count: int, what: str = "") -> None:
        """Wait until `count` turns were answered on Discord (final text sent)."""
        stats = self.hub(server).stats["discord"]
        # a deadline, not a wait: the first turn builds the agent, a long answer waits
        # for Discord's 5 writes per 5 s; generous for a loaded machine
        self.dc.wait_for(lambda: stats.turns >= count, timeout=60, what=what or f"{count} turns")
