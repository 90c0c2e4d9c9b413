"""Provider settings precedence, end to end: CLI flag > config.yaml > env vars > default
(hermes_cli/config.py). Two fake servers tell which base URL a real `hermes` run used."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from agent.providers.models import default_model
from tests.fakes import FakeProvider
from tests.helpers import anthropic_env, child_env, hermes


@pytest.fixture
def other_provider() -> Iterator[FakeProvider]:
    """A second fake server, to tell which one got the request."""
    with FakeProvider(min_cache_tokens=64) as fake:
        yield fake


def write_config(home: Path, **settings: str) -> None:
    (home / "config.yaml").write_text(yaml.safe_dump(settings))


def ask(env: dict[str, str], cwd: Path, *flags: str) -> None:
    done = hermes([*flags, "-q", "hi"], env, cwd=cwd)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def only_request(winner: FakeProvider, loser: FakeProvider, api: str = "anthropic"):
    assert not loser.requests, "the lower-precedence server was called"
    (record,) = winner.requests
    assert record.api == api
    return record


def test_base_url_flag_beats_config_beats_env(fake_provider, other_provider, hermes_home,
                                              tmp_path):
    env = anthropic_env(hermes_home, fake_provider)  # ANTHROPIC_* -> fake_provider, test-key
    ask(env, tmp_path)
    only_request(fake_provider, other_provider)
    fake_provider.reset()

    write_config(hermes_home, base_url=other_provider.anthropic_base_url, api_key="config-key")
    ask(env, tmp_path)  # config.yaml beats the env vars (base URL and API key)
    sent = only_request(other_provider, fake_provider).headers
    assert any("config-key" in value for value in sent.values())
    assert not any("test-key" in value for value in sent.values())
    other_provider.reset()

    ask(env, tmp_path, "--base-url", fake_provider.anthropic_base_url)  # the flag beats both
    only_request(fake_provider, other_provider)


def test_model_flag_beats_config_beats_default(fake_provider, hermes_home, tmp_path):
    env = anthropic_env(hermes_home, fake_provider)
    ask(env, tmp_path)
    write_config(hermes_home, model="claude-from-config")
    ask(env, tmp_path)
    ask(env, tmp_path, "-m", "claude-from-flag")
    models = [r.body["model"] for r in fake_provider.requests]
    assert models == [default_model("anthropic"), "claude-from-config", "claude-from-flag"]


def test_provider_flag_picks_openai_env(fake_provider, other_provider, hermes_home, tmp_path):
    env = child_env(hermes_home, ANTHROPIC_API_KEY="test-key",
                    ANTHROPIC_BASE_URL=fake_provider.anthropic_base_url,
                    OPENAI_API_KEY="openai-key", OPENAI_BASE_URL=other_provider.openai_base_url)
    ask(env, tmp_path)  # both keys set and nothing chosen: anthropic comes first
    only_request(fake_provider, other_provider)
    fake_provider.reset()

    ask(env, tmp_path, "--provider", "openai")
    record = only_request(other_provider, fake_provider, api="openai")
    assert record.body["model"] == default_model("openai")
    headers = {k.lower(): v for k, v in record.headers.items()}
    assert headers["authorization"] == "Bearer openai-key"
    other_provider.reset()

    write_config(hermes_home, provider="openai")  # config.yaml beats the env detection ...
    ask(env, tmp_path)
    only_request(other_provider, fake_provider, api="openai")
    other_provider.reset()

    ask(env, tmp_path, "--provider", "anthropic")  # ... and the flag beats config.yaml
    only_request(fake_provider, other_provider)


def test_the_model_picks_the_provider(fake_provider, other_provider, hermes_home, tmp_path):
    """With both keys set, gpt-5.2 goes to OpenAI and a claude model to
    Anthropic; --provider beats the inference with a warning at start."""
    env = child_env(hermes_home, ANTHROPIC_API_KEY="test-key",
                    ANTHROPIC_BASE_URL=fake_provider.anthropic_base_url,
                    OPENAI_API_KEY="openai-key", OPENAI_BASE_URL=other_provider.openai_base_url)
    write_config(hermes_home, provider="anthropic")
    done = hermes(["-m", "gpt-5.2", "-q", "hi"], env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    record = only_request(other_provider, fake_provider, api="openai")
    assert record.body["model"] == "gpt-5.2"
    assert "config.yaml's `provider: anthropic`" in done.stderr
    other_provider.reset()

    write_config(hermes_home, provider="openai")
    ask(env, tmp_path, "-m", "claude-sonnet-5")
    assert only_request(fake_provider, other_provider).body["model"] == "claude-sonnet-5"
    fake_provider.reset()

    done = hermes(["--provider", "anthropic", "-m", "gpt-5.2", "-q", "hi"], env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert only_request(fake_provider, other_provider).body["model"] == "gpt-5.2"
    assert "gpt-5.2 is an OpenAI model" in done.stderr
