"""`cache:` idle settings (fast tier): defaults, durations, explicit TTLs, bad values."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.errors import ConfigError
from frontend.config.cache_settings import cache_options
from frontend.config.settings import Settings


def options(raw: dict) -> dict:
    return cache_options(Settings(home=Path("/nonexistent"), raw=raw))


def test_defaults():
    assert options({}) == {"ttl_explicit": False, "keep_warm": "auto",
                           "keep_warm_max_idle": 10800.0, "cache_retention": "auto"}


def test_values_and_explicit_ttl():
    got = options({"cache": {"keep_warm": "off", "keep_warm_max_idle": "90m", "ttl": "1h",
                             "extended_retention": "off"}})
    assert got == {"ttl_explicit": True, "keep_warm": "off", "keep_warm_max_idle": 5400.0,
                   "cache_retention": "off"}
    assert options({"cache": {"prefix_ttl": "1h"}})["ttl_explicit"] is True
    assert options({"cache": {"keep_warm_max_idle": 600}})["keep_warm_max_idle"] == 600.0


@pytest.mark.parametrize(("raw", "words"), [
    ({"cache": {"keep_warm": "sometimes"}}, "must be auto or off"),
    ({"cache": {"keep_warm_max_idle": "soon"}}, "positive duration"),
    ({"cache": {"keep_warm_max_idle": "0m"}}, "positive duration"),
])
def test_bad_values_are_one_clear_line(raw, words):
    with pytest.raises(ConfigError) as info:
        options(raw)
    assert words in str(info.value) and "\n" not in str(info.value)
