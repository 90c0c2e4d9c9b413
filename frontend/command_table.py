"""The one slash-command table: help, completion, REPL dispatch and the gateway.

Data only. Front ends map names to handlers; `cache_effect` says what a command does to
the prompt cache so help and confirmations can tell the user before it happens.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass


@dataclass(frozen=True)
class CommandDef:
    """One slash command. `args` is the usage string; `complete` names what its
    argument completes to: "model", "personality", "skill", "session" or ""."""

    name: str
    help: str
    args: str = ""
    aliases: tuple[str, ...] = ()
    complete: str = ""
    cache_effect: str = ""  # "" = none; otherwise a short warning shown in help
    gateway: bool = False  # also understood as message text by the HTTP gateway
    calls_model: bool = False  # spends like a message (daily limits apply)


COMMANDS: tuple[CommandDef, ...] = (
    CommandDef("help", "Show commands, or details of one", "[command]", ("h", "?")),
    CommandDef("usage", "Cache hit rate, cost, savings and misses", aliases=("cost",), gateway=True),
    CommandDef("compress", "Summarise the middle of the conversation", "[--preview] [focus]",
               aliases=("compact",),
               cache_effect="rewrites history and rebuilds the prompt (one cache miss)",
               gateway=True, calls_model=True),
    CommandDef("model", "Show or switch the model (and its provider, if configured)", "[name]",
               complete="model",
               cache_effect="the cache is per model: the next call re-sends everything",
               gateway=True),
    CommandDef("personality", "List personalities or switch", "[name|none]",
               complete="personality", cache_effect="rebuilds the system prompt", gateway=True),
    CommandDef("reasoning", "Show or set thinking and effort",
               "[off|adaptive|<budget>] [effort=<level>]", aliases=("think",),
               cache_effect="invalidates the cached messages (tools and system stay cached)",
               gateway=True),
    CommandDef("new", "Start a new session", aliases=("clear", "reset"),
               cache_effect="new prompt, written on the first call", gateway=True),
    CommandDef("plan", "Plan mode: read and plan only, nothing changes", "[on|off]", gateway=True),
    CommandDef("permissions", "The permission rules in force and where they come from"),
    CommandDef("resume", "Resume a stored session", "[id]", complete="session"),
    CommandDef("sessions", "List recent sessions"),
    CommandDef("cron", "Scheduled jobs: list, or remove/pause/resume one",
               "[remove|pause|resume NAME]", gateway=True),
    CommandDef("title", "Show or set the session title", "[text]", gateway=True),
    CommandDef("retry", "Run the last message again", cache_effect="drops the last reply",
               gateway=True, calls_model=True),
    CommandDef("undo", "Drop the last exchange and put back the files it changed", "[--force]",
               cache_effect="history edit: cache kept up to it", gateway=True),
    CommandDef("goal", "Work on a goal turn after turn until a check passes (docs/AUTONOMY.md)",
               "[--check CMD] [--max-turns N] TEXT | stop", gateway=True, calls_model=True),
    CommandDef("loop", "Run a prompt again every interval (auto: chosen from the cache lifetime)",
               "[INTERVAL|auto] [PROMPT] | stop", calls_model=True),
    CommandDef("bg", "Run a prompt in the background from this conversation (hermes ps, logs)",
               "PROMPT", calls_model=True),
    CommandDef("diff", "Show what this session changed in files", "[--full]"),
    CommandDef("init", "Draft a HERMES.md for this project (a model turn)"),
    CommandDef("export", "Write this session to a file (Markdown or JSON)", "[md|json] [path]"),
    CommandDef("skills", "List skills or show one", "[name]", complete="skill"),
    CommandDef("tools", "List the tools of this session"),
    CommandDef("expand", "Show the last tool's whole output or diff, or the last thinking",
               "[thinking]"),
    CommandDef("mcp", "MCP servers, status and tool counts; reload applies changed tool lists",
               "[reload]", cache_effect="reload rewrites the tool list (one cache miss)"),
    CommandDef("memory", "Show MEMORY.md and USER.md"),
    CommandDef("prompt", "What fills the context window: tools, prompt layers and the "
               "conversation, with token estimates", aliases=("context",)),
    CommandDef("config", "The settings in force and where each came from"),
    CommandDef("exit", "Quit (prints how to resume)", aliases=("quit", "q")),
)

_BY_NAME = {name: c for c in COMMANDS for name in (c.name, *c.aliases)}


def lookup(name: str) -> CommandDef | None:
    """The command for `name` (without the slash), aliases included."""
    return _BY_NAME.get(name.lstrip("/").lower())


def suggest(name: str) -> list[str]:
    """Close command names for a typo ("did you mean ...")."""
    typed = name.lstrip("/").lower()
    prefixed = [n for n in _BY_NAME if typed and n.startswith(typed)]
    close = difflib.get_close_matches(typed, list(_BY_NAME), n=3, cutoff=0.6)
    return list(dict.fromkeys([*prefixed, *close]))[:3]


def parse(line: str) -> tuple[str, str] | None:
    """"/model foo bar" -> ("model", "foo bar"); None when `line` is not a command."""
    text = line.strip()
    if not text.startswith("/") or text.startswith("//") or len(text) == 1:
        return None
    name, _, rest = text[1:].partition(" ")
    return name.lower(), rest.strip()
