"""One registry answers every provider question: what settings accept, the adapter
make_provider builds and the stall timeout agree for every registered name."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.errors import ConfigError
from agent.providers import make_provider, registry
from agent.providers.base import ProviderSettings
from frontend.config.provider_choice import resolve_provider
from frontend.config.settings import Settings
from frontend.setup import Flags, agent_config

URL = "http://127.0.0.1:1/v1"


def resolve(raw: dict, env: dict, **flags):
    return resolve_provider(Settings(home=Path("/nonexistent"), raw=raw), environ=env, **flags)


@pytest.mark.parametrize("name", registry.names())
def test_every_name_settings_accept_has_an_adapter(name):
    choice = resolve({"provider": name, "base_url": URL, "model": "some-model"},
                     {spec.key_var: "k" for spec in registry.SPECS})  # every provider's key
    assert choice.provider == name
    adapter = make_provider(ProviderSettings(choice.provider, choice.model, choice.api_key, URL))
    assert adapter.name in {spec.name for spec in registry.SPECS} | {"openai"}


def test_a_router_needs_its_url_and_a_model_and_keeps_the_model_it_was_given():
    choice = resolve({"provider": "openrouter"}, {"OPENAI_API_KEY": "o", "OPENAI_BASE_URL": URL},
                     model="claude-sonnet-5-5")
    assert (choice.provider, choice.model, choice.warnings) == ("openrouter", "claude-sonnet-5-5", ())
    with pytest.raises(ConfigError, match="needs a base URL"):
        resolve({"provider": "openrouter"}, {"OPENAI_API_KEY": "o"}, model="x")
    with pytest.raises(ConfigError, match="needs a model name"):
        resolve({"provider": "ollama"}, {"OPENAI_BASE_URL": URL})


def test_unknown_names_are_refused_in_one_place():
    with pytest.raises(ConfigError, match="unknown provider 'mistral'"):
        resolve({"provider": "mistral"}, {"OPENAI_API_KEY": "o"})
    with pytest.raises(ConfigError, match="unknown provider 'mistral'"):
        make_provider(ProviderSettings("mistral", "m"))


@pytest.mark.parametrize("provider, seconds", [("anthropic", 120.0), ("openai", 300.0)])
def test_a_stalled_stream_is_abandoned_after_the_providers_own_limit(provider, seconds, monkeypatch,
                                                                       tmp_path):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "a")
    monkeypatch.setenv("OPENAI_API_KEY", "o")
    config = agent_config(Settings(home=tmp_path, raw={}), Flags(provider=provider), tmp_path)
    assert config.provider.timeout == seconds
    client = make_provider(config.provider)._sdk_client()
    assert (client.timeout.read, client.timeout.connect) == (seconds, 10.0)
    timed = agent_config(Settings(home=tmp_path, raw={"timeout": 30}), Flags(provider=provider), tmp_path)
    assert timed.provider.timeout == 30.0


def test_gemini_reads_its_key_from_either_variable_and_claims_its_models():
    assert resolve({"provider": "gemini"}, {"GOOGLE_API_KEY": "g"}).api_key == "g"
    assert resolve({}, {"GEMINI_API_KEY": "a", "GOOGLE_API_KEY": "b"}, model="x").api_key == "a"
    choice = resolve({}, {"ANTHROPIC_API_KEY": "a", "GEMINI_API_KEY": "g"}, model="gemini-2.5-pro")
    assert (choice.provider, choice.api_key) == ("gemini", "g")


def test_each_spec_says_how_its_key_and_endpoint_are_given_and_checked():
    from agent.providers.spec import Credentials

    assert registry.spec_for("deepseek").credentials == Credentials(
        ("DEEPSEEK_API_KEY",), "DEEPSEEK_BASE_URL", "https://api.deepseek.com")
    assert registry.spec_for("gemini").credentials.key_vars == ("GEMINI_API_KEY", "GOOGLE_API_KEY")
    assert registry.spec_for("openrouter").credentials.default_url is None  # a URL is required
    paths = {spec.name: spec.models_list_path for spec in registry.SPECS}
    assert paths["anthropic"] == "/v1/models" and paths["gemini"] == "/v1beta/models"
    for spec in registry.SPECS:
        assert spec.credentials.url_var and spec.models_list_path.startswith("/")


def test_a_models_list_check_calls_the_providers_own_default_url():
    from agent.providers.models_list import endpoint

    assert endpoint("deepseek", None) == "https://api.deepseek.com"  # not the openai SDK's
    assert endpoint("deepseek", "http://127.0.0.1:9/x") == "http://127.0.0.1:9/x"
    assert endpoint("openrouter", None) is None  # a URL is required there (settings say so)
