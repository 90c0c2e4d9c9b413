"""Turning settings + flags into the agent runtime's typed config (front-end side)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent.config import AgentConfig
from agent.errors import ConfigError
from agent.personalities import available as personalities
from agent.providers.base import ProviderSettings
from agent.retry import RetryPolicy
from hermes_cli.config import Settings, load_settings, resolve_provider

TTLS = ("5m", "1h")


@dataclass(frozen=True)
class Flags:
    """Command-line flags that shape a session (None = not given)."""

    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    skills: tuple[str, ...] = ()
    toolsets: tuple[str, ...] | None = None
    max_turns: int | None = None
    yolo: bool = False
    personality: str | None = None


def split_csv(values: list[str] | tuple[str, ...] | None) -> tuple[str, ...]:
    """`-s a,b -s c` -> ("a", "b", "c"), order kept, duplicates dropped."""
    out: list[str] = []
    for value in values or ():
        for part in value.split(","):
            part = part.strip()
            if part and part not in out:
                out.append(part)
    return tuple(out)


def _ttl(settings: Settings, key: str, default: str | None) -> str | None:
    value = settings.get(key, default, kind=str)
    if value is not None and value not in TTLS:
        raise ConfigError(f"config.yaml: `{key}` must be 5m or 1h, got {value!r}")
    return value


def agent_config(settings: Settings, flags: Flags, cwd: Path, source: str = "cli") -> AgentConfig:
    """Build the AgentConfig (raises ConfigError with a fix-it hint)."""
    choice = resolve_provider(settings, provider=flags.provider, model=flags.model,
                              base_url=flags.base_url)
    toolsets = flags.toolsets
    if toolsets is None and settings.get("toolsets") is not None:
        toolsets = tuple(str(t) for t in settings.get("toolsets", kind=list))
    personality = flags.personality or settings.get("personality", kind=str)
    table = personalities(settings.get("personalities", {}, kind=dict))
    if personality and personality not in table and personality != "none":
        raise ConfigError(f"unknown personality '{personality}'", f"available: {', '.join(table)}")
    if personality == "none":
        personality = None
    max_turns = flags.max_turns or settings.get("max_iterations", 90, kind=int)
    if max_turns < 1:
        raise ConfigError("--max-turns must be at least 1")
    retry = RetryPolicy(
        attempts=settings.get("retry.attempts", 4, kind=int),
        base=float(settings.get("retry.base_delay", 1.0, kind=(int, float))),
        cap=float(settings.get("retry.max_delay", 30.0, kind=(int, float))),
    )
    skills = flags.skills or tuple(str(s) for s in settings.get("skills", [], kind=list))
    return AgentConfig(
        provider=ProviderSettings(choice.provider, choice.model, choice.api_key, choice.base_url),
        home=settings.home,
        cwd=cwd,
        toolsets=toolsets,
        max_iterations=max_turns,
        max_tokens=settings.get("max_tokens", 8192, kind=int),
        cache_ttl=_ttl(settings, "cache.ttl", "5m") or "5m",
        prefix_ttl=_ttl(settings, "cache.prefix_ttl", None),
        recall=bool(settings.get("memory.recall", False, kind=bool)),
        fallback_model=settings.get("fallback_model", kind=str),
        personality=personality,
        personality_text=table.get(personality) if personality else None,
        skills=skills,
        context_max_chars=settings.get("context.max_chars", 20_000, kind=int),
        prices=settings.get("prices", {}, kind=dict),
        context_windows=settings.get("context_windows", {}, kind=dict),
        compression_threshold=float(settings.get("compression.threshold", 0.75, kind=(int, float))),
        compression_model=settings.get("compression.model", kind=str),
        yolo=flags.yolo or bool(settings.get("yolo", False, kind=bool)),
        retry=retry,
        source=source,
    )


def open_store(settings: Settings):
    """The session store in HERMES_HOME/state.db."""
    from memory.store import SessionStore

    return SessionStore(settings.home / "state.db")


__all__ = ["Flags", "agent_config", "load_settings", "open_store", "split_csv"]
