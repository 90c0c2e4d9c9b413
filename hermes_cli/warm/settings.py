"""The warm start's two settings, read before anything else is imported (standard
library only): whether it is on, and how long a server waits idle before it exits.

Each is read from the environment first, then HERMES_HOME/.env, then HERMES_HOME's
config.yaml (a top-level `warm:` / `warm_idle_minutes:` line; the full config loader
knows both keys: frontend/config/schema.py):

- on: HERMES_WARM (0/off/false/no turn it off), `warm: false`; and only on Linux, where
  the server can tell who connects (SO_PEERCRED) and from which namespaces;
- idle: HERMES_WARM_IDLE (seconds), `warm_idle_minutes: N`; 15 minutes by default.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from hermes_cli.warm.place import IDLE_SECONDS

OFF = ("0", "off", "false", "no")
ON = ("1", "on", "true", "yes")
_YAML_LINE = re.compile(r"^(warm|warm_idle_minutes)[ \t]*:[ \t]*(.*?)[ \t]*(?:#.*)?$", re.M)


@dataclass(frozen=True)
class WarmSettings:
    on: bool
    idle_seconds: float
    problems: tuple[str, ...] = ()  # a value not understood: one line each, for stderr


def home(env: Mapping[str, str]) -> Path:
    """HERMES_HOME, default ~/.hermes (frontend.config.settings.hermes_home's rule)."""
    value = env.get("HERMES_HOME")
    return Path(value).expanduser() if value else Path.home() / ".hermes"


def read(env: Mapping[str, str]) -> WarmSettings:
    where = home(env)
    dotenv = _dotenv(where / ".env")
    config = _config(where / "config.yaml")
    problems: list[str] = []
    on = sys.platform == "linux"
    warm = env.get("HERMES_WARM", dotenv.get("HERMES_WARM"))
    if warm is not None:
        on = on and warm.strip().lower() not in OFF
    elif "warm" in config:
        value = config["warm"].strip("'\"").lower()
        if value in OFF or value in ON:
            on = on and value in ON
        else:
            problems.append(f"hermes: {where / 'config.yaml'}: `warm: {config['warm']}` is not "
                            "true or false - the warm start stays on (`warm: false` turns it off)")
    idle = float(IDLE_SECONDS)
    seconds = env.get("HERMES_WARM_IDLE", dotenv.get("HERMES_WARM_IDLE"))
    minutes = config.get("warm_idle_minutes")
    try:
        if seconds is not None:
            idle = max(0.0, float(seconds))
        elif minutes is not None:
            idle = max(0.0, float(minutes.strip("'\"")) * 60)
    except ValueError:
        setting = (f"HERMES_WARM_IDLE={seconds}" if seconds is not None
                   else f"`warm_idle_minutes: {minutes}` in {where / 'config.yaml'}")
        problems.append(f"hermes: {setting} is not a number - the warm start server exits "
                        f"after {IDLE_SECONDS // 60} idle minutes")
    return WarmSettings(on, idle, tuple(problems))


def spoken(seconds: float) -> str:
    """An idle limit as a person says it: `15 minutes`, `1 minute`, `30 s`."""
    if seconds < 60:
        return f"{seconds:.3g} s"
    minutes = seconds / 60
    return f"{minutes:.3g} minute{'s' if minutes != 1 else ''}"


def _small_text(path: Path, limit: int = 1 << 20) -> str:
    """A regular file's text ("" for anything else: a FIFO, a device, a folder, missing),
    read without blocking: the warm start runs before the settings' own checks, which
    explain such a file to the user."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError:
        return ""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ""
        return os.read(fd, limit).decode("utf-8", errors="replace")
    except OSError:
        return ""
    finally:
        os.close(fd)


def _dotenv(path: Path) -> dict[str, str]:
    """HERMES_WARM and HERMES_WARM_IDLE from a .env file, as hermes reads it."""
    text = _small_text(path)
    if "HERMES_WARM" not in text:
        return {}
    from frontend.config.dotenv_rules import dotenv_value  # here: only when it says something

    found: dict[str, str] = {}
    for raw in text.lstrip("\ufeff").splitlines():
        line = raw.strip()
        if line.startswith("export "):
            line = line[7:].lstrip()
        key, sep, value = line.partition("=")
        if sep and key.strip() in ("HERMES_WARM", "HERMES_WARM_IDLE"):
            found.setdefault(key.strip(), dotenv_value(value))
    return found


def _config(path: Path) -> dict[str, str]:
    """The top-level `warm:` and `warm_idle_minutes:` lines of config.yaml (raw values)."""
    text = _small_text(path)
    if "warm" not in text:
        return {}
    return {match.group(1): match.group(2) for match in _YAML_LINE.finditer(text)}
