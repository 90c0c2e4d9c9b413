"""`mcp_servers:` in config.yaml, validated into ServerConfig values (pure: no I/O).

    mcp_servers:
      files:                          # stdio: a program the user runs
        command: npx
        args: [-y, "@modelcontextprotocol/server-filesystem", /tmp]
        env: {ROOT: /tmp}             # these variables, plus the tools' allowlist
                                      # (PATH, HOME, locale, TERM, sandbox.env_allow)
        cwd: ~/work
      tracker:                        # streamable HTTP
        url: https://mcp.example.com/mcp
        headers: {Authorization: "Bearer ${TRACKER_TOKEN}"}
        include: [search, get_issue]  # or exclude: [...]
        start_timeout: 10             # seconds to connect and list tools
        call_timeout: 60              # seconds per tool call
        enabled: true
        gateway_keys: ["${ALICE_KEY}"] # the gateway offers it to these client keys only
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from agent.errors import ConfigError
from agent.sandbox.env import tool_env

NAME = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
# secrets of ours a server never receives, even when its config names them
FORBIDDEN_ENV = frozenset({
    "HERMES_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "OPENROUTER_API_KEY",
    "DEEPSEEK_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
})
_KEYS = {"command", "args", "env", "cwd", "url", "headers", "enabled", "include", "exclude",
         "start_timeout", "call_timeout", "gateway_keys"}
HINT = "see the `mcp_servers:` example in README.md"


@dataclass(frozen=True)
class ServerConfig:
    """One configured server. `env`/`headers` values are already expanded."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: str | None = None
    url: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    enabled: bool = True
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    start_timeout: float = 10.0
    call_timeout: float = 60.0
    gateway_keys: tuple[str, ...] = ()
    env_allow: tuple[str, ...] = ()  # sandbox.env_allow: what every tool process may see

    @property
    def transport(self) -> str:
        return "stdio" if self.command else "http"

    def wants(self, tool: str) -> bool:
        """Whether the include/exclude lists keep `tool`."""
        if self.include and tool not in self.include:
            return False
        return tool not in self.exclude

    def offered_to(self, source: str, owner: str | None) -> bool:
        """The CLI gets every enabled server; the gateway only the client keys listed
        (a gateway owner id is the SHA-256 of its key, as in gateway/auth.py)."""
        if not self.enabled:
            return False
        if source != "gateway":
            return True
        return owner is not None and any(
            hashlib.sha256(key.encode("utf-8")).hexdigest() == owner for key in self.gateway_keys)

    def child_env(self) -> dict[str, str]:
        """Its whole environment: the tools' allowlist (agent/sandbox/env.py: PATH,
        HOME, locale, TERM, `sandbox.env_allow`) and the variables its config names -
        never our keys. (The SDK adds only its own allowlisted defaults.)"""
        env = tool_env(os.environ, self.env_allow)
        env.update(self.env)
        return env


def parse_servers(raw: object, environ: Mapping[str, str] | None = None,
                  env_allow: tuple[str, ...] = ()) -> tuple[ServerConfig, ...]:
    """The validated servers of `mcp_servers:` (sorted by name); ConfigError otherwise."""
    if raw is None:
        return ()
    if not isinstance(raw, dict):
        raise ConfigError("config.yaml: `mcp_servers` must be a mapping of server names to "
                          "settings", HINT)
    env = os.environ if environ is None else environ
    return tuple(replace(_server(str(name), raw[name], env), env_allow=tuple(env_allow))
                 for name in sorted(raw, key=str))


def _server(name: str, body: object, env: Mapping[str, str]) -> ServerConfig:
    where = f"config.yaml: mcp_servers.{name}"
    if not NAME.match(name):
        raise ConfigError(f"{where}: a server name is 1-32 letters, digits, `_` or `-`", HINT)
    if not isinstance(body, dict):
        raise ConfigError(f"{where} must be a mapping with `command:` or `url:`", HINT)
    unknown = sorted(set(map(str, body)) - _KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown setting(s) {', '.join(unknown)}",
                          f"known: {', '.join(sorted(_KEYS))}")
    command, url = body.get("command"), body.get("url")
    if bool(command) == bool(url):
        raise ConfigError(f"{where}: give exactly one of `command:` (stdio) or `url:` "
                          "(streamable HTTP)", HINT)
    if url is not None and (not isinstance(url, str) or not url.startswith(("http://", "https://"))):
        raise ConfigError(f"{where}.url must be an http:// or https:// URL, got {url!r}", HINT)
    if command is not None and not isinstance(command, str):
        raise ConfigError(f"{where}.command must be text, got {command!r}", HINT)
    variables = _mapping(body, "env", where, env)
    bad = sorted(k for k, _ in variables if k in FORBIDDEN_ENV)
    if bad:
        raise ConfigError(f"{where}.env names {', '.join(bad)}: provider and gateway keys are "
                          "never given to MCP servers", "give the server its own credential")
    return ServerConfig(
        name=name, command=command, args=_texts(body, "args", where), env=variables,
        cwd=os.path.expanduser(_text(body, "cwd", where)) if body.get("cwd") else None,
        url=url, headers=_mapping(body, "headers", where, env),
        enabled=_flag(body, "enabled", where), include=_texts(body, "include", where),
        exclude=_texts(body, "exclude", where),
        start_timeout=_seconds(body, "start_timeout", 10.0, where),
        call_timeout=_seconds(body, "call_timeout", 60.0, where),
        gateway_keys=tuple(expand(k, env, f"{where}.gateway_keys")
                           for k in _texts(body, "gateway_keys", where)),
    )


def _text(body: dict[str, object], key: str, where: str) -> str:
    value = body.get(key)
    if not isinstance(value, str):
        raise ConfigError(f"{where}.{key} must be text, got {value!r}", HINT)
    return value


def _texts(body: dict[str, object], key: str, where: str) -> tuple[str, ...]:
    value = body.get(key)
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(v, (str, int, float)) for v in value):
        raise ConfigError(f"{where}.{key} must be a list of text, got {value!r}",
                          f"e.g. `{key}: [a, b]`")
    return tuple(str(v) for v in value)


def _flag(body: dict[str, object], key: str, where: str) -> bool:
    value = body.get(key, True)
    if not isinstance(value, bool):
        raise ConfigError(f"{where}.{key} must be true or false, got {value!r}", HINT)
    return value


def _seconds(body: dict[str, object], key: str, default: float, where: str) -> float:
    value = body.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 3600:
        raise ConfigError(f"{where}.{key} must be a number of seconds in (0, 3600], got {value!r}",
                          f"default: {default:g}")
    return float(value)


def _mapping(body: dict[str, object], key: str, where: str, env: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    value = body.get(key)
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise ConfigError(f"{where}.{key} must be a mapping (NAME: value)", f"e.g. `{key}: {{A: b}}`")
    out = []
    for name in sorted(value, key=str):
        text = value[name]
        if not isinstance(text, (str, int, float)) or isinstance(text, bool):
            raise ConfigError(f"{where}.{key}.{name} must be text, got {text!r}", HINT)
        out.append((str(name), expand(str(text), env, f"{where}.{key}.{name}")))
    return tuple(out)


def expand(text: str, env: Mapping[str, str], where: str) -> str:
    """`${NAME}` replaced by the environment's value; a missing variable is an error."""
    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in env:
            raise ConfigError(f"{where}: ${{{name}}} is not set in the environment",
                              f"export {name} or put it in HERMES_HOME/.env")
        return env[name]

    return _VAR.sub(one, text)
