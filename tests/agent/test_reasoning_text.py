"""Reasoning settings round-trip through their stored text (gateway routes keep it)."""

from __future__ import annotations

import pytest

from agent.messages import Reasoning
from agent.providers.reasoning import parse


@pytest.mark.parametrize("settings", [
    Reasoning(), Reasoning("adaptive"), Reasoning("budget", 8000, "high"),
    Reasoning("off", 0, "low"), Reasoning("adaptive", 0, "max"),
])
def test_as_text_parses_back_to_the_same_settings(settings):
    assert parse(settings.as_text()) == settings
