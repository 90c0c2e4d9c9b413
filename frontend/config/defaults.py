"""The built-in value of each config.yaml setting that has a simple one, as a person
writes it: what `/config` and `hermes config list|get` show when nothing sets it.

The parsers (frontend/setup.py, cache_settings, openai_settings) apply these values;
tests/frontend/test_config_defaults.py checks that writing each of them into config.yaml
builds the very AgentConfig that leaving it out builds, so this table cannot drift.
Settings whose default depends on something else (`timeout`: the provider's stall limit;
`model`: the provider's default model; `cache.ttl`: adaptive unless written) are said
in words, not here.
"""

from __future__ import annotations

from typing import Any

DEFAULTS: dict[str, Any] = {
    "max_iterations": 90,
    "max_tokens": 8192,
    "yolo": False,
    "cache.keep_warm": "auto",
    "cache.keep_warm_max_idle": "3h",
    "cache.extended_retention": "auto",
    "memory.recall": False,
    "compression.threshold": 0.75,
    "context.max_chars": 20_000,
    "retry.attempts": 4,
    "retry.base_delay": 1.0,
    "retry.max_delay": 30.0,
    "sandbox.enabled": True,
    "openai.api": "auto",
    "openai.store": True,
}
