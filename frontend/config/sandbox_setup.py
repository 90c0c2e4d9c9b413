"""`sandbox:` settings and `--no-sandbox` -> SandboxSettings, plus the one start-up line.

config.yaml:
    sandbox:
      enabled: true            # false = --no-sandbox (warned at every start)
      writable: [~/src/other]  # extra directories the tools may write
      hidden: [~/.config/rclone]  # extra secret locations
      env_allow: [GITHUB_TOKEN, MYAPP_*] # variables tools see beyond PATH, HOME, locale, TERM
                               # (`pass_env` is an alias)
      network: public          # off | public | on (YAML false = off, true = on)
      allow_arming: [.envrc]   # arming files a command may change (agent/sandbox/arming.py)
The gateway is always sandboxed: `enabled: false` is ignored there, with a warning.
`network` defaults to off on the gateway (a network namespace with its own loopback
only) and to public on the CLI (the same, plus a proxy to public addresses only; see
docs/SANDBOX.md).
"""

from __future__ import annotations

import sys

from agent.errors import ConfigError
from agent.sandbox.arming import ARMING
from agent.sandbox.backend import startup_notice
from agent.sandbox.env import bad_entries
from agent.sandbox.policy import SandboxSettings

NETWORK = ("off", "public", "on")
EXAMPLES = {"writable": "~/src/shared", "hidden": "~/.config/rclone", "env_allow": "GITHUB_TOKEN",
            "pass_env": "GITHUB_TOKEN", "allow_arming": ".envrc"}

_said: set[str] = set()


def sandbox_settings(settings, no_sandbox: bool = False, source: str = "cli") -> SandboxSettings:  # noqa: ANN001
    """The user's sandbox choices; says once per process when tools run unsandboxed."""
    lists = {}
    for key in ("writable", "hidden", "env_allow", "pass_env", "allow_arming"):
        value = settings.get(f"sandbox.{key}", [], kind=list)
        if any(not isinstance(v, str) or not v.strip() for v in value):
            raise ConfigError(f"config.yaml: `sandbox.{key}` must be a list of text entries",
                              f"for example `sandbox: {{{key}: [{EXAMPLES[key]}]}}`")
        lists[key] = tuple(v.strip() for v in value)
    unknown = sorted(set(lists["allow_arming"]) - set(ARMING))
    if unknown:
        raise ConfigError(f"config.yaml: `sandbox.allow_arming` names {', '.join(unknown)}, "
                          "which is not an arming entry", f"choose from {', '.join(ARMING)}")
    allow = lists.pop("env_allow") + lists.pop("pass_env")
    bad = bad_entries(allow)
    if bad:
        raise ConfigError(f"config.yaml: `sandbox.env_allow` entries must be variable names "
                          f"(a trailing * matches a prefix), got {', '.join(bad)}",
                          "for example `sandbox: {env_allow: [GITHUB_TOKEN, MYAPP_*]}`")
    enabled = bool(settings.get("sandbox.enabled", True, kind=bool)) and not no_sandbox
    if source == "gateway" and not enabled:
        _say("the gateway always runs tools sandboxed; `sandbox.enabled: false` is ignored there")
        enabled = True
    network = _network(settings.get("sandbox.network", None, kind=(str, bool)), source)
    result = SandboxSettings(enabled=enabled, env_allow=allow, network=network, **lists)
    notice = startup_notice(result)
    if notice:
        _say(notice)
    return result


def _network(value: str | bool | None, source: str) -> str:
    """`sandbox.network`: off | public | on; YAML's booleans (off/no/false, on/yes/true)."""
    if value is None:
        return "off" if source == "gateway" else "public"
    if isinstance(value, bool):
        return "on" if value else "off"
    text = value.strip().lower()
    if text not in NETWORK:
        raise ConfigError(f"config.yaml: `sandbox.network` must be off, public or on, got {value!r}",
                          "for example `sandbox: {network: off}`")
    return text


def _say(line: str) -> None:
    if line not in _said:
        _said.add(line)
        sys.stderr.write(f"hermes: {line}\n")
