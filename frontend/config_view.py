"""`/config`: the settings in force for this session and where each came from.

Pure: it reads what was already decided (the Settings read at start, the command-line
Flags, the session's choices and the trusted project's settings) and says for each
value its source - a flag, config.yaml, a project's .hermes/config.yaml, an environment
variable, or the built-in default. Secrets are never shown, only whether and where they
are set.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from agent.providers import models, registry
from frontend.config.defaults import DEFAULTS
from frontend.config.dotenv_rules import from_dotenv
from frontend.config.settings import Settings
from frontend.setup import Flags

SECRET = re.compile(r"(^|_)(key|keys|token|secret|password)$|^database_url$|^api_key$")
FLAG_NAMES = {"max_turns": "--max-turns", "max_usd": "--max-usd",
              "max_turn_tokens": "--max-turn-tokens", "no_sandbox": "--no-sandbox",
              "continue_any": "--continue-any", "base_url": "--base-url"}


@dataclass(frozen=True)
class Setting:
    key: str
    value: str
    source: str


def shown(key: str, value: Any) -> str:
    """A value as the user wrote it, a secret as "set (hidden)"."""
    if SECRET.search(key.rsplit(".", 1)[-1]):
        return "set (hidden)" if value else "not set"
    text = str(value) if not isinstance(value, str) else value
    return text if len(text) <= 60 else text[:57] + "..."


def leaves(raw: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """config.yaml's values by dotted key, nested sections walked."""
    out: list[tuple[str, Any]] = []
    for key in sorted(raw, key=str):
        value, dotted = raw[key], f"{prefix}{key}"
        if isinstance(value, Mapping) and value:
            out.extend(leaves(value, dotted + "."))
        else:
            out.append((dotted, value))
    return out


def flag_rows(flags: Flags) -> list[Setting]:
    """The command-line flags this run was given."""
    rows = []
    for f in fields(flags):
        value = getattr(flags, f.name)
        if value in (None, False, (), ""):
            continue
        flag = FLAG_NAMES.get(f.name, "--" + f.name.replace("_", "-"))
        text = ",".join(value) if isinstance(value, tuple) else value
        rows.append(Setting(f.name.replace("_", "-"), shown(f.name, text), f"command line {flag}"))
    return rows


def _source(flag: Any, flag_name: str, settings: Settings, key: str, env_var: str | None,
            environ: Mapping[str, str], default: str) -> str:
    if flag:
        return f"command line {flag_name}"
    if settings.get(key) is not None:
        return f"{settings.home / 'config.yaml'} `{key}`"
    if env_var and environ.get(env_var):
        if environ is os.environ and from_dotenv(env_var):
            return f"{settings.home / '.env'} {env_var}"
        return f"environment {env_var}"
    return default


def session_rows(settings: Settings, flags: Flags, model: str, provider: str,
                 environ: Mapping[str, str] | None = None) -> list[Setting]:
    """Model, provider, endpoint and key of the session, with their sources."""
    env = os.environ if environ is None else environ
    spec = registry.find(provider)
    key_var = spec.key_var if spec else None
    url_var = spec.url_var if spec else None
    configured = flags.model or settings.get("model")
    if model == configured:
        model_from = _source(flags.model, "--model", settings, "model", None, env, "")
    elif configured is None and model == models.default_model(provider):
        model_from = f"the default model of {registry.label(provider)} (no --model or `model:`)"
    else:
        model_from = "this session (/model or --resume)"
    provider_from = _source(flags.provider, "--provider", settings, "provider", None, env,
                            "inferred from the model, or the first provider with a key")
    url = flags.base_url or settings.get("base_url") or (env.get(url_var) if url_var else None)
    key_set = bool(settings.get("api_key") or (key_var and env.get(key_var)))
    return [
        Setting("model", model, model_from),
        Setting("provider", provider, provider_from),
        Setting("base_url", url or "the provider's default endpoint",
                _source(flags.base_url, "--base-url", settings, "base_url", url_var, env,
                        "built-in default")),
        Setting("api_key", "set (hidden)" if key_set else "not set",
                _source(None, "", settings, "api_key", key_var, env, "not set")),
    ]


def default_rows(settings: Settings, done: set[str]) -> list[Setting]:
    """The built-in values of the settings nothing set (frontend/config/defaults.py)."""
    return [Setting(key, shown(key, value), "default") for key, value in DEFAULTS.items()
            if key not in done and settings.get(key) is None]


def in_force(settings: Settings, flags: Flags, model: str, provider: str,
             environ: Mapping[str, str] | None = None) -> list[Setting]:
    """Every row /config shows: the session's provider settings, the flags, then
    config.yaml's values, then the defaults in force (a trusted project's rules and
    hooks: /permissions)."""
    rows = session_rows(settings, flags, model, provider, environ)
    done = {r.key for r in rows}
    rows += [r for r in flag_rows(flags) if r.key.replace("-", "_") not in done]
    user = str(settings.home / "config.yaml")
    rows += [Setting(key, shown(key, value), user) for key, value in leaves(settings.raw)
             if key not in done]
    return rows + default_rows(settings, done | {r.key for r in rows})
