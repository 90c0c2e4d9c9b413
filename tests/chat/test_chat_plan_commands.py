"""/plan and a custom command in a chat (the console platform through the same hub and
Gateway as Telegram; wire tier: the fake provider)."""

from __future__ import annotations

import asyncio

import pytest
import yaml

from agent.permissions.plan import NOTE_ON
from frontend.config.settings import load_settings
from gateway.boot import build_gateway
from gateway.chat.base import ChatPolicy
from gateway.chat.console import ConsoleAdapter
from gateway.chat.hub import ChatHub
from tests.fakes import FakeProvider, Reply
from tests.helpers import GATEWAY_MODEL

pytestmark = pytest.mark.wire


def test_plan_and_a_custom_command_in_a_chat(hermes_home):
    (hermes_home / "commands").mkdir()
    (hermes_home / "commands" / "standup.md").write_text(
        "---\ndescription: Draft my standup\n---\nDraft a standup about $ARGUMENTS.\n")
    with FakeProvider(min_cache_tokens=64) as fake:
        config = {"provider": "anthropic", "model": GATEWAY_MODEL, "api_key": "k",
                  "base_url": fake.anthropic_base_url, "toolsets": ["file"]}
        (hermes_home / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
        gateway, close = build_gateway(load_settings(hermes_home), hermes_home)
        fake.responder = lambda rec: Reply("ok")
        console = ConsoleAdapter()
        hub = ChatHub(gateway, {"console": ChatPolicy(allowed_users=frozenset({"u1"}))})

        async def scenario() -> None:
            await hub.start([console])
            await console.say("a", "u1", "/plan on")
            await console.wait(lambda: console.of("a", "notice"))
            await console.say("a", "u1", "/standup the release")
            await console.wait(lambda: console.of("a", "final"), 60)  # the SDK's first import
            await console.say("a", "u1", "/nosuch")
            await console.wait(lambda: len(console.of("a", "notice")) == 2)
            await console.say("a", "u1", "/help")
            await console.wait(lambda: len(console.of("a", "notice")) == 3)
            await hub.stop()

        try:
            asyncio.run(scenario())
        finally:
            gateway.close()
            close()
    notices = console.of("a", "notice")
    assert "plan mode ON" in notices[0]
    assert notices[1] == "Unknown command /nosuch. Try /help."
    assert "/standup - Draft my standup" in notices[2] and "/plan - " in notices[2]
    (request,) = fake.requests_for("anthropic")
    text = request.body["messages"][-1]["content"][0]["text"]
    assert text.startswith("Draft a standup about the release.") and NOTE_ON.strip() in text
