"""`sandbox:` settings and `--no-sandbox` -> SandboxSettings, plus the one start-up line.

config.yaml:
    sandbox:
      enabled: true            # false = --no-sandbox (warned at every start)
      writable: [~/src/other]  # extra directories the tools may write
      hidden: [~/.config/rclone]  # extra secret locations
      pass_env: [GITHUB_TOKEN] # secret-looking variables the tools may still see
      allow_arming: [.envrc]   # arming files a command may change (agent/sandbox/arming.py)
The gateway is always sandboxed: `enabled: false` is ignored there, with a warning.
"""

from __future__ import annotations

import sys

from agent.errors import ConfigError
from agent.sandbox.arming import ARMING
from agent.sandbox.backend import startup_notice
from agent.sandbox.policy import SandboxSettings

_said: set[str] = set()


def sandbox_settings(settings, no_sandbox: bool = False, source: str = "cli") -> SandboxSettings:  # noqa: ANN001
    """The user's sandbox choices; says once per process when tools run unsandboxed."""
    lists = {}
    for key in ("writable", "hidden", "pass_env", "allow_arming"):
        value = settings.get(f"sandbox.{key}", [], kind=list)
        if any(not isinstance(v, str) or not v.strip() for v in value):
            raise ConfigError(f"config.yaml: `sandbox.{key}` must be a list of text entries",
                              f"for example `sandbox: {{{key}: [~/src/shared]}}`")
        lists[key] = tuple(v.strip() for v in value)
    unknown = sorted(set(lists["allow_arming"]) - set(ARMING))
    if unknown:
        raise ConfigError(f"config.yaml: `sandbox.allow_arming` names {', '.join(unknown)}, "
                          "which is not an arming entry", f"choose from {', '.join(ARMING)}")
    enabled = bool(settings.get("sandbox.enabled", True, kind=bool)) and not no_sandbox
    if source == "gateway" and not enabled:
        _say("the gateway always runs tools sandboxed; `sandbox.enabled: false` is ignored there")
        enabled = True
    result = SandboxSettings(enabled=enabled, **lists)
    notice = startup_notice(result)
    if notice:
        _say(notice)
    return result


def _say(line: str) -> None:
    if line not in _said:
        _said.add(line)
        sys.stderr.write(f"hermes: {line}\n")
