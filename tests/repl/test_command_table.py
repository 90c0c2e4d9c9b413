"""One command path: the same conversation commands, typed in the REPL (a pty), sent
as messages over an HTTP session (the real openai client) and in a chat (the console
platform, through the chat hub), behave the same - the same reply, the same session
state, the same next prompt - because each runs the one implementation in
frontend/commands.py (wire tier: the fake provider behind each)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import openai
import pytest
import yaml

from frontend.config.settings import load_settings
from frontend.personalities import BUILTIN
from gateway.boot import build_app, build_gateway
from gateway.chat.base import ChatPolicy
from gateway.chat.console import ConsoleAdapter
from gateway.chat.hub import ChatHub
from gateway.server import GatewayServer
from tests.fakes import FakeProvider, Reply
from tests.helpers import KEY_A, MODEL, ask

pytestmark = pytest.mark.wire

#: (what is typed, what the reply says) - the same for every front end
STEPS = [
    ("hello", "seen: hello"),
    ("/personality mentor", "Personality -> mentor"),
    ("/title Table", "title set: Table"),
    ("/retry", "seen: hello"),  # the last message, run again as a new turn
    ("/undo", "Dropped the last exchange"),
    ("/compress", "Nothing worth compressing yet"),
    ("/compact", "Nothing worth compressing yet"),  # Claude Code's name, an alias
    ("/reasoning", "Reasoning: thinking off"),
    ("/new", "New session"),
    ("/clear", "New session"),
    ("again", "seen: again"),
]


def _echo(record) -> Reply:
    content = record.body["messages"][-1]["content"]
    text = content if isinstance(content, str) else content[-1].get("text", "")
    return Reply(text="seen: " + text)


def _config(home: Path, fake: FakeProvider) -> None:
    config = {"provider": "anthropic", "model": MODEL, "api_key": "provider-key",
              "base_url": fake.anthropic_base_url, "toolsets": ["file"],
              "gateway": {"api_keys": [KEY_A]}}
    (home / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")


def _repl(spawn_repl, fake_provider) -> list[str]:
    fake_provider.responder = _echo
    repl = spawn_repl()
    said = []
    for text, expected in STEPS:
        repl.send(text)
        repl.expect(expected, timeout=60)  # fails the test when it is not said
        repl.prompt(timeout=60)
        said.append(expected)
    repl.send("/exit")
    repl.exit_code()
    return said


def _http(home: Path) -> tuple[list[str], FakeProvider]:
    with FakeProvider(min_cache_tokens=64) as fake:
        fake.responder = _echo
        _config(home, fake)
        server = GatewayServer(build_app(load_settings(home), home)).start()
        try:
            client = openai.OpenAI(base_url=server.base_url, api_key=KEY_A, max_retries=0,
                                   timeout=60)
            said = [ask(client, "table", text).choices[0].message.content for text, _ in STEPS]
        finally:
            server.stop()
    return said, fake


def _chat(home: Path) -> tuple[list[str], FakeProvider]:
    with FakeProvider(min_cache_tokens=64) as fake:
        fake.responder = _echo
        _config(home, fake)
        gateway, close = build_gateway(load_settings(home), home)
        console = ConsoleAdapter()
        hub = ChatHub(gateway, {"console": ChatPolicy(allowed_users=frozenset({"u1"}))})
        said: list[str] = []

        async def scenario() -> None:
            await hub.start([console])
            for text, _ in STEPS:
                before = len(console.of("a", "final", "notice"))
                await console.say("a", "u1", text)
                await console.wait(lambda n=before: len(console.of("a", "final", "notice")) > n,
                                   timeout=60)
                said.append(console.of("a", "final", "notice")[-1])
            await hub.stop()

        try:
            asyncio.run(scenario())
        finally:
            gateway.close()
            close()
    return said, fake


def test_the_same_commands_behave_the_same_on_every_front_end(spawn_repl, fake_provider,
                                                              hermes_home, tmp_path):
    results = {"repl": (_repl(spawn_repl, fake_provider), fake_provider)}
    for name, run in (("http", _http), ("chat", _chat)):
        home = tmp_path / name
        home.mkdir(mode=0o700)
        results[name] = run(home)
    for name, (said, fake) in results.items():
        for (text, expected), reply in zip(STEPS, said, strict=True):
            assert expected in reply, f"{name}: {text!r} answered {reply!r}"
        last = fake.requests_for("anthropic")[-1].body
        system = "".join(block["text"] for block in last["system"])
        assert BUILTIN["mentor"] in system, f"{name}: the personality did not survive /new"
        assert "thinking" not in last
