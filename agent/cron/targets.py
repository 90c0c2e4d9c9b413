"""Delivery targets of a job's answer: what each means and whether it can work here.

    none            kept in the run history only
    origin          where the job was asked for: the chat it came from (a chat: stored
                    as origin:OWNER, the gateway finds the chat by its routes; an HTTP
                    API client's: the run history), else the file
                    HERMES_HOME/cron/output/NAME.md (the shell, the REPL)
    file:PATH       a dated Markdown section appended to PATH: placed at creation inside
                    the session's workspace or writable folders, written with no link
                    followed (agent/cron/files.py)
    NAME:CHAT       a message to a chat of a chat platform (telegram:CHAT_ID,
                    slack:CHANNEL_ID, discord:CHANNEL_ID, ...), through the gateway's
                    running adapter: each platform's facts say how its chat id looks
                    and what it needs (gateway/chat/platforms.py)

A chat platform's target is accepted only when that platform is configured here:
`ready(...)` says which are (the tokens the gateway starts them with, and the config
section where the platform needs one: frontend/cron/jobs.py passes the settings, the
agent's tool knows only the environment). The platforms are pure data
(gateway/chat/kit/facts.py), the one part of gateway/ every layer may import; a
platform's adapter delivers with `deliver(chat, text)` (gateway/cron/deliver.py).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from agent.cron import files
from agent.errors import ConfigError
from gateway.chat import platforms
from gateway.chat.kit.facts import PlatformFacts


def forms() -> str:
    """Every target's form, as errors and help name them."""
    return ", ".join(("none", "origin", "file:PATH", *(p.target for p in platforms.PLATFORMS)))


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
    its own chat (origin), a file, or nowhere: never into a chat it does not own."""
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
    facts = platforms.find(scheme)
    if target == "none":
        return "nowhere (kept in the run history)"
    if scheme == "origin":
        return "this chat"
    if scheme == "file":
        return f"the end of the file {rest}"
    return f"{facts.target_noun} {rest}" if facts is not None else target


def ready(section: Callable[[str], bool] | None = None) -> frozenset[str]:
    """The chat platforms configured to send: their tokens are in the environment (as
    gateway/chat/boot.py starts them) and, for one that needs its config section
    (Telegram), `section(name)` says config.yaml has it (None: not known here, the
    tokens decide)."""
    return frozenset(p.name for p in platforms.PLATFORMS if platforms.tokens_set(p) and (
        not p.section_needed or section is None or section(p.name)))


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
    facts = platforms.find(scheme) if sep else None
    if facts is not None:
        return _chat(facts, rest, ready)
    if check is None:
        return f"unknown delivery target {target!r} (use {forms()})"
    if scheme == "file" and hermes_home is not None:
        why = files.problem(rest, hermes_home, owner)
        if why is not None:
            return why
    return check(rest, ready)


def check(target: str, ready: frozenset[str]) -> None:
    """`problem` as a ConfigError (what `add` refuses)."""
    why = problem(target, ready)
    if why is not None:
        raise ConfigError(why, f"delivery targets: {forms()}")


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


def _origin(rest: str, _ready: frozenset[str]) -> str | None:
    return None if rest else "origin: names no chat"


def _chat(facts: PlatformFacts, chat: str, ready: frozenset[str]) -> str | None:
    """A chat platform's target `NAME:CHAT`, checked by that platform's facts."""
    if not re.match(facts.chat_id, chat):
        return f"{facts.name}:{chat} is not {facts.chat_hint}"
    if facts.name not in ready:
        return f"{facts.name} delivery needs {facts.sender} (in HERMES_HOME/.env)"
    return None


CHECKS: dict[str, Callable[[str, frozenset[str]], str | None]] = {"file": _file, "origin": _origin}
