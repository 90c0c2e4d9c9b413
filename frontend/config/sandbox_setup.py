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
      home_allow: [~/.config/nvim]  # what of your home tools see beyond the defaults
                               # (agent/sandbox/home.py); the rest of $HOME is empty to them
The gateway is always sandboxed: `enabled: false` is ignored there, with a warning; its
tenants see nothing of the operator's home (`home_allow` and the defaults do not apply).
`network` defaults to off on the gateway (a network namespace with its own loopback
only) and to public on the CLI (the same, plus a proxy to public addresses only; see
docs/SANDBOX.md).
"""

from __future__ import annotations

import os
import sys

from agent.errors import ConfigError
from agent.sandbox.arming import ARMING
from agent.sandbox.backend import startup_notice
from agent.sandbox.env import bad_entries
from agent.sandbox.home import check_entries
from agent.sandbox.policy import SandboxSettings

NETWORK = ("off", "public", "on")
EXAMPLES = {"writable": "~/src/shared", "hidden": "~/.config/rclone", "env_allow": "GITHUB_TOKEN",
            "pass_env": "GITHUB_TOKEN", "allow_arming": ".envrc", "home_allow": "~/.config/nvim"}

_said: set[str] = set()


def sandbox_settings(settings, no_sandbox: bool = False, source: str = "cli") -> SandboxSettings:  # noqa: ANN001
    """The user's sandbox choices; says once per process when tools run unsandboxed."""
    lists = {}
    for key in ("writable", "hidden", "env_allow", "pass_env", "allow_arming", "home_allow"):
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
    tenant = _home_allow(lists, source)
    result = SandboxSettings(enabled=enabled, env_allow=allow, network=network,
                             home_defaults=not tenant, **lists)
    notice = startup_notice(result)
    if notice:
        _say(notice)
    return result


def _home_allow(lists: dict[str, tuple[str, ...]], source: str) -> bool:
    """Checks `sandbox.home_allow`; True (and no entries) on the gateway, whose tenants
    see nothing of the operator's home."""
    home = os.environ.get("HOME") or os.path.expanduser("~")
    bad = check_entries(lists["home_allow"], home)
    if bad:
        raise ConfigError(f"config.yaml: `sandbox.home_allow` entries must be paths inside your "
                          f"home ({home}), got {', '.join(bad)}",
                          "for example `sandbox: {home_allow: [~/.config/nvim, ~/.m2]}`")
    if source != "gateway":
        return False
    if lists["home_allow"]:
        _say("`sandbox.home_allow` is ignored on the gateway: tenants see nothing of your home")
    lists["home_allow"] = ()
    return True


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
