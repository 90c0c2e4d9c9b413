"""The idle-cache settings of config.yaml, checked at start-up.

    cache:
      keep_warm: auto          # auto | off: keep-warm reads and adaptive TTLs while idle
      keep_warm_max_idle: 3h   # never keep a cache warm longer than this (s, m or h)
      extended_retention: auto # auto | off: OpenAI prompt_cache_retention "24h" where free

`cache.ttl` / `cache.prefix_ttl` set explicitly win over the adaptive TTL choice.
"""

from __future__ import annotations

import re
from typing import Any

from agent.errors import ConfigError
from frontend.config.settings import Settings

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*$")
_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0}


def _choice(settings: Settings, key: str) -> str:
    value = settings.get(key, "auto", kind=str)
    if value not in ("auto", "off"):
        raise ConfigError(f"config.yaml: `{key}` must be auto or off, got {value!r}",
                          f"e.g. `cache: {{{key.split('.')[-1]}: off}}`")
    return value


def _duration(settings: Settings, key: str, default: float) -> float:
    value = settings.get(key, None, kind=(int, float, str))
    if value is None:
        return default
    match = _DURATION.match(str(value))
    if match is None or float(match.group(1)) <= 0:
        raise ConfigError(f"config.yaml: `{key}` must be a positive duration, got {value!r}",
                          "write seconds or a number with s, m or h, e.g. `keep_warm_max_idle: 90m`")
    return float(match.group(1)) * _UNITS[match.group(2)]


def cache_options(settings: Settings) -> dict[str, Any]:
    """AgentConfig keyword arguments for the idle-cache settings."""
    explicit = (settings.get("cache.ttl", None) is not None
                or settings.get("cache.prefix_ttl", None) is not None)
    return {
        "ttl_explicit": explicit,
        "keep_warm": _choice(settings, "cache.keep_warm"),
        "keep_warm_max_idle": _duration(settings, "cache.keep_warm_max_idle", 3 * 3600.0),
        "cache_retention": _choice(settings, "cache.extended_retention"),
    }
