"""frontend/config/defaults.py is what the parsers really apply (fast tier): writing each
listed default into config.yaml builds the same AgentConfig as leaving it out."""

from __future__ import annotations

import pytest

from frontend.config.defaults import DEFAULTS
from frontend.config.settings import Settings
from frontend.setup import Flags, agent_config


def _nested(dotted: str, value: object) -> dict:
    *sections, leaf = dotted.split(".")
    node: dict = {leaf: value}
    for section in reversed(sections):
        node = {section: node}
    return node


@pytest.mark.parametrize("key", sorted(DEFAULTS))
def test_each_default_is_the_parsers_default(key, tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    base = {"provider": "anthropic"}
    plain = agent_config(Settings(tmp_path, raw=dict(base)), Flags(), tmp_path)
    written = agent_config(Settings(tmp_path, raw={**base, **_nested(key, DEFAULTS[key])}),
                           Flags(), tmp_path)
    assert written == plain


def test_a_wrong_default_would_be_caught(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    base = {"provider": "anthropic"}
    plain = agent_config(Settings(tmp_path, raw=dict(base)), Flags(), tmp_path)
    assert agent_config(Settings(tmp_path, raw={**base, "max_iterations": 91}), Flags(),
                        tmp_path) != plain
