"""Matrix's settings: the token and `gateway: matrix:` in config.yaml.

    gateway:
      matrix:
        homeserver: https://matrix.example.org   # the client-server API's base URL
        user_id: "@hermes:example.org"           # the bot's account
        allowed_users: ["@alice:example.org"]    # deny by default; ids taken as they are
        edit_interval: 2.0                       # s between edits of a streamed answer
        leader_ttl: 30                           # s (>= 3); several workers: one syncs
Token: MATRIX_ACCESS_TOKEN (the bot account's access token) in the environment or
HERMES_HOME/.env. Matrix starts when the section is there.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from typing import TYPE_CHECKING

from agent.errors import ConfigError
from gateway.chat.base import Adapter, ChatPolicy
from gateway.chat.matrix.facts import EDIT_INTERVAL, TOKENS, USER_ID

if TYPE_CHECKING:
    from frontend.config.settings import Settings
    from gateway.chat.kit.facts import PlatformFacts
    from gateway.chat.matrix.adapter import MatrixAdapter


def _user(value: object, where: str) -> str:
    if not isinstance(value, str) or not re.match(USER_ID, value):
        raise ConfigError(f"{where} holds {value!r}, not a Matrix user id",
                          'write Matrix ids like "@alice:example.org", quoted')
    return value


def matrix_platform(settings: Settings) -> tuple[MatrixAdapter, ChatPolicy] | None:
    """Matrix's adapter and policy when gateway.matrix is configured (ConfigError if wrong)."""
    if settings.get("gateway.matrix") is None:
        return None
    settings.get("gateway.matrix", kind=dict)  # a wrong type is one clear line
    token = os.environ.get(TOKENS[0], "").strip()
    if not token:
        raise ConfigError(f"gateway.matrix is configured but {TOKENS[0]} is not set",
                          f"put {TOKENS[0]}=... in {settings.home}/.env or the environment "
                          "(Element: Settings > Help & About > Access Token)")
    homeserver = str(settings.get("gateway.matrix.homeserver", "", kind=str)).strip().rstrip("/")
    if not re.match(r"^https?://[^/\s]+", homeserver):
        raise ConfigError(f"gateway.matrix.homeserver is {homeserver!r}, not an http(s) URL",
                          "set it to your homeserver, e.g. https://matrix.example.org")
    user = _user(settings.get("gateway.matrix.user_id", ""), "gateway.matrix.user_id")
    users = frozenset(_user(v, "gateway.matrix.allowed_users")
                      for v in settings.get("gateway.matrix.allowed_users", [], kind=list))
    if not users:
        sys.stderr.write("hermes: warning: gateway.matrix has no allowed_users: the bot "
                         "refuses everyone\n")
    from gateway.chat.matrix.adapter import MatrixAdapter  # start-up speed: nio only when used

    account = hashlib.sha256(f"{homeserver} {user}".encode()).hexdigest()[:16]
    adapter = MatrixAdapter(token, homeserver=homeserver, user_id=user, allowed_users=users,
                            edit_interval=float(settings.number("gateway.matrix.edit_interval",
                                                                EDIT_INTERVAL, lo=0.2)),
                            since_file=settings.home / "matrix" / f"{account}.since")
    adapter.leader_ttl = float(settings.number("gateway.matrix.leader_ttl", 30.0, lo=3))
    return adapter, ChatPolicy(users)


def build(settings: Settings, facts: PlatformFacts) -> list[tuple[Adapter, ChatPolicy]]:
    """The platform for gateway/chat/boot.py (the registry's builder: FACTS.builder)."""
    found = matrix_platform(settings)
    return [found] if found is not None else []
