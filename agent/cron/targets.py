"""Delivery targets of a job's answer: what each means and whether it can work here.

    none            kept in the run history only
    origin          where the job was asked for: the chat it came from (a chat: stored
                    as origin:OWNER, the gateway finds the chat by its routes; an HTTP
                    API client's: the run history), else the file
                    HERMES_HOME/cron/output/NAME.md (the shell, the REPL)
    file:PATH       a dated Markdown section appended to PATH: placed at creation inside
                    the session's workspace or writable folders, written with no link
                    followed (agent/cron/files.py)
    telegram:CHAT   a message to a Telegram chat, through the gateway's bot
                    (gateway.telegram + TELEGRAM_BOT_TOKEN)
    slack:CHANNEL   a message in a Slack channel (C..., G...) or DM (D...), through the
                    gateway's running Slack app (SLACK_BOT_TOKEN + SLACK_APP_TOKEN; the
                    bot must be a member of the channel)
    discord:CHANNEL a message in a Discord channel, thread or DM (its numeric id),
                    through the gateway's running Discord bot (DISCORD_BOT_TOKEN)
    matrix:ROOM     a message in a Matrix room (!id:server) the bot has joined, through
                    the gateway's running Matrix client (MATRIX_ACCESS_TOKEN)
    whatsapp:NUMBER a message to a WhatsApp number (digits, country code first), through
                    the gateway's WhatsApp adapter (WHATSAPP_ACCESS_TOKEN); only within 24
                    hours of the user's last message (WhatsApp's rule)

A chat platform's target is accepted only when that platform is configured here:
`ready(...)` says which are (the tokens the gateway starts them with, and for Telegram
its config section: frontend/cron/jobs.py passes the settings, the agent's tool knows
only the environment). A platform adds its check to `CHECKS` and its adapter a
`deliver(chat, text)` (gateway/cron/deliver.py).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from agent.cron import files
from agent.errors import ConfigError

FORMS = ("none, origin, file:PATH, telegram:CHAT_ID, slack:CHANNEL_ID, discord:CHANNEL_ID, "
         "matrix:ROOM_ID, whatsapp:NUMBER")
SLACK_CHANNEL = re.compile(r"^[CGD][A-Z0-9]{2,}$")
MATRIX_ROOM = re.compile(r"^![^:\s]+:\S+$")
WHATSAPP_NUMBER = re.compile(r"^\d{6,15}$")


def resolve(target: str, *, origin: str | None, home: Path, name: str, cwd: Path,  # noqa: PLR0913
            roots: tuple[Path, ...] = (), owner: str | None = None) -> str:
    """The concrete target stored with a job: `origin` made the chat or the output file, a
    file placed once inside `roots` (agent/cron/files.py: the creating session's workspace
    and writable folders); `owner` (a gateway tenant) may name only its own chat."""
    target = target.strip()
    if owner is not None:
        why = foreign(target, owner)
        if why is not None:
            raise ConfigError(why, "a chat's job delivers to its own chat (origin), a file in "
                                   "its workspace, or none")
    if target == "origin":
        if origin:
            return origin
        output = files.output_dir(home)
        return "file:" + files.place(str(output / f"{name}.md"), cwd=cwd, roots=(output,),
                                     hermes_home=home)
    if target.startswith("file:"):
        return "file:" + files.place(target[5:], cwd=cwd,
                                     roots=(*roots, files.output_dir(home)), hermes_home=home)
    return target


def foreign(target: str, owner: str) -> str | None:
    """Why a job of chat owner `owner` may not deliver to `target` (None: it may): only to
    its own chat (origin), a file, or nowhere (issue 52, finding 3)."""
    scheme, _, rest = target.strip().partition(":")
    if scheme in ("none", "file") or target.strip() == "origin":
        return None
    if scheme == "origin" and rest == owner:
        return None
    if scheme == "origin":
        return "origin: names another owner's chat; a job delivers only to its own owner's"
    return f"{target} is not this chat: a chat's job delivers only to its own chat"


def describe(target: str) -> str:
    """`target` in words, as the approval and `hermes cron add` say it (a chat owner's id
    is a hash: never shown)."""
    scheme, _, rest = target.partition(":")
    names = {"telegram": "the Telegram chat", "slack": "the Slack channel",
             "discord": "the Discord channel", "matrix": "the Matrix room",
             "whatsapp": "the WhatsApp number"}
    if target == "none":
        return "nowhere (kept in the run history)"
    if scheme == "origin":
        return "this chat"
    if scheme == "file":
        return f"the end of the file {rest}"
    return f"{names[scheme]} {rest}" if scheme in names else target


def ready(section: Callable[[str], bool] | None = None) -> frozenset[str]:
    """The chat platforms configured to send: their tokens are in the environment (as
    gateway/chat/boot.py starts them) and, for Telegram, `section("telegram")` says
    config.yaml has gateway.telegram (None: not known here, the tokens decide)."""
    env = {k: os.environ.get(k, "").strip() for k in (
        "TELEGRAM_BOT_TOKEN", "SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "DISCORD_BOT_TOKEN",
        "MATRIX_ACCESS_TOKEN", "WHATSAPP_ACCESS_TOKEN")}
    found = set()
    if env["TELEGRAM_BOT_TOKEN"] and (section is None or section("telegram")):
        found.add("telegram")
    if env["SLACK_BOT_TOKEN"] and env["SLACK_APP_TOKEN"]:
        found.add("slack")
    if env["DISCORD_BOT_TOKEN"]:
        found.add("discord")
    for platform in ("matrix", "whatsapp"):  # started by their config section and token
        if env[f"{platform.upper()}_ACCESS_TOKEN"] and (section is None or section(platform)):
            found.add(platform)
    return frozenset(found)


def problem(target: str, ready: frozenset[str], *, hermes_home: Path | None = None,
            owner: str | None = None) -> str | None:
    """Why `target` cannot be delivered to here (None: it can); `ready`: the platforms
    configured to send; `hermes_home`: a file target's secret locations are checked too;
    `owner`: the job's chat owner, who may deliver only to its own chat."""
    if owner is not None:
        why = foreign(target, owner)
        if why is not None:
            return why
    if target == "none":
        return None
    scheme, sep, rest = target.partition(":")
    check = CHECKS.get(scheme) if sep else None
    if check is None:
        return f"unknown delivery target {target!r} (use {FORMS})"
    if scheme == "file" and hermes_home is not None:
        why = files.problem(rest, hermes_home, owner)
        if why is not None:
            return why
    return check(rest, ready)


def check(target: str, ready: frozenset[str]) -> None:
    """`problem` as a ConfigError (what `add` refuses)."""
    why = problem(target, ready)
    if why is not None:
        raise ConfigError(why, f"delivery targets: {FORMS}")


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


def _slack(rest: str, ready: frozenset[str]) -> str | None:
    if not SLACK_CHANNEL.match(rest):
        return f"slack:{rest} is not a Slack channel id (like C0123ABCD: the channel's details)"
    if "slack" not in ready:
        return ("slack delivery needs the gateway's Slack app: SLACK_BOT_TOKEN and "
                "SLACK_APP_TOKEN (in HERMES_HOME/.env)")
    return None


def _discord(rest: str, ready: frozenset[str]) -> str | None:
    if not rest.isdigit():
        return f"discord:{rest} is not a numeric Discord channel id (Copy Channel ID)"
    if "discord" not in ready:
        return "discord delivery needs the gateway's bot: DISCORD_BOT_TOKEN (in HERMES_HOME/.env)"
    return None


def _matrix(rest: str, ready: frozenset[str]) -> str | None:
    if not MATRIX_ROOM.match(rest):
        return f"matrix:{rest} is not a Matrix room id (like !abcdEFGH:example.org: the room's settings > Advanced)"
    if "matrix" not in ready:
        return ("matrix delivery needs the gateway's Matrix account: gateway.matrix in "
                "config.yaml and MATRIX_ACCESS_TOKEN (in HERMES_HOME/.env)")
    return None


def _whatsapp(rest: str, ready: frozenset[str]) -> str | None:
    if not WHATSAPP_NUMBER.match(rest):
        return f"whatsapp:{rest} is not a phone number (digits with the country code: 15550001111)"
    if "whatsapp" not in ready:
        return ("whatsapp delivery needs the gateway's WhatsApp number: gateway.whatsapp in "
                "config.yaml and WHATSAPP_ACCESS_TOKEN (in HERMES_HOME/.env)")
    return None


CHECKS: dict[str, Callable[[str, frozenset[str]], str | None]] = {
    "file": _file, "telegram": _telegram, "origin": _origin,
    "slack": _slack, "discord": _discord, "matrix": _matrix, "whatsapp": _whatsapp,
}
