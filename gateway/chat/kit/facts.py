"""PlatformFacts: a chat platform described as data, read by everyone who names one.

Each platform's package holds a `facts.py` with one `FACTS = PlatformFacts(...)`
(pure data: it imports this module and nothing else), and `gateway/chat/platforms.py`
lists them. Cron targets (agent/cron/targets.py), delivery (gateway/cron/deliver.py),
gateway start-up (gateway/chat/boot.py), `hermes doctor`'s token check
(gateway/chat/probe.py), `hermes setup` and the config schema (frontend/config/schema.py)
read these facts instead of a platform's name. Because agent/ and frontend/ read them,
this module, `gateway.chat.platforms` and every `gateway.chat.*.facts` import only the
standard library and each other (tests/test_architecture.py checks it): they are the one
part of gateway/ every layer may import.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TokenCheck:
    """What `hermes doctor` calls to see that the token is accepted: one HTTP request to
    `base_url` + `path` (`{token}` and `{KEY}` of a config key of gateway.NAME replaced), the token in the `auth` header
    (`Authorization: auth.format(token=...)`; "" for none). Accepted: HTTP 200 and, when
    `ok_field` is set, that JSON field true; `shows` is what doctor says on success,
    `{dotted.field}` of the JSON answer filled in; `error_field` names a refusal."""

    method: str
    path: str
    auth: str = ""
    ok_field: str | None = None
    shows: str = ""
    error_field: str | None = None


@dataclass(frozen=True)
class PlatformFacts:
    """One chat platform (see the module docstring)."""

    name: str  # lower case, in config (gateway.NAME), targets (NAME:CHAT), session names
    label: str  # how a person reads it: "Telegram"
    package: str  # its package: "gateway.chat.telegram"
    tokens: tuple[str, ...]  # environment variables it needs, all of them
    config_keys: tuple[str, ...]  # the keys of gateway.NAME in config.yaml
    base_url: str  # the API's default URL (gateway.NAME.base_url)
    chat_id: str  # a regular expression a chat id of a delivery target matches
    chat_hint: str  # what a chat id is, for the error: "a numeric Telegram chat id"
    target: str  # the delivery target's form: "telegram:CHAT_ID"
    target_noun: str  # a target in words, before its id: "the Telegram chat"
    sender: str  # what sends a job's answer: "the gateway's bot"
    token_check: TokenCheck
    section_needed: bool = False  # started only with gateway.NAME in config.yaml
    replays: bool = False  # messages sent while the gateway was down arrive when it is back
    builder: str = "boot"  # module of `package` with build(settings, facts), loaded when used
    loggers: tuple[str, ...] = ()  # its SDK's loggers, quiet unless --verbose (gateway/library_logs.py)
    url_key: str = "base_url"  # the key of gateway.NAME naming the API's URL (Matrix: homeserver)
