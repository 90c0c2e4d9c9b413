"""Delivery targets of a job's answer: what each means and whether it can work here.

    none            kept in the run history only
    origin          where the job was asked for: the chat it came from (a chat), else
                    the file HERMES_HOME/cron/output/NAME.md (the shell, the REPL)
    file:PATH       a dated Markdown section appended to PATH
    telegram:CHAT   a message to a Telegram chat, through the gateway's bot
                    (gateway.telegram + TELEGRAM_BOT_TOKEN)
    slack:CHANNEL, discord:CHANNEL
                    the extension point for platforms whose adapter has not landed in
                    this build: they validate as "not configured" (a platform registers
                    its check in `CHECKS` and its sender in gateway/cron/deliver.py)
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from agent.errors import ConfigError
from frontend.settings import Settings

FORMS = "none, origin, file:PATH, telegram:CHAT_ID"


def resolve(target: str, *, origin: str | None, home: Path, name: str, cwd: Path) -> str:
    """The concrete target stored with a job: `origin` made the chat or the output file,
    a relative file path made absolute."""
    target = target.strip()
    if target == "origin":
        return origin or f"file:{home / 'cron' / 'output' / f'{name}.md'}"
    if target.startswith("file:"):
        path = Path(target[5:]).expanduser()
        return f"file:{path if path.is_absolute() else (cwd / path)}"
    return target


def problem(settings: Settings, target: str) -> str | None:
    """Why `target` cannot be delivered to here (None: it can)."""
    if target == "none":
        return None
    scheme, sep, rest = target.partition(":")
    check = CHECKS.get(scheme) if sep else None
    if check is None:
        return f"unknown delivery target {target!r} (use {FORMS})"
    return check(settings, rest)


def check(settings: Settings, target: str) -> None:
    """`problem` as a ConfigError (what `add` refuses)."""
    why = problem(settings, target)
    if why is not None:
        raise ConfigError(why, f"delivery targets: {FORMS}")


def append(path: Path, text: str, job: str, tz: str, when: float) -> None:
    """A dated Markdown section at the end of `path` (created 0600 with its folders)."""
    stamp = datetime.fromtimestamp(when, UTC).astimezone(ZoneInfo(tz)).strftime("%Y-%m-%d %H:%M %Z")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as out:
        out.write(f"## {stamp} - {job}\n\n{text.rstrip()}\n\n")


def _file(_settings: Settings, rest: str) -> str | None:
    path = Path(rest)
    if not rest or not path.is_absolute():
        return f"file:{rest} is not an absolute path"
    if path.is_dir():
        return f"file:{rest} is a directory (name a file inside it)"
    folder = path.parent
    while not folder.exists() and folder != folder.parent:  # made at the first delivery
        folder = folder.parent
    if not os.access(folder, os.W_OK):
        return f"file:{rest} cannot be written ({folder} is not writable)"
    return None


def _telegram(settings: Settings, rest: str) -> str | None:
    if not rest.lstrip("-").isdigit():
        return f"telegram:{rest} is not a numeric Telegram chat id"
    if settings.get("gateway.telegram") is None:
        return "telegram delivery needs gateway.telegram in config.yaml (the gateway's bot)"
    if not os.environ.get("TELEGRAM_BOT_TOKEN", "").strip():
        return "telegram delivery needs TELEGRAM_BOT_TOKEN (in HERMES_HOME/.env)"
    return None


def _not_landed(platform: str) -> Callable[[Settings, str], str | None]:
    def check(_settings: Settings, rest: str) -> str | None:
        return (f"{platform}:{rest}: {platform} delivery is not configured (its chat adapter "
                "is not part of this build)")
    return check


CHECKS: dict[str, Callable[[Settings, str], str | None]] = {
    "file": _file, "telegram": _telegram,
    "slack": _not_landed("slack"), "discord": _not_landed("discord"),
}
