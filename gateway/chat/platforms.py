"""The chat platforms hermes knows: one line each (docs/CHAT.md, "Adding a platform").

A platform is a package under gateway/chat/ with a pure-data `facts.py` (FACTS, a
gateway.chat.kit.facts.PlatformFacts) and a builder module (`FACTS.builder`, imported
only when the platform is configured, as provider adapters are). Everything that names
platforms asks here. Pure data like the facts: every layer may import this module.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

from gateway.chat.kit.facts import PlatformFacts
from gateway.chat.matrix.facts import FACTS as MATRIX
from gateway.chat.on_discord.facts import FACTS as DISCORD
from gateway.chat.slack.facts import FACTS as SLACK
from gateway.chat.telegram.facts import FACTS as TELEGRAM
from gateway.chat.whatsapp.facts import FACTS as WHATSAPP

PLATFORMS: tuple[PlatformFacts, ...] = (TELEGRAM, SLACK, DISCORD, MATRIX, WHATSAPP)


def names() -> tuple[str, ...]:
    return tuple(p.name for p in PLATFORMS)


def find(name: str) -> PlatformFacts | None:
    """The facts of platform `name`; None when there is none."""
    return next((p for p in PLATFORMS if p.name == name), None)


def builder(facts: PlatformFacts) -> ModuleType:
    """The platform's builder module (its SDK loads with it, so only when used)."""
    return importlib.import_module(f"{facts.package}.{facts.builder}")


def tokens_set(facts: PlatformFacts) -> bool:
    """Every token the platform needs is in the environment."""
    return all(os.environ.get(t, "").strip() for t in facts.tokens)
