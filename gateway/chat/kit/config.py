"""Settings every platform's builder reads the same way: ids lists, the token."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from agent.errors import ConfigError

if TYPE_CHECKING:
    from frontend.config.settings import Settings
    from gateway.chat.kit.facts import PlatformFacts


def numeric_ids(settings: Settings, dotted: str, what: str) -> frozenset[str]:
    """The ids listed at `dotted` (numbers or numeric strings; ConfigError otherwise)."""
    values = settings.get(dotted, [], kind=list)
    for value in values:
        if not isinstance(value, int) and not (isinstance(value, str) and value.lstrip("-").isdigit()):
            raise ConfigError(f"{dotted} holds {value!r}, not a numeric {what} id",
                              f"list numeric ids under {dotted} in config.yaml")
    return frozenset(str(v) for v in values)


def token(settings: Settings, facts: PlatformFacts, name: str | None = None) -> str:
    """The platform's token `name` (default its first) from the environment; ConfigError
    naming the variable when it is not set."""
    name = name or facts.tokens[0]
    value = os.environ.get(name, "").strip()
    if not value:
        raise ConfigError(f"gateway.{facts.name} is configured but {name} is not set",
                          f"put {name}=... in {settings.home}/.env or the environment")
    return value
