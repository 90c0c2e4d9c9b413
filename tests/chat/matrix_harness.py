"""Matrix harness: the fake provider behind the agent, FakeMatrix in front, and the real
gateway (build_app + uvicorn) with Matrix attached, on 127.0.0.1 (the Slack harness's
shape)."""

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
from tests.fakes.matrix_api import BOT, TOKEN, FakeMatrix, Limits
from tests.helpers import GATEWAY_MODEL, KEY_A

OWNER = "@alice:fake.local"  # the allowed user
OTHER = "@bob:fake.local"  # another allowed user
STRANGER = "@mallory:evil.example"


class Matrices:
    """Starts gateways with Matrix over one HERMES_HOME, one fake provider, one FakeMatrix."""

    def __init__(self, home: Path, fake: FakeProvider, hs: FakeMatrix) -> None:
        self.home = home
        self.fake = fake
        self.hs = hs
        self.servers: list[GatewayServer] = []
        self.config: dict[str, Any] = {
            "provider": "anthropic", "model": GATEWAY_MODEL, "api_key": "provider-key",
            "base_url": fake.anthropic_base_url, "toolsets": ["file"],
            "gateway": {"api_keys": [KEY_A], "matrix": {
                "homeserver": hs.base_url, "user_id": BOT, "allowed_users": [OWNER, OTHER],
                "edit_interval": 0.5}},
        }

    def start(self, **matrix: Any) -> GatewayServer:
        self.config["gateway"]["matrix"].update(matrix)
        (self.home / "config.yaml").write_text(yaml.safe_dump(self.config), encoding="utf-8")
        server = GatewayServer(build_app(load_settings(self.home), self.home)).start()
        self.servers.append(server)
        self.hs.wait_for(lambda: self.adapter(server).connected, what="the first sync")
        budget = self.adapter(server).budget  # sized to this homeserver's (faster) limits
        budget.rate, budget.burst = self.hs.limits.rate, self.hs.limits.burst - 2
        return server

    def hub(self, server: GatewayServer) -> Any:
        return server.server.config.app.state.chats

    def adapter(self, server: GatewayServer) -> Any:
        return next(a for a in self.hub(server).adapters if a.name == "matrix")

    def joined(self, room: str) -> None:
        self.hs.wait_for(lambda: BOT in self.hs.rooms[room].members, what=f"joined {room}")

    def stop_all(self) -> None:
        while self.servers:
            self.servers.pop().stop()

    def turns(self, server: GatewayServer, count: int, what: str = "") -> None:
        stats = self.hub(server).stats["matrix"]
        self.hs.wait_for(lambda: stats.turns >= count, timeout=60, what=what or f"{count} turns")


@pytest.fixture
def matrices(hermes_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Matrices]:
    monkeypatch.setenv("MATRIX_ACCESS_TOKEN", TOKEN)
    with FakeProvider(min_cache_tokens=64) as fake, FakeMatrix(Limits(rate=2.0, burst=10)) as hs:
        harness = Matrices(hermes_home, fake, hs)
        try:
            yield harness
        finally:
            harness.stop_all()
        assert [r for r in hs.refused if r[1] != "M_LIMIT_EXCEEDED"] == []  # no event too large
