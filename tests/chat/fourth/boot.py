"""The fourth platform's builder: the console adapter under the name `fourth`."""

from __future__ import annotations

from typing import Any

from gateway.chat.base import ChatPolicy
from gateway.chat.console import ConsoleAdapter


class FourthAdapter(ConsoleAdapter):
    name = "fourth"


def build(settings: Any, facts: Any) -> list[tuple[Any, ChatPolicy]]:
    users = frozenset(str(u) for u in settings.get("gateway.fourth.allowed_users", [], kind=list))
    return [(FourthAdapter(), ChatPolicy(users))]
