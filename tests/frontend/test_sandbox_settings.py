"""`sandbox:` settings (fast tier): network choices with YAML's booleans, the environment
allowlist and its `pass_env` alias, defaults per front end, bad values in one clear line."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from agent.errors import ConfigError
from frontend.config.sandbox_setup import sandbox_settings
from frontend.config.settings import Settings


def settings(text: str, source: str = "cli"):
    return sandbox_settings(Settings(home=Path("/nonexistent"), raw=yaml.safe_load(text) or {}),
                            source=source)


@pytest.mark.parametrize(("text", "want"), [
    ("sandbox: {network: off}", "off"), ("sandbox: {network: false}", "off"),
    ("sandbox: {network: no}", "off"), ("sandbox: {network: on}", "on"),
    ("sandbox: {network: true}", "on"), ("sandbox: {network: public}", "public"),
    ("sandbox: {network: PUBLIC}", "public"), ("sandbox: {network: 'off'}", "off"),
])
def test_network_choices(text: str, want: str) -> None:
    assert settings(text).network == want
    assert settings(text, source="gateway").network == want  # an explicit choice holds there too


def test_network_defaults_per_front_end() -> None:
    assert settings("").network == "public"
    assert settings("", source="gateway").network == "off"


@pytest.mark.parametrize(("text", "words"), [
    ("sandbox: {network: internet}", "`sandbox.network` must be off, public or on, got 'internet'"),
    ("sandbox: {network: 1}", "`sandbox.network` must be"),
    ("sandbox: {env_allow: GITHUB_TOKEN}", "`sandbox.env_allow` must be"),
    ("sandbox: {env_allow: ['A B']}", "entries must be variable names"),
    ("sandbox: {pass_env: ['X=1']}", "entries must be variable names"),
    ("sandbox: {env_allow: ['*']}", "entries must be variable names"),
    ("sandbox: {env_allow: [3]}", "`sandbox.env_allow` must be a list of text entries"),
])
def test_bad_values_say_what_is_wrong(text: str, words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        settings(text)
    assert words in str(caught.value) and "\n" not in str(caught.value)


def test_env_allow_and_its_pass_env_alias() -> None:
    got = settings("sandbox: {env_allow: [GITHUB_TOKEN, 'MYAPP_*'], pass_env: [NPM_TOKEN]}")
    assert got.env_allow == ("GITHUB_TOKEN", "MYAPP_*", "NPM_TOKEN")
