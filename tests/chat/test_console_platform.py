"""The adapter interface carries a second platform: the in-memory console adapter runs
through the same hub and Gateway as Telegram (wire tier: the fake provider)."""

from __future__ import annotations

import asyncio

import pytest
import yaml

from frontend.config.settings import load_settings
from gateway.boot import build_gateway
from gateway.chat.base import ChatPolicy
from gateway.chat.console import ConsoleAdapter
from gateway.chat.hub import ChatHub
from tests.fakes import FakeProvider, Reply
from tests.helpers import GATEWAY_MODEL

pytestmark = pytest.mark.wire


def test_a_second_platform_shares_the_gateway_sessions_and_cache(hermes_home):
    with FakeProvider(min_cache_tokens=64) as fake:
        config = {"provider": "anthropic", "model": GATEWAY_MODEL, "api_key": "k",
                  "base_url": fake.anthropic_base_url, "toolsets": ["file"]}
        (hermes_home / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
        gateway, close = build_gateway(load_settings(hermes_home), hermes_home)
        fake.responder = lambda rec: Reply("seen: " + rec.body["messages"][-1]["content"][-1]["text"])
        console = ConsoleAdapter()
        hub = ChatHub(gateway, {"console": ChatPolicy(allowed_users=frozenset({"u1", "u2"}))})

        async def scenario() -> None:
            await hub.start([console])
            await console.say("a", "u1", "one")
            await console.say("b", "u2", "two")
            await console.say("c", "intruder", "hello?")
            await console.say("a", "u1", "three")  # queued behind "one"
            await console.wait(lambda: len(console.of("a", "final")) == 2)
            await console.wait(lambda: console.of("b", "final"))
            await console.say("a", "u1", "/usage")
            await console.wait(lambda: console.of("a", "notice"))
            await hub.stop()

        try:
            asyncio.run(scenario())
        finally:
            gateway.close()
            close()
    assert console.of("a", "final") == ["seen: one", "seen: three"]
    assert console.of("b", "final") == ["seen: two"]
    assert console.of("c") == ["Sorry, this bot answers only the people its owner allowed."]
    assert console.of("a", "typing")
    assert [n for n, _ in console.commands][:2] == ["new", "usage"]
    assert console.of("a", "notice")[0].startswith("Cache hit rate: ")
    second = [r for r in fake.requests_for("anthropic") if "three" in repr(r.body["messages"])]
    assert second[0].cache_read > 0
    assert gateway.cache.builds == 2
    assert "hello?" not in repr([r.body for r in fake.requests_for("anthropic")])
