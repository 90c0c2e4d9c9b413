"""Every key config.yaml may hold, nested ones included, so that a typo anywhere warns.

`SCHEMA` maps a key to None (a value, or a mapping whose keys the user names: models in
`prices`, servers in `mcp_servers`) or to the mapping of the keys its section knows.
`unknown_keys(raw)` lists the keys that are not there, each with "did you mean" when a
known key is close: `budget: {turn_token: 100}` would otherwise leave a limit silently off.
"""

from __future__ import annotations

from difflib import get_close_matches
from typing import Any

from agent.providers.openai import SETTINGS_SECTION as OPENAI_SECTION
from gateway.chat import platforms

Schema = dict[str, "Schema | None"]


def _keys(*names: str) -> Schema:
    return dict.fromkeys(names)


SCHEMA: Schema = {
    **_keys("provider", "model", "base_url", "api_key", "fallback_model", "max_iterations",
            "max_tokens", "toolsets", "personality", "personalities", "prices",
            "context_windows", "yolo", "skills", "timeout", "mcp_servers", "database_url",
            "permissions", "hooks",  # checked whole by their parsers (agent/permissions, agent/hooks)
            "warm", "warm_idle_minutes"),  # read by the warm start's client (hermes_cli/warm/settings.py)
    "cache": _keys("ttl", "prefix_ttl", "keep_warm", "keep_warm_max_idle", "extended_retention"),
    "memory": _keys("recall"),
    "compression": _keys("model", "threshold"),
    "context": _keys("max_chars"),
    "retry": _keys("attempts", "base_delay", "max_delay"),
    "budget": _keys("session_usd", "turn_tokens"),
    "cron": _keys("daily_usd"),  # a job's default spend per day (frontend/cron/jobs.py)
    "sandbox": _keys("enabled", "writable", "hidden", "pass_env", "env_allow", "network",
                     "allow_arming", "home_allow"),
    "reasoning": _keys("thinking", "effort"),
    OPENAI_SECTION: _keys("api", "store"),
    "web": {"allow_hosts": None, "search": _keys("provider", "url")},
    "gateway": {
        **_keys("access_log", "access_log_rate", "api_key", "api_keys", "body_timeout",
                "daily_usd_per_key", "db", "header_timeout", "hooks", "idle_ttl", "max_agents",
                "max_connections", "metrics_key", "skills_writable", "workers"),
        "rate_limit": _keys("requests_per_minute", "tokens_per_minute"),
        # each chat platform's section: its facts' config_keys (with_platforms(), below)
    },
}


def with_platforms() -> Schema:
    """SCHEMA with each chat platform's section (gateway/chat/platforms.py), whose
    values its builder checks."""
    sections: Schema = {p.name: _keys(*p.config_keys) for p in platforms.PLATFORMS}
    gateway = SCHEMA["gateway"]
    assert gateway is not None
    return {**SCHEMA, "gateway": {**gateway, **sections}}


def unknown_keys(raw: dict[str, Any], known: Schema | None = None, prefix: str = "") -> list[str]:
    """One warning per key of `raw` that `known` (default: `with_platforms()`) does not know,
    nested sections included."""
    schema = known if known is not None else with_platforms()
    warnings: list[str] = []
    for key in sorted(raw, key=str):
        dotted = f"{prefix}{key}"
        if key not in schema:
            close = get_close_matches(str(key), list(schema), n=1, cutoff=0.6)
            guess = f" - did you mean `{prefix}{close[0]}`?" if close else ""
            warnings.append(f"config.yaml: unknown setting `{dotted}` ignored{guess}")
            continue
        section, value = schema[key], raw[key]
        if section is not None and isinstance(value, dict):
            warnings.extend(unknown_keys(value, section, f"{dotted}."))
    return warnings
