"""After `/model gpt-5.2` moved an Anthropic session to OpenAI, OpenAI's failures speak
of OpenAI's settings: a rejected key names OPENAI_API_KEY, a base URL nothing listens on
fails the first call there at once naming OPENAI_BASE_URL although the Anthropic URL
had worked, and Anthropic's fallback model is not sent to OpenAI (wire tier: the real
SDKs against the fake server)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from agent.events import ErrorEvent, Notice
from agent.providers.base import ProviderSettings
from agent.retry import RetryPolicy
from frontend import commands
from tests.fakes import Error, Reply
from tests.helpers import make_agent, run

pytestmark = pytest.mark.wire


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _moved(fake, tmp_path: Path, openai_url: str, **config):
    openai = ProviderSettings("openai", "gpt-5.2", "openai-key", openai_url)
    agent = make_agent(fake, tmp_path / "home", tmp_path, providers=(openai,), **config)
    fake.script(Reply(text="from anthropic"))
    run(agent, "hello")
    reply = commands.model(commands.Handle(agent), "gpt-5.2")
    assert "provider Anthropic -> OpenAI" in reply.text
    return agent


def test_a_rejected_key_on_the_new_provider_names_its_variable(fake_provider, tmp_path):
    agent = _moved(fake_provider, tmp_path, fake_provider.openai_base_url)
    fake_provider.script(Error(401, "invalid api key"))
    events = list(agent.run_turn("and now?"))
    (error,) = [e for e in events if isinstance(e, ErrorEvent)]
    assert fake_provider.last.api == "openai" and fake_provider.last.model == "gpt-5.2"
    assert "OPENAI_API_KEY" in error.hint and "ANTHROPIC" not in error.hint + error.message


def test_a_dead_url_of_the_new_provider_fails_at_once(fake_provider, tmp_path):
    agent = _moved(fake_provider, tmp_path, f"http://127.0.0.1:{_closed_port()}/v1")
    events = list(agent.run_turn("and now?"))
    (error,) = [e for e in events if isinstance(e, ErrorEvent)]
    assert "cannot connect" in error.message
    assert "OPENAI_BASE_URL" in error.message + error.hint
    assert not [e for e in events if isinstance(e, Notice) and "retrying" in e.text]


def test_the_old_providers_fallback_model_is_not_sent_to_the_new_one(fake_provider, tmp_path):
    agent = _moved(fake_provider, tmp_path, fake_provider.openai_base_url,
                   fallback_model="claude-haiku-4-5", retry=RetryPolicy(attempts=1))
    fake_provider.script(Error(500, "overloaded"))
    events = list(agent.run_turn("and now?"))
    assert [e for e in events if isinstance(e, ErrorEvent)]
    assert [r.model for r in fake_provider.requests_for("openai")] == ["gpt-5.2"]
