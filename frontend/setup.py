"""Turning settings + flags into the agent runtime's typed config (front-end side)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.config import AgentConfig
from agent.cost.budget import Limits
from agent.errors import ConfigError
from agent.mcp.config import parse_servers
from agent.messages import Reasoning
from agent.providers import registry
from agent.providers.base import ProviderSettings
from agent.providers.reasoning import USAGE as REASONING_USAGE
from agent.providers.reasoning import from_config, parse, problem
from agent.retry import RetryPolicy
from frontend.config.cache_settings import cache_options
from frontend.config.openai_settings import openai_options
from frontend.config.provider_choice import resolve_provider
from frontend.config.sandbox_setup import sandbox_settings
from frontend.config.settings import Settings, check_home, load_settings
from frontend.config.web_setup import web_settings
from frontend.model_switch import configured_providers
from frontend.personalities import available as personalities
from frontend.project import Project, layered

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
    max_usd: float | None = None
    max_turn_tokens: int | None = None
    no_sandbox: bool = False
    continue_any: bool = False  # -c/--continue-any: the latest session of any kind and place
    reasoning: str | None = None  # --reasoning: thinking and effort for this run
    plan: bool = False  # --plan: a new session starts in plan mode


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
        raise ConfigError(f"config.yaml: `{key}` must be 5m or 1h, got {value!r}",
                          "the provider caches for 5 minutes or 1 hour only, e.g. `cache: {ttl: 1h}`")
    return value


PRICE_KEYS = ("input", "output", "cache_read", "cache_write_5m", "cache_write_1h",
              "cache_read_multiplier", "cache_write_5m_multiplier", "cache_write_1h_multiplier",
              "storage_hour")


def _prices(settings: Settings) -> dict[str, Any]:
    """`prices:` checked now, so a typo fails at start-up, not after a paid call."""
    table = settings.get("prices", {}, kind=dict)
    example = "prices: {my-model: {input: 3.0, output: 15.0}}"
    for model, entry in table.items():
        if not isinstance(entry, dict):
            raise ConfigError(f"config.yaml: `prices.{model}` must be a mapping of prices, "
                              f"got {entry!r}", f"for example `{example}` ($ per million tokens)")
        for key, value in entry.items():
            if key not in PRICE_KEYS:
                raise ConfigError(f"config.yaml: unknown price `prices.{model}.{key}`",
                                  f"use: {', '.join(PRICE_KEYS)}")
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise ConfigError(f"config.yaml: `prices.{model}.{key}` must be a number >= 0, "
                                  f"got {value!r}", f"for example `{example}`")
    return table


def _context_windows(settings: Settings) -> dict[str, Any]:
    table = settings.get("context_windows", {}, kind=dict)
    for model, value in table.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(f"config.yaml: `context_windows.{model}` must be a whole number of "
                              f"tokens, got {value!r}", "for example `context_windows: {my-model: 128000}`")
    return table


def _personalities(settings: Settings) -> dict[str, str]:
    table = settings.get("personalities", {}, kind=dict)
    for name, text in table.items():
        if not isinstance(text, str) or not text.strip():
            raise ConfigError(f"config.yaml: personality `{name}` must be its instructions as text, "
                              f"got {text!r}", "for example `personalities: {pirate: Talk like a pirate.}`")
    return personalities(table)


def _names(settings: Settings, key: str) -> tuple[str, ...] | None:
    """A list-of-names setting (`toolsets`, `skills`); None when absent."""
    values = settings.get(key, kind=list)
    if values is None:
        return None
    bad = [v for v in values if not isinstance(v, str) or not v.strip()]
    if bad:
        raise ConfigError(f"config.yaml: `{key}` must be a list of names, got {bad[0]!r} in it",
                          f"for example `{key}: [{'file, terminal' if key == 'toolsets' else 'debugging'}]`")
    return tuple(v.strip() for v in values)


def budget_limits(settings: Settings, flags: Flags) -> Limits:
    """`budget:` in config.yaml, the flags winning (checked now, not after a paid call)."""
    usd = flags.max_usd
    if usd is None and settings.get("budget.session_usd") is not None:
        usd = float(settings.number("budget.session_usd", 0.0, lo=0, above=True))
    elif usd is not None and not 0 < usd < float("inf"):  # also nan: no comparison holds
        raise ConfigError(f"--max-usd must be a finite number more than 0, got {usd:g}",
                          "it is the most this session may spend, in US dollars, e.g. --max-usd 2")
    tokens = flags.max_turn_tokens
    if tokens is None and settings.get("budget.turn_tokens") is not None:
        tokens = settings.number("budget.turn_tokens", 0, lo=1, whole=True)
    elif tokens is not None and tokens < 1:
        raise ConfigError(f"--max-turn-tokens must be at least 1, got {tokens}",
                          "it is the tokens (input + output) one turn may use, e.g. 200000")
    return Limits(turn_tokens=tokens, session_usd=usd)


def reasoning_settings(settings: Settings, flags: Flags, provider: str, model: str) -> Reasoning:
    """`reasoning:` in config.yaml, `--reasoning` over it; checked against the model now
    (a refused setting is one clear line before any call, not a 400 after one)."""
    source = "--reasoning" if flags.reasoning is not None else "config.yaml `reasoning`"
    try:
        value = from_config(settings.get("reasoning"))
        if flags.reasoning is not None:
            value = parse(flags.reasoning, value)
    except ValueError as exc:
        raise ConfigError(f"{source}: {exc}", f"use {REASONING_USAGE}") from None
    why = problem(value, provider, model)
    if why is not None:
        raise ConfigError(f"{source}: {why}", f"use {REASONING_USAGE}")
    return value


def agent_config(settings: Settings, flags: Flags, cwd: Path, source: str = "cli",  # noqa: PLR0913
                 warnings: list[str] | None = None, project: Project | None = None) -> AgentConfig:
    """Build the AgentConfig (raises ConfigError with a fix-it hint); what the user should
    hear at start (a provider/model mismatch) is appended to `warnings`. `project`: a
    trusted project's .hermes/ settings (frontend/project.py)."""
    choice = resolve_provider(settings, provider=flags.provider, model=flags.model,
                              base_url=flags.base_url)
    if warnings is not None:
        warnings.extend(choice.warnings)
    toolsets = flags.toolsets if flags.toolsets is not None else _names(settings, "toolsets")
    personality = flags.personality or settings.get("personality", kind=str)
    table = _personalities(settings)
    if personality and personality not in table and personality != "none":
        raise ConfigError(f"unknown personality '{personality}'", f"available: {', '.join(table)}")
    if personality == "none":
        personality = None
    if flags.max_turns is not None:  # 0 is a value, not "unset"
        if flags.max_turns < 1:
            raise ConfigError(f"--max-turns must be at least 1, got {flags.max_turns}",
                              "it is the number of tool iterations allowed per turn (default 90)")
        max_turns = flags.max_turns
    else:
        max_turns = settings.number("max_iterations", 90, lo=1, whole=True)
    retry = RetryPolicy(
        attempts=settings.number("retry.attempts", 4, lo=1, hi=100, whole=True),
        base=float(settings.number("retry.base_delay", 1.0, lo=0)),
        cap=float(settings.number("retry.max_delay", 30.0, lo=0)),
    )
    skills = flags.skills or _names(settings, "skills") or ()
    stall = registry.spec_for(choice.provider).stall_timeout  # README, "Timeouts"
    timeout = float(settings.number("timeout", stall, lo=0, above=True))
    sandbox = sandbox_settings(settings, flags.no_sandbox, source)
    chosen = ProviderSettings(choice.provider, choice.model, choice.api_key, choice.base_url,
                              timeout=timeout, **openai_options(settings))
    return AgentConfig(
        provider=chosen,
        providers=configured_providers(settings, chosen, warnings=warnings),
        home=settings.home,
        cwd=cwd,
        toolsets=toolsets,
        max_iterations=max_turns,
        max_tokens=settings.number("max_tokens", 8192, lo=1, whole=True),
        cache_ttl=_ttl(settings, "cache.ttl", "5m") or "5m",
        prefix_ttl=_ttl(settings, "cache.prefix_ttl", None),
        **cache_options(settings),
        recall=bool(settings.get("memory.recall", False, kind=bool)),
        fallback_model=settings.get("fallback_model", kind=str),
        personality=personality,
        personality_text=table.get(personality) if personality else None,
        skills=skills,
        context_max_chars=settings.number("context.max_chars", 20_000, lo=0, whole=True),
        prices=_prices(settings),
        context_windows=_context_windows(settings),
        compression_threshold=float(settings.number("compression.threshold", 0.75, lo=0, hi=1, above=True)),
        compression_model=settings.get("compression.model", kind=str),
        plan=flags.plan,
        **layered(settings, source, project, warnings if warnings is not None else []),
        yolo=flags.yolo or bool(settings.get("yolo", False, kind=bool)),
        retry=retry,
        budget=budget_limits(settings, flags),
        source=source,
        # the gateway offers skill_manage only when asked, to every tenant alike
        skill_writes=source != "gateway" or bool(settings.get("gateway.skills_writable", False,
                                                              kind=bool)),
        sandbox=sandbox,
        reasoning=reasoning_settings(settings, flags, choice.provider, choice.model),
        mcp_servers=parse_servers(settings.raw.get("mcp_servers"), env_allow=sandbox.env_allow),
        web=web_settings(settings, sandbox),  # network: off -> no web tools
    )


def open_store(settings: Settings, *, read_only: bool = False):
    """The session store: HERMES_HOME/state.db, or the PostgreSQL database of
    HERMES_DATABASE_URL / `database_url` (frontend/config/store_setup.py)."""
    from frontend.config.store_setup import open_configured_store

    check_home(settings.home)
    return open_configured_store(settings, read_only=read_only)


__all__ = ["Flags", "agent_config", "load_settings", "open_store", "split_csv"]
