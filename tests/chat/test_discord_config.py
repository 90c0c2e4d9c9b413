"""gateway.discord in config.yaml: when Discord starts, and each mistake as one clear
line (fast tier: settings only, nothing connects)."""

from __future__ import annotations

import pytest
import yaml

from agent.errors import ConfigError
from frontend.config.settings import load_settings
from gateway.chat.boot import configured


def _settings(home, **gateway):
    (home / "config.yaml").write_text(yaml.safe_dump({"gateway": gateway}), encoding="utf-8")
    return load_settings(home)


def test_discord_starts_when_its_token_is_set_with_its_settings(hermes_home, monkeypatch):
    monkeypatch.delenv("DISCORD_BOT_TOKEN", raising=False)
    assert configured(_settings(hermes_home)) == []
    monkeypatch.setenv("DISCORD_BOT_TOKEN", "token-1")
    settings = _settings(hermes_home, discord={"allowed_users": [42, "43"], "edit_interval": 2,
                                               "base_url": "http://127.0.0.1:9/api/v10"})
    ((adapter, policy),) = configured(settings)
    assert adapter.name == "discord" and adapter.token == "token-1"
    assert adapter.base_url == "http://127.0.0.1:9/api/v10" and adapter.edit_interval == 2.0
    assert policy.allowed_users == frozenset({"42", "43"}) and policy.mention_only
    ((default, _),) = configured(_settings(hermes_home))
    assert default.base_url == "https://discord.com/api/v10" and default.edit_interval == 1.0


def test_discord_configured_without_a_token_or_with_a_bad_id_is_one_clear_error(hermes_home,
                                                                                 monkeypatch):
    monkeypatch.delenv("DISCORD_BOT_TOKEN", raising=False)
    with pytest.raises(ConfigError, match="DISCORD_BOT_TOKEN is not set"):
        configured(_settings(hermes_home, discord={"allowed_users": [42]}))
    monkeypatch.setenv("DISCORD_BOT_TOKEN", "token-1")
    with pytest.raises(ConfigError, match="not a numeric Discord user id"):
        configured(_settings(hermes_home, discord={"allowed_users": ["@alice"]}))
