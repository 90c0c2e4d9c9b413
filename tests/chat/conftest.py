"""Chat platform harness: the fake provider behind the agent, the fake Bot API in front,
and the real gateway (build_app + uvicorn) with Telegram attached, on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from frontend.config.settings import load_settings
from gateway.boot import build_app
from gateway.server import GatewayServer
from tests.chat.slack_harness import slacks  # noqa: F401 - Slack's harness (fixture `slacks`)
from tests.fakes import FakeProvider
from tests.fakes.telegram_api import TOKEN, FakeTelegram
from tests.helpers import GATEWAY_MODEL, GROUP, KEY_A, OWNER, STRANGER  # noqa: F401 - used by the fixtures


class Chats:
    """Starts gateways with Telegram over one HERMES_HOME, one fake provider, one fake
    Bot API."""

    def __init__(self, home: Path, fake: FakeProvider, tg: FakeTelegram) -> None:
        self.home = home
        self.fake = fake
        self.tg = tg
        self.servers: list[GatewayServer] = []
        self.config: dict[str, Any] = {
            "provider": "anthropic", "model": GATEWAY_MODEL, "api_key": "provider-key",
            "base_url": fake.anthropic_base_url, "toolsets": ["file"],
            "gateway": {"api_keys": [KEY_A], "telegram": {
                "base_url": tg.base_url, "allowed_users": [OWNER], "edit_interval": 0.2}},
        }

    def start(self, **telegram: Any) -> GatewayServer:
        self.config["gateway"]["telegram"].update(telegram)
        (self.home / "config.yaml").write_text(yaml.safe_dump(self.config), encoding="utf-8")
        server = GatewayServer(build_app(load_settings(self.home), self.home)).start()
        self.servers.append(server)
        return server

    def hub(self, server: GatewayServer) -> Any:
        return server.server.config.app.state.chats

    def stop_all(self) -> None:
        while self.servers:
            self.servers.pop().stop()

    def turns(self, server: GatewayServer, count: int, what: str = "") -> None:
        """Wait until `count` turns were answered on Telegram (final text sent)."""
        stats = self.hub(server).stats["telegram"]
        # a deadline, not a wait: a first turn builds the agent (slow on a loaded machine)
        self.tg.wait_for(lambda: stats.turns >= count, timeout=60, what=what or f"{count} turns")


@pytest.fixture
def chats(hermes_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Chats]:
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", TOKEN)
    with FakeProvider(min_cache_tokens=64) as fake, FakeTelegram() as tg:
        harness = Chats(hermes_home, fake, tg)
        try:
            yield harness
        finally:
            harness.stop_all()


@pytest.fixture
def discord_chats(hermes_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    from tests.chat.discord_harness import DiscordChats
    from tests.fakes.discord_api import TOKEN as DISCORD_TOKEN
    from tests.fakes.discord_api import FakeDiscord

    monkeypatch.setenv("DISCORD_BOT_TOKEN", DISCORD_TOKEN)
    with FakeProvider(min_cache_tokens=64) as fake, FakeDiscord() as dc:
        harness = DiscordChats(hermes_home, fake, dc)
        try:
            yield harness
        finally:
            harness.stop_all()
