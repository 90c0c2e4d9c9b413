"""A session's choices: what a person (or a client) chose for one conversation.

`Choices` is a frozen value held by the Session (`Session.choices`): the model and its
provider, the personality (name and text), the reasoning settings, the extra system
text (the ephemeral layer's instructions), the mode ("plan" or empty) and
the frozen tool schemas the session sends (built-in + frozen MCP tools). Nothing copies
it: the SessionFactory, the ModelCaller, the Compactor and sub-agent spawning read it
through the session, and only the SessionFactory replaces it (/model, /personality,
/reasoning, /mcp reload, a client's new system text), each change announced. `/new`,
compression's child and sub-agents inherit it.

`api` is the wire API of OpenAI's family ("responses" or "chat", "" for a provider with one
wire): chosen once from config.yaml's `openai.api` when the session starts, then kept, so a
later config change never flips a stored session's wire format (SessionFactory.resume
announces the difference; `/new` does not re-read it either: it inherits the choices).

The sessions row stores it (`model`, `provider`, `personality`, the tool columns, and
`choices`: canonical JSON of the rest), so `--resume` and a gateway worker that rebuilds
the agent restore the same choices and send the same bytes. `AgentConfig` holds only the
installation's settings and the defaults a new session starts from.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from agent.config import AgentConfig
from agent.errors import ConfigError
from agent.messages import Reasoning, ToolSchema
from agent.providers.base import ProviderSettings
from agent.providers.reasoning import parse
from agent.providers.registry import api_label, find, session_api, wire_api


@dataclass(frozen=True)
class Choices:
    """One session's choices (see the module docstring)."""

    model: str
    provider: str
    personality: str | None = None
    personality_text: str | None = None
    reasoning: Reasoning = field(default_factory=Reasoning)
    system: str = ""  # extra system text, sent in the ephemeral layer
    mode: str = ""  # "" or "plan" (agent/permissions/plan.py)
    tools: tuple[ToolSchema, ...] = ()  # the frozen tool schemas, in send order
    api: str = ""  # OpenAI's family: "responses" | "chat" (module docstring)

    @classmethod
    def defaults(cls, config: AgentConfig, tools: tuple[ToolSchema, ...]) -> Choices:
        """A new session's choices: the installation's defaults."""
        return cls(config.provider.model, config.provider.provider, config.personality,
                   config.personality_text, config.reasoning, config.ephemeral_extra,
                   mode="plan" if config.plan else "", tools=tools,
                   api=api_of(config.provider))

    def settings(self, config: AgentConfig) -> ProviderSettings:
        """How this session reaches its provider: the installation's settings for it,
        with this session's wire API. ConfigError when the installation has no key for
        it (a stored session's provider that is no longer configured)."""
        base = config.settings_for(self.provider)
        if base is None:
            spec = find(self.provider)
            hint = f"set {spec.key_var} (shell or .env)" if spec is not None else ""
            raise ConfigError(f"this session talks to {self.provider}, which has no key "
                              "configured here", hint)
        return replace(base, api=self.api) if self.api else base

    def wire(self, config: AgentConfig) -> str:
        """The wire API this session speaks (agent.providers.registry.wire_api)."""
        settings = self.settings(config)
        return wire_api(self.provider, settings.base_url, settings.api)

    def stored(self) -> str:
        """The choices the row's other columns do not hold, as canonical JSON."""
        data = {"personality": self.personality, "personality_text": self.personality_text,
                "reasoning": self.reasoning.as_text(), "system": self.system, "mode": self.mode}
        if self.api:
            data["api"] = self.api
        return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    def restored(self, row: dict[str, Any]) -> Choices:
        """These choices with what a stored session row chose (a row stored before
        choices were kept: its personality name only)."""
        text = row.get("choices")
        if not text:
            return replace(self, personality=row.get("personality") or self.personality)
        data = json.loads(text)
        # the stored wire API holds while the provider does (a resume on another provider
        # takes that provider's)
        api = data.get("api") if row.get("provider") == self.provider else None
        return replace(self, api=api or self.api, personality=data.get("personality"),
                       personality_text=data.get("personality_text"),
                       reasoning=parse(data["reasoning"]) if data.get("reasoning") else self.reasoning,
                       system=data.get("system") or "", mode=data.get("mode") or "")

    @property
    def api_name(self) -> str:
        return api_label(self.api)

    @property
    def tool_names(self) -> list[str]:
        return [t.name for t in self.tools]


def api_of(settings: ProviderSettings) -> str:
    """The wire API `settings` select for a new session (Choices.api)."""
    return session_api(wire_api(settings.provider, settings.base_url, settings.api))
