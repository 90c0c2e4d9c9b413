"""Delivery targets of a job's answer: what each means and whether it can work here.

    none            kept in the run history only
    origin          where the job was asked for: the chat it came from (a chat: stored
                    as origin:OWNER, the gateway finds the chat by its routes; an HTTP
                    API client's: the run history), else the file
                    HERMES_HOME/cron/output/NAME.md (the shell, the REPL)
    file:PATH       a dated Markdown section appended to PATH
    telegram:CHAT   a message to a Telegram chat, through the gateway's bot
                    (gateway.telegram + TELEGRAM_BOT_TOKEN)
    slack:CHANNEL, discord:CHANNEL
                    the extension point for platforms whose adapter has not landed in
                    this build: they validate as "not configured" (a platform registers
                    its check in `CHECKS` and its sender in gateway/cron/deliver.py)

`ready` says which platforms this installation can send to (frontend/cron/jobs.py reads
it from the settings; the agent's tool from the environment).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from agent.errors import ConfigError

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


def problem(target: str, ready: frozenset[str]) -> str | None:
    """Why `target` cannot be delivered to here (None: it can); `ready`: the platforms
    configured to send."""
    if target == "none":
        return None
    scheme, sep, rest = target.partition(":")
    check = CHECKS.get(scheme) if sep else None
    if check is None:
        return f"unknown delivery target {target!r} (use {FORMS})"
    return check(rest, ready)


def check(target: str, ready: frozenset[str]) -> None:
    """`problem` as a ConfigError (what `add` refuses)."""
    why = problem(target, ready)
    if why is not None:
        raise ConfigError(why, f"delivery targets: {FORMS}")


def append(path: Path, text: str, job: str, tz: str, when: float) -> None:
    """A dated Markdown section at the end of `path` (created 0600 with its folders)."""
    stamp = datetime.fromtimestamp(when, UTC).astimezone(ZoneInfo(tz)).strftime("%Y-%m-%d %H:%M %Z")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    with os.fdopen(fd, "a", encoding="utf-8") as out:
        out.write(f"## {stamp} - {job}\n\n{text.rstrip()}\n\n")


def _file(rest: str, _ready: frozenset[str]) -> str | None:
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


def _telegram(rest: str, ready: frozenset[str]) -> str | None:
    if not rest.lstrip("-").isdigit():
        return f"telegram:{rest} is not a numeric Telegram chat id"
    if "telegram" not in ready:
        return ("telegram delivery needs the gateway's bot: gateway.telegram in config.yaml "
                "and TELEGRAM_BOT_TOKEN (in HERMES_HOME/.env)")
    return None


def _origin(rest: str, _ready: frozenset[str]) -> str | None:
    return None if rest else "origin: names no chat"


def _not_landed(platform: str) -> Callable[[str, frozenset[str]], str | None]:
    def check(rest: str, _ready: frozenset[str]) -> str | None:
        return (f"{platform}:{rest}: {platform} delivery is not configured (its chat adapter "
                "is not part of this build)")
    return check


CHECKS: dict[str, Callable[[str, frozenset[str]], str | None]] = {
    "file": _file, "telegram": _telegram, "origin": _origin,
    "slack": _not_landed("slack"), "discord": _not_landed("discord"),
}
