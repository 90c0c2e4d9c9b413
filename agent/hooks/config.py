"""`hooks:` in config.yaml, shaped like Claude Code's settings (docs/HOOKS.md):

    hooks:
      PreToolUse:
        - matcher: terminal          # a regex on the tool name (whole name); omitted = all;
                                     # Claude Code's names match too (Bash, Edit|Write, ...)
          hooks:
            - type: command
              command: ~/bin/check-command.py
              timeout: 30            # seconds (default 60)
              sandbox: host          # only for a hook that must run outside the tool
                                     # sandbox (default: inside it, agent/hooks/confine.py)

A malformed entry is one ConfigError naming where it is and what is expected; so is a
tool matcher naming no tool (`termnal`: "did you mean terminal?").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from agent.errors import ConfigError
from agent.permissions.names import (
    BUILTIN,
    CLAUDE_CODE,
    CLAUDE_CODE_ONLY,
    aliases,
    resolve,
    suggestion,
)

EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop",
          "SubagentStop", "PreCompact", "Notification")
# what a matcher is matched against, per event (the others run for every occurrence)
SUBJECT = {"PreToolUse": "tool name", "PostToolUse": "tool name",
           "SessionStart": "source (startup|resume)", "PreCompact": "trigger (manual|auto)"}
DEFAULT_TIMEOUT = 60.0
MAX_TIMEOUT = 3600.0
EXAMPLE = ("e.g. `hooks: {PreToolUse: [{matcher: terminal, hooks: [{type: command, "
           "command: ~/bin/check.py, timeout: 30}]}]}`")
_ALL = ("", "*")
NAMES = re.compile(r"[A-Za-z0-9_-]+(?:\|[A-Za-z0-9_-]+)*")


@dataclass(frozen=True)
class Command:
    """One command hook: a shell command line, its timeout, where it was configured."""

    command: str
    timeout: float
    source: str
    host: bool = False  # `sandbox: host`: runs outside the tool sandbox (agent/hooks/confine.py)


@dataclass(frozen=True)
class Group:
    """A matcher and the commands it runs (`matcher` "" or "*": every subject)."""

    matcher: str
    commands: tuple[Command, ...]
    pattern: re.Pattern[str] | None = field(default=None, compare=False)
    tools: bool = False  # the subject is a tool name: Claude Code's names for it match too

    def matches(self, subject: str | None) -> bool:
        if self.pattern is None or subject is None:
            return True
        names = aliases(subject) if self.tools else (subject,)
        return any(self.pattern.fullmatch(name) is not None for name in names)


@dataclass(frozen=True)
class Hooks:
    """Every configured hook, by event, in configuration order (user's, then project's)."""

    events: tuple[tuple[str, tuple[Group, ...]], ...] = ()

    def __bool__(self) -> bool:
        return any(groups for _event, groups in self.events)

    def commands(self, event: str, subject: str | None = None) -> list[Command]:
        """The commands to run for `event` on `subject`, in order, each once."""
        found: list[Command] = []
        for name, groups in self.events:
            if name != event:
                continue
            for group in groups:
                if group.matches(subject):
                    found += [c for c in group.commands if c not in found]
        return found

    def merged(self, other: Hooks) -> Hooks:
        table = {name: list(groups) for name, groups in self.events}
        for name, groups in other.events:
            table.setdefault(name, []).extend(groups)
        return Hooks(tuple((name, tuple(table[name])) for name in EVENTS if table.get(name)))

    def describe(self) -> list[str]:
        """One line per command, for a person (/hooks, the trust question)."""
        return [f"{name} [{group.matcher or '*'}] {command.command}  ({command.source})"
                + ("  - sandbox: host, runs outside the sandbox" if command.host else "")
                for name, groups in self.events for group in groups
                for command in group.commands]

    def on_host(self) -> list[str]:
        """`describe`'s lines of the hooks that run outside the sandbox (`sandbox: host`)."""
        return [line for line in self.describe() if line.endswith("runs outside the sandbox")]


def parse(raw: object, source: str) -> Hooks:
    """The `hooks:` mapping of one config file (None: no hooks); one ConfigError for a
    malformed entry."""
    if raw is None:
        return Hooks()
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: `hooks` must be a mapping of event names to lists", EXAMPLE)
    unknown = [str(k) for k in raw if k not in EVENTS]
    if unknown:
        raise ConfigError(f"{source}: `hooks` has unknown event {unknown[0]!r}",
                          f"the events are {', '.join(EVENTS)}")
    events = []
    for name in EVENTS:
        entries = raw.get(name)
        if entries is None:
            continue
        if not isinstance(entries, list):
            raise ConfigError(f"{source}: `hooks.{name}` must be a list of matcher groups", EXAMPLE)
        events.append((name, tuple(_group(f"{source}: hooks.{name}[{i}]", entry, source,
                                          tools=SUBJECT.get(name) == "tool name")
                                   for i, entry in enumerate(entries))))
    return Hooks(tuple(events))


def _group(where: str, entry: object, source: str, *, tools: bool) -> Group:
    if not isinstance(entry, dict):
        raise ConfigError(f"{where} must be a mapping with `matcher` and `hooks`", EXAMPLE)
    extra = sorted(str(k) for k in entry if k not in ("matcher", "hooks"))
    if extra:
        raise ConfigError(f"{where} has unknown key {extra[0]!r}", "a group has `matcher` and `hooks`")
    matcher = entry.get("matcher")
    matcher = "" if matcher is None else matcher
    if not isinstance(matcher, str):
        raise ConfigError(f"{where}: `matcher` must be text (a regex on the tool name), "
                          f"got {matcher!r}", "e.g. `matcher: terminal` or `matcher: write_file|patch`")
    pattern = None
    if matcher.strip() not in _ALL:
        try:
            pattern = re.compile(matcher.strip())
        except re.error as exc:
            raise ConfigError(f"{where}: `matcher` {matcher!r} is not a regular expression ({exc})",
                              "e.g. `matcher: write_file|patch` or `matcher: mcp__.*`") from None
    if pattern is not None and tools:
        _known_tools(f"{where}: `matcher`", matcher.strip(), pattern)
    hooks = entry.get("hooks")
    if not isinstance(hooks, list) or not hooks:
        raise ConfigError(f"{where}: `hooks` must be a non-empty list of command hooks", EXAMPLE)
    commands = tuple(_command(f"{where}.hooks[{i}]", item, source) for i, item in enumerate(hooks))
    return Group(matcher.strip(), commands, pattern, tools)


def _known_tools(where: str, matcher: str, pattern: re.Pattern[str]) -> None:
    """A tool matcher names tools that exist: each name of `a|b` is ours, an MCP tool's or
    Claude Code's (agent/permissions/names.py); a regex matches at least one of them."""
    if NAMES.fullmatch(matcher):
        names = [n for n in matcher.split("|") if n not in CLAUDE_CODE_ONLY] or matcher.split("|")
        for name in names:  # `Edit|Write|NotebookEdit`, as Claude Code's docs write it
            resolve(name, where)
    elif not matcher.startswith("mcp__") and not any(
            pattern.fullmatch(name) for name in BUILTIN | set(CLAUDE_CODE)):
        raise ConfigError(f"{where} matches no tool{suggestion(matcher)}",
                          f"the tools are {', '.join(sorted(BUILTIN))}, MCP tools as "
                          "mcp__SERVER__TOOL, and Claude Code's names (Bash, Read, Write, Edit, ...)")


def _command(where: str, item: object, source: str) -> Command:
    if not isinstance(item, dict):
        raise ConfigError(f"{where} must be a mapping with `type: command` and `command`", EXAMPLE)
    extra = sorted(str(k) for k in item if k not in ("type", "command", "timeout", "sandbox"))
    if extra:
        raise ConfigError(f"{where} has unknown key {extra[0]!r}",
                          "a hook has type, command, timeout, sandbox")
    place = item.get("sandbox", "tools")
    if place not in ("tools", "host"):
        raise ConfigError(f"{where}: `sandbox` must be `host` (run outside the tool sandbox) or "
                          f"`tools` (the default), got {place!r}",
                          "e.g. `{type: command, command: notify-send done, sandbox: host}`")
    if item.get("type", "command") != "command":
        raise ConfigError(f"{where}: `type` {item.get('type')!r} is not supported",
                          "hermes runs `type: command` hooks only")
    command = item.get("command")
    if not isinstance(command, str) or not command.strip():
        raise ConfigError(f"{where}: `command` must be a command line", EXAMPLE)
    timeout = item.get("timeout", DEFAULT_TIMEOUT)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) \
            or not 0 < timeout <= MAX_TIMEOUT:
        raise ConfigError(f"{where}: `timeout` must be seconds between 0 and {MAX_TIMEOUT:g}, "
                          f"got {timeout!r}", "e.g. `timeout: 30` (default 60)")
    return Command(command.strip(), float(timeout), source, host=place == "host")
