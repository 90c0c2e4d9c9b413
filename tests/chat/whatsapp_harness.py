"""WhatsApp harness: the fake provider behind the agent, FakeWhatsApp in front (its Graph
API, and webhooks signed and POSTed to the gateway's own port), and the real gateway
(build_app + uvicorn) with WhatsApp attached, on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from frontend.config.settings import load_settings
from gateway.boot import build_app
from gateway.server import GatewayServer
from tests.fakes import FakeProvider
from tests.fakes.whatsapp_api import APP_SECRET, PHONE_ID, TOKEN, VERIFY_TOKEN, FakeWhatsApp
from tests.helpers import GATEWAY_MODEL, KEY_A

OWNER = "15550001111"  # the allowed user
OTHER = "15550002222"  # another allowed user
STRANGER = "4915112345678"


class WhatsApps:
    """Starts gateways with WhatsApp over one HERMES_HOME, one fake provider, one fake API."""

    def __init__(self, home: Path, fake: FakeProvider, wa: FakeWhatsApp) -> None:
        self.home = home
        self.fake = fake
        self.wa = wa
        self.servers: list[GatewayServer] = []
        self.config: dict[str, Any] = {
            "provider": "anthropic", "model": GATEWAY_MODEL, "api_key": "provider-key",
            "base_url": fake.anthropic_base_url, "toolsets": ["file"],
            "gateway": {"api_keys": [KEY_A], "whatsapp": {
                "base_url": wa.base_url, "phone_number_id": PHONE_ID,
                "allowed_users": ["+1 555 000 1111", OTHER]}},
        }

    def start(self) -> GatewayServer:
        (self.home / "config.yaml").write_text(yaml.safe_dump(self.config), encoding="utf-8")
        server = GatewayServer(build_app(load_settings(self.home), self.home)).start()
        self.servers.append(server)
        self.wa.webhook = f"http://127.0.0.1:{server.port}/whatsapp/webhook"
        self.wa.wait_for(lambda: self.adapter(server).connected, what="WhatsApp started")
        return server

    def hub(self, server: GatewayServer) -> Any:
        return server.server.config.app.state.chats

    def adapter(self, server: GatewayServer) -> Any:
        return next(a for a in self.hub(server).adapters if a.name == "whatsapp")

    def stop_all(self) -> None:
        while self.servers:
            self.servers.pop().stop()

    def turns(self, server: GatewayServer, count: int, what: str = "") -> None:
        stats = self.hub(server).stats["whatsapp"]
        self.wa.wait_for(lambda: stats.turns >= count, timeout=60, what=what or f"{count} turns")


@pytest.fixture
def whatsapps(hermes_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[WhatsApps]:
    monkeypatch.setenv("WHATSAPP_ACCESS_TOKEN", TOKEN)
    monkeypatch.setenv("WHATSAPP_APP_SECRET", APP_SECRET)
    monkeypatch.setenv("WHATSAPP_VERIFY_TOKEN", VERIFY_TOKEN)
    with FakeProvider(min_cache_tokens=64) as fake, FakeWhatsApp() as wa:
        harness = WhatsApps(hermes_home, fake, wa)
        try:
            yield harness
        finally:
            harness.stop_all()
