"""Typed settings: HERMES_HOME, config.yaml, .env, and provider resolution.

Precedence for provider settings: CLI flag > config.yaml > the provider's own env vars
(ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL / OPENAI_API_KEY / OPENAI_BASE_URL, which may
come from HERMES_HOME/.env) > SDK defaults. A base URL set by env is never overridden
by a hard-coded one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.errors import ConfigError

PROVIDERS = ("anthropic", "openai")
ENV_KEYS = {"anthropic": ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
            "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
NO_PROVIDER_HINT = (
    "set ANTHROPIC_API_KEY or OPENAI_API_KEY (in your shell or in {home}/.env), or put "
    "`provider: anthropic|openai` and `api_key: ...` in {home}/config.yaml; for a local "
    "OpenAI-compatible server use `hermes --provider openai --base-url http://127.0.0.1:8080/v1`"
)
KNOWN_KEYS = {
    "provider", "model", "base_url", "api_key", "fallback_model", "max_iterations",
    "max_tokens", "toolsets", "cache", "memory", "compression", "context", "personality",
    "personalities", "prices", "context_windows", "gateway", "yolo", "skills", "retry",
}


def hermes_home(environ: dict[str, str] | None = None) -> Path:
    """HERMES_HOME, default ~/.hermes (not created here)."""
    env = os.environ if environ is None else environ
    value = env.get("HERMES_HOME")
    return Path(value).expanduser() if value else Path.home() / ".hermes"


def load_dotenv(path: Path, environ: dict[str, str] | None = None) -> None:
    """Load KEY=VALUE lines into the environment without overriding what is set."""
    env = os.environ if environ is None else environ
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[7:].lstrip()
        key, sep, value = line.partition("=")
        if not sep or not key.strip().isidentifier():
            raise ConfigError(f"{path} line {number}: expected KEY=VALUE", "fix or remove that line")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        env.setdefault(key.strip(), value)


def load_yaml(path: Path) -> dict[str, Any]:
    """Parse config.yaml; a syntax error names the line. Missing file -> {}."""
    if not path.exists():
        return {}
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f" line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ConfigError(f"{path}{where}: {exc.problem or exc}",
                          "fix the YAML syntax there (indentation, a missing colon, quotes)") from None
    except (yaml.YAMLError, OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read it ({exc})") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a mapping of settings (key: value)")
    return data


@dataclass
class Settings:
    """The user's configuration, validated."""

    home: Path
    raw: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def get(self, dotted: str, default: Any = None, kind: type | tuple[type, ...] | None = None) -> Any:
        """A value by dotted path ("cache.ttl"), type-checked with a clear error."""
        node: Any = self.raw
        for part in dotted.split("."):
            if not isinstance(node, dict) or part not in node:
                return default
            node = node[part]
        if node is None:
            return default
        if kind is not None and not isinstance(node, kind) or isinstance(node, bool) and kind in (int, float):
            expected = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
            raise ConfigError(f"config.yaml: `{dotted}` must be {expected}, got {node!r}",
                              f"edit {self.home / 'config.yaml'}")
        return node


def load_settings(home: Path | None = None) -> Settings:
    """Read HERMES_HOME/.env (into the environment) and config.yaml."""
    home = home or hermes_home()
    load_dotenv(home / ".env")
    raw = load_yaml(home / "config.yaml")
    settings = Settings(home=home, raw=raw)
    for key in sorted(set(raw) - KNOWN_KEYS):
        settings.warnings.append(f"config.yaml: unknown setting `{key}` ignored")
    return settings


@dataclass(frozen=True)
class ProviderChoice:
    """Resolved provider settings (key/base URL None -> the SDK reads its env)."""

    provider: str
    model: str
    api_key: str | None
    base_url: str | None


def resolve_provider(settings: Settings, *, provider: str | None = None, model: str | None = None,
                     base_url: str | None = None, environ: dict[str, str] | None = None) -> ProviderChoice:
    """Apply the precedence rules; raise ConfigError saying exactly how to configure."""
    from agent import models

    env = os.environ if environ is None else environ
    name = provider or settings.get("provider", kind=str)
    if name is None:
        name = next((p for p in PROVIDERS if env.get(ENV_KEYS[p][0])), None)
        if name is None and env.get("OPENAI_BASE_URL"):
            name = "openai"
    if name is None:
        raise ConfigError("no provider configured", NO_PROVIDER_HINT.format(home=settings.home))
    if name not in PROVIDERS:
        raise ConfigError(f"unknown provider '{name}'", f"choose one of: {', '.join(PROVIDERS)}")
    key_var, url_var = ENV_KEYS[name]
    url = base_url or settings.get("base_url", kind=str) or env.get(url_var) or None
    key = settings.get("api_key", kind=str) or env.get(key_var) or None
    if key is None and name == "openai" and url:
        key = "sk-no-key-required"  # local OpenAI-compatible servers (llama.cpp, Ollama)
    if key is None:
        raise ConfigError(f"missing API key for {name}",
                          f"set {key_var} (shell or {settings.home}/.env) or `api_key:` in "
                          f"{settings.home}/config.yaml")
    chosen = model or settings.get("model", kind=str) or models.default_model(name)
    return ProviderChoice(name, chosen, key, url)
