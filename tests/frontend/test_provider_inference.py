"""The model picks the provider: --provider > the provider a known
model belongs to > config.yaml's `provider:` > the first key set; a mismatch is warned."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.errors import ConfigError
from frontend.config.provider_choice import resolve_provider
from frontend.config.settings import Settings
from frontend.factory import session_flags
from frontend.setup import Flags

BOTH = {"ANTHROPIC_API_KEY": "a-key", "OPENAI_API_KEY": "o-key",
        "OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}


def resolve(raw: dict | None = None, env: dict | None = None, **flags):
    return resolve_provider(Settings(home=Path("/nonexistent"), raw=raw or {}),
                            environ=BOTH if env is None else env, **flags)


def test_a_known_model_picks_its_provider_and_its_env():
    choice = resolve(model="gpt-5.2")
    assert (choice.provider, choice.api_key, choice.base_url) == \
        ("openai", "o-key", "http://127.0.0.1:1/v1")
    assert choice.warnings == ()
    assert resolve(model="claude-sonnet-5", env={"ANTHROPIC_API_KEY": "a",
                                                 "OPENAI_API_KEY": "o"}).provider == "anthropic"
    # dated snapshots and ids only genai-prices' data knows are inferred too
    assert resolve(model="gpt-5.2-2025-12-11").provider == "openai"


def test_an_unknown_model_is_not_guessed():
    assert resolve(model="llama3").provider == "anthropic"  # first key set, as before
    assert resolve({"provider": "openai"}, model="llama3").provider == "openai"


def test_the_flag_beats_the_inference_and_says_so():
    choice = resolve(provider="anthropic", model="gpt-5.2")
    assert choice.provider == "anthropic" and choice.model == "gpt-5.2"
    (warning,) = choice.warnings
    assert "gpt-5.2 is an OpenAI model" in warning and "--provider anthropic" in warning


def test_the_inference_beats_config_and_leaves_its_key_behind():
    raw = {"provider": "anthropic", "api_key": "config-anthropic-key",
           "base_url": "http://127.0.0.1:2"}
    choice = resolve(raw, model="gpt-5.2")
    assert choice.provider == "openai"
    assert (choice.api_key, choice.base_url) == ("o-key", "http://127.0.0.1:1/v1")
    assert "config.yaml's `provider: anthropic`" in choice.warnings[0]
    # the model in config.yaml is inferred the same way
    assert resolve({"model": "gpt-5.2"}).provider == "openai"
    # config's key still serves its own provider
    assert resolve(raw, model="claude-sonnet-5").api_key == "config-anthropic-key"


def test_an_inferred_provider_without_a_key_says_which_to_set():
    with pytest.raises(ConfigError) as caught:
        resolve(env={"ANTHROPIC_API_KEY": "a"}, model="gpt-5.2")
    assert "missing API key for openai" in str(caught.value)
    assert "OPENAI_API_KEY" in caught.value.hint


def test_a_resumed_session_keeps_its_own_provider():
    row = {"provider": "openai", "model": "gpt-5.2"}
    flags = session_flags(Flags(), row)
    assert resolve({"provider": "anthropic"}, provider=flags.provider,
                   model=flags.model).provider == "openai"
    # naming a model on resume lets that model pick
    flags = session_flags(Flags(model="claude-sonnet-5"), row)
    assert resolve(provider=flags.provider, model=flags.model).provider == "anthropic"
