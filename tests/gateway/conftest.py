"""Gateway test harness: the fake provider, a config.yaml pointing at it, and real
uvicorn servers on 127.0.0.1 driven by the real `openai` client."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
import yaml

from frontend.config.settings import load_settings
from gateway.boot import build_app
from gateway.server import GatewayServer
from tests.fakes import FakeProvider
from tests.helpers import GATEWAY_MODEL, KEY_A, KEY_B

MODEL = GATEWAY_MODEL


class Harness:
    """Starts gateway servers over one HERMES_HOME and one fake provider."""

    def __init__(self, home: Path, fake: FakeProvider) -> None:
        self.home = home
        self.fake = fake
        self.servers: list[GatewayServer] = []
        self.config: dict[str, Any] = {
            "provider": "anthropic", "model": MODEL, "api_key": "provider-key",
            "base_url": fake.anthropic_base_url, "toolsets": ["file"],
            "gateway": {"api_keys": [KEY_A, KEY_B]},
        }

    def start(self, **gateway_settings: Any) -> GatewayServer:
        self.config["gateway"].update(gateway_settings)
        (self.home / "config.yaml").write_text(yaml.safe_dump(self.config), encoding="utf-8")
        server = GatewayServer(build_app(load_settings(self.home), self.home)).start()
        self.servers.append(server)
        return server

    def client(self, server: GatewayServer, key: str = KEY_A) -> openai.OpenAI:
        return openai.OpenAI(base_url=server.base_url, api_key=key, max_retries=0, timeout=30)

    def stop_all(self) -> None:
        while self.servers:
            self.servers.pop().stop()


@pytest.fixture
def harness(hermes_home: Path) -> Iterator[Harness]:
    with FakeProvider(min_cache_tokens=64) as fake:
        h = Harness(hermes_home, fake)
        try:
            yield h
        finally:
            h.stop_all()
