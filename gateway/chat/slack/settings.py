"""Slack's settings: the tokens and `gateway: slack:` in config.yaml.

    gateway:
      slack:
        allowed_users: [U012AB3CD]       # deny by default: only these member ids are answered
        edit_interval: 1.5               # s between stream appends of one answer (>= 0.2)
        base_url: https://slack.com/api/ # the Web API (the socket's URL comes from it)
        leader_ttl: 30                   # s (>= 3); several workers: one holds the socket
Tokens: SLACK_BOT_TOKEN (xoxb-...) and SLACK_APP_TOKEN (xapp-..., connections:write) in
the environment or HERMES_HOME/.env. Slack starts when both are set (or the section is
there: then a missing token is an error).
"""

from __future__ import annotations

import os
import re
import sys
from typing import TYPE_CHECKING

from agent.errors import ConfigError
from gateway.chat.base import Adapter, ChatPolicy
from gateway.chat.slack.facts import FACTS

if TYPE_CHECKING:
    from frontend.config.settings import Settings
    from gateway.chat.kit.facts import PlatformFacts
    from gateway.chat.slack.adapter import SlackAdapter

USER_ID = re.compile(r"^[UW][A-Z0-9]{2,}$")
DEFAULT_EDIT_INTERVAL = 1.5  # chat.update allows ~50 a minute; the budget shares the rest


def _tokens(settings: Settings) -> tuple[str, str] | None:
    bot = os.environ.get("SLACK_BOT_TOKEN", "").strip()
    app = os.environ.get("SLACK_APP_TOKEN", "").strip()
    configured = settings.get("gateway.slack") is not None
    if not (bot or app) and not configured:
        return None
    where = f"{settings.home}/.env or the environment"
    for name, value in (("SLACK_BOT_TOKEN", bot), ("SLACK_APP_TOKEN", app)):
        if not value:
            raise ConfigError(f"Slack needs both tokens but {name} is not set",
                              f"put {name}=... in {where} (README: Slack)")
    if not bot.startswith("xoxb-"):
        raise ConfigError("SLACK_BOT_TOKEN does not start with xoxb-",
                          "use the Bot User OAuth Token (OAuth & Permissions in the app's settings)")
    if not app.startswith("xapp-"):
        raise ConfigError("SLACK_APP_TOKEN does not start with xapp-",
                          "use an app-level token with connections:write (Basic Information > "
                          "App-Level Tokens)")
    return bot, app


def _users(settings: Settings) -> frozenset[str]:
    values = settings.get("gateway.slack.allowed_users", [], kind=list)
    for value in values:
        if not isinstance(value, str) or not USER_ID.match(value):
            raise ConfigError(f"gateway.slack.allowed_users holds {value!r}, not a Slack member id",
                              "list member ids like U012AB3CD, quoted (a profile's ⋮ menu > "
                              "Copy member ID)")
    return frozenset(values)


def _base_url(settings: Settings) -> str:
    url = str(settings.get("gateway.slack.base_url", FACTS.base_url, kind=str)).strip()
    if not re.match(r"^https?://[^/\s]+", url):
        raise ConfigError(f"gateway.slack.base_url is {url!r}, not an http(s) URL",
                          f"use the Web API base, e.g. {FACTS.base_url}")
    return url if url.endswith("/") else url + "/"


def slack_platform(settings: Settings) -> tuple[SlackAdapter, ChatPolicy] | None:
    """Slack's adapter and policy when its tokens are set (ConfigError if wrong)."""
    if settings.get("gateway.slack") is not None:
        settings.get("gateway.slack", kind=dict)  # a wrong type is one clear line
    tokens = _tokens(settings)
    if tokens is None:
        return None
    from gateway.chat.slack.adapter import SlackAdapter  # start-up speed: Bolt only when used

    policy = ChatPolicy(_users(settings))
    if not policy.allowed_users:
        sys.stderr.write("hermes: warning: gateway.slack has no allowed_users: the bot "
                         "refuses everyone\n")
    interval = float(settings.number("gateway.slack.edit_interval", DEFAULT_EDIT_INTERVAL, lo=0.2))
    adapter = SlackAdapter(*tokens, base_url=_base_url(settings), edit_interval=interval)
    adapter.leader_ttl = float(settings.number("gateway.slack.leader_ttl", 30.0, lo=3))
    return adapter, policy


def build(settings: Settings, _facts: PlatformFacts) -> list[tuple[Adapter, ChatPolicy]]:
    """The builder gateway/chat/boot.py calls (gateway/chat/slack/facts.py names it)."""
    found = slack_platform(settings)
    return [found] if found is not None else []
