"""Slack harness: the fake provider behind the agent, FakeSlack in front, and the real
gateway (build_app + uvicorn) with Slack attached, on 127.0.0.1 (see conftest.py's
Telegram harness, the same shape)."""

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
from tests.fakes.slack_api import APP_TOKEN, BOT_TOKEN, FakeSlack
from tests.helpers import GATEWAY_MODEL, KEY_A

OWNER = "U0OWNER01"  # the allowed user
OTHER = "U0OTHER02"  # another allowed user
STRANGER = "U0STRANGE"
CHANNEL = "C0GENERAL"


class Slacks:
    """Starts gateways with Slack over one HERMES_HOME, one fake provider, one FakeSlack."""

    def __init__(self, home: Path, fake: FakeProvider, slack: FakeSlack) -> None:
        self.home = home
        self.fake = fake
        self.slack = slack
        self.servers: list[GatewayServer] = []
        self.config: dict[str, Any] = {
            "provider": "anthropic", "model": GATEWAY_MODEL, "api_key": "provider-key",
            "base_url": fake.anthropic_base_url, "toolsets": ["file"],
            "gateway": {"api_keys": [KEY_A], "slack": {
                "base_url": slack.base_url, "allowed_users": [OWNER, OTHER],
                "edit_interval": 0.5}},
        }

    def start(self, **slack: Any) -> GatewayServer:
        self.config["gateway"]["slack"].update(slack)
        (self.home / "config.yaml").write_text(yaml.safe_dump(self.config), encoding="utf-8")
        server = GatewayServer(build_app(load_settings(self.home), self.home)).start()
        self.servers.append(server)
        self.slack.wait_for(lambda: self.slack.connections, what="the Socket Mode connection")
        return server

    def hub(self, server: GatewayServer) -> Any:
        return server.server.config.app.state.chats

    def adapter(self, server: GatewayServer) -> Any:
        return next(a for a in self.hub(server).adapters if a.name == "slack")

    def stop_all(self) -> None:
        while self.servers:
            self.servers.pop().stop()

    def turns(self, server: GatewayServer, count: int, what: str = "") -> None:
        """Wait until `count` turns were answered on Slack (final text sent)."""
        stats = self.hub(server).stats["slack"]
        self.slack.wait_for(lambda: stats.turns >= count, timeout=60,
                            what=what or f"{count} turns")


@pytest.fixture
def slacks(hermes_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Slacks]:
    monkeypatch.setenv("SLACK_BOT_TOKEN", BOT_TOKEN)
    monkeypatch.setenv("SLACK_APP_TOKEN", APP_TOKEN)
    with FakeProvider(min_cache_tokens=64) as fake, FakeSlack() as slack:
        harness = Slacks(hermes_home, fake, slack)
        try:
            yield harness
        finally:
            harness.stop_all()
        assert slack.problems() == []  # no truncation, every envelope acked in time
        assert [e for e in slack.refused() if "invalid_auth" not in e] == []  # within limits
