"""Typed settings the agent runtime is built from (front ends build and pass them)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.cost.budget import Limits
from agent.messages import Reasoning
from agent.providers.base import ProviderSettings
from agent.providers.registry import wire_api
from agent.retry import RetryPolicy
from agent.sandbox.policy import SandboxSettings
from agent.tools.web.settings import WebSettings


@dataclass(frozen=True)
class AgentConfig:
    """The installation's settings a session is built with. Frozen, and never changed
    for a running session: what a person chooses for one conversation (model,
    personality, reasoning, extra system text, tools) is the session's `Choices`
    (agent/sessions/choices.py); the fields of the same names here are only the defaults a new
    session starts from.

    The installation fields that shape the prompt or the tool set are the gateway's
    agent-cache signature (see `signature_fields`).
    """

    provider: ProviderSettings  # a new session's provider (and model)
    home: Path
    cwd: Path
    toolsets: tuple[str, ...] | None = None  # None -> the default toolsets
    max_iterations: int = 90
    max_tokens: int = 8192
    cache_ttl: str = "5m"
    prefix_ttl: str | None = None
    ttl_explicit: bool = False  # cache.ttl or cache.prefix_ttl set by the user: no adaptive TTL
    keep_warm: str = "auto"  # "auto" | "off" (agent/cache/keeper.py)
    keep_warm_max_idle: float = 3 * 3600.0  # seconds of idle after which no keep-warm is sent
    cache_retention: str = "auto"  # OpenAI prompt_cache_retention: "auto" (24h where free) | "off"
    recall: bool = False
    fallback_model: str | None = None
    personality: str | None = None
    personality_text: str | None = None
    skills: tuple[str, ...] = ()
    ephemeral_extra: str = ""
    context_max_chars: int = 20_000
    prices: dict[str, Any] = field(default_factory=dict)
    context_windows: dict[str, int] = field(default_factory=dict)
    compression_threshold: float = 0.75
    compression_model: str | None = None
    yolo: bool = False
    plan: bool = False  # a new session starts in plan mode (`hermes --plan`)
    permissions: Any = None  # agent.permissions.rules.Rules (config.yaml `permissions:`)
    hooks: Any = None  # agent.hooks.config.Hooks (config.yaml `hooks:`; None or empty: none)
    commands: Any = None  # frontend.custom_commands.CustomCommands (/name from Markdown files)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    budget: Limits = field(default_factory=Limits)  # not in the signature: no prompt change
    source: str = "cli"
    owner: str | None = None
    # skill_manage is offered (the gateway: `gateway.skills_writable`, for every tenant
    # alike, so the tool list is the same for all); a tenant writes its own skills
    skill_writes: bool = True
    sandbox: SandboxSettings = field(default_factory=SandboxSettings)
    # a new session's thinking/effort (its choice from then on: /reasoning changes that)
    reasoning: Reasoning = field(default_factory=Reasoning)
    # agent.mcp.config.ServerConfig values; not in the signature: a session freezes its
    # MCP tools itself (agent/mcp/frozen.py)
    mcp_servers: tuple[Any, ...] = ()
    # where web_fetch may connect and which search backend serves web_search (none: the
    # tool is not offered, so whether there is one is in the signature)
    web: WebSettings = field(default_factory=WebSettings)
    # every provider this installation has a key for (the one of `provider` among them):
    # a session may switch to one of them with a model it makes (/model gpt-5.2 in an
    # Anthropic session); `settings_for` is how anything reaches them
    providers: tuple[ProviderSettings, ...] = ()
    # a scheduled job's run (frontend/cron/run.py): (started, id) shown in the environment
    # facts instead of the session's own, so every run sends the same system bytes
    pinned_env: tuple[str, str] | None = None

    def settings_for(self, provider: str) -> ProviderSettings | None:
        """How to reach `provider`: the default's settings (flags applied), else the
        configured one's; None when this installation has no key for it."""
        if provider == self.provider.provider:
            return self.provider
        return next((s for s in self.providers if s.provider == provider), None)

    def signature_fields(self) -> dict[str, Any]:
        """The installation settings that shape the prompt or tools (for the agent
        cache); a session's choices are not among them (agent/sessions/choices.py)."""
        return {
            "provider": self.provider.provider,
            "base_url": self.provider.base_url or "",
            "toolsets": sorted(self.toolsets) if self.toolsets is not None else None,
            "skills": list(self.skills),
            "cache_ttl": self.cache_ttl,
            "prefix_ttl": self.prefix_ttl or "",
            "recall": self.recall,
            "context_max_chars": self.context_max_chars,
            "max_iterations": self.max_iterations,
            "skill_writes": self.skill_writes,
            "web_search": self.web.search is not None,
        }


def signature(config: AgentConfig, api_key: str | None) -> str:
    """SHA-256 hex of the canonical JSON of everything that shapes the cached prefix:
    `signature_fields()`, the SHA-256 of the whole API key (never a prefix: many tokens
    share one) and the wire API. Same signature -> a cached agent may be reused."""
    fields = dict(config.signature_fields())
    fields["api_key_sha256"] = (
        hashlib.sha256(api_key.encode("utf-8")).hexdigest() if api_key is not None else None
    )
    settings = config.provider
    fields["api_mode"] = wire_api(settings.provider, settings.base_url, settings.api)
    fields["store"] = settings.store
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
