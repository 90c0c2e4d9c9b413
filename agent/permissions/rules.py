"""Permission rules from config.yaml: `permissions: {allow: [...], ask: [...], deny: [...]}`.

A rule is `TOOL` (every call of that tool) or `TOOL(pattern)`; TOOL is ours, an MCP
tool's or Claude Code's name (agent/permissions/names.py; any other is a ConfigError):
- `terminal(git status*)`: a glob on each simple command the line runs, its words joined
  by one space (agent/permissions/shell.py: `a && b; c | d`, subshells, `$(...)`,
  `bash -c '...'`, wrappers like sudo/env/nohup peeled, git's global options skipped);
  Claude Code's `git push:*` means `git push` or `git push ...`. A deny or ask matches
  when ANY of them matches, or when the line cannot be analysed (eval of computed text,
  a command name from a variable, `... | sh`, unbalanced quotes); an allow only when
  EVERY one is covered by some allow rule and the line is understood;
- `read_file(./secrets/**)`, `write_file(...)`, `patch(...)`, `search_files(...)`: a glob
  on the `path` argument, relative to the workspace (`*` one name, `**` any depth;
  a pattern starting with `/` or `~` is absolute). A deny on read_file or search_files
  is a deny on reading: both tools and patch refuse the path, a search of a folder around
  it skips those files, and `@file` mentions refuse it (web_fetch reads no file:// URL).
  A deny on write_file or patch is a deny on writing: every tool that declares the files
  it writes (`Tool.writes`) refuses the path, and so does the write itself (guard_write);
- `web_fetch(domain:docs.python.org)`: the URL's host (and its subdomains); a deny rule
  also refuses a redirect to a matching host (agent/tools/web_fetch.py). `web_search`
  takes no pattern: a rule covers every search.
Deny wins, then ask, then allow. `--yolo` answers an ask, never a deny; an allow only
skips the danger prompt of a matching terminal command (never the sandbox).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from agent.errors import ConfigError
from agent.permissions.globs import command_glob, could_match, glob
from agent.permissions.names import covers, resolve
from agent.permissions.shell import Simple, analyse
from agent.permissions.shell_runs import program

KINDS = ("deny", "ask", "allow")  # precedence order
PATH_TOOLS = frozenset({"read_file", "write_file", "patch", "search_files"})
READ_TOOLS = frozenset({"read_file", "search_files"})  # a deny on either is a deny on reading
READERS = READ_TOOLS | {"patch"}  # what a deny on reading refuses (patch reads, and answers
                                  # whether its old_string is there: an oracle)
WRITE_TOOLS = frozenset({"write_file", "patch"})  # a deny on either is a deny on writing:
                                                   # every tool that declares `writes` honours it
DOMAIN_TOOLS = frozenset({"web_fetch"})
_RULE = re.compile(r"^([A-Za-z0-9_.:-]+)(?:\((.*)\))?$", re.S)
EXAMPLE = "for example `permissions: {deny: ['terminal(git push*)', 'read_file(./secrets/**)']}`"


@dataclass(frozen=True)
class Rule:
    kind: str  # "allow" | "ask" | "deny"
    tool: str
    pattern: str | None  # None: every call of the tool
    source: str  # where it was configured (a file name)
    written: str = ""  # as the config wrote it, when that differs (a Claude Code name)

    @property
    def text(self) -> str:
        return self.tool if self.pattern is None else f"{self.tool}({self.pattern})"

    def matches(self, tool: str, args: dict[str, Any], workspace: Path,
                writes: tuple[str, ...] = ()) -> bool:
        if self.kind == "deny" and self.tool in WRITE_TOOLS and writes:  # any writer
            paths = [args.get(key) for key in writes]
            return self.pattern is None or any(
                isinstance(raw, str) and _path_matches(self.pattern, raw, workspace) for raw in paths)
        if not covers(self.tool, tool) and not (self.kind == "deny" and self.tool in READ_TOOLS
                                                and tool in READERS):
            return False
        if self.pattern is None:
            return True
        if tool == "terminal":
            analysis = analyse(str(args.get("command") or ""))
            if self.kind == "allow":
                return not analysis.unclear and bool(analysis.commands) and \
                    all(self.covers(c) for c in analysis.commands if not c.tail)
            return bool(analysis.unclear) or any(self.touches(c) for c in analysis.commands)
        if tool in PATH_TOOLS:
            raw = args.get("path")
            raw = "." if tool == "search_files" and not raw else raw
            return isinstance(raw, str) and _path_matches(self.pattern, raw, workspace)
        try:  # the host as the fetch sees it (agent/tools/web/policy.py): no trailing dot
            host = (urlsplit(str(args.get("url") or "").strip()).hostname or "").rstrip(".").lower()
        except ValueError:
            return False
        domain = self.pattern[len("domain:"):].rstrip(".").lower()
        return bool(host) and (host == domain or host.endswith("." + domain))


    def covers(self, command: Simple) -> bool:
        """An allow rule: does it cover this simple command as it will run?"""
        return self.pattern is None or any(
            command_glob(self.pattern, " ".join(words)) for words, _ in command.forms(strict=True))

    def touches(self, command: Simple) -> bool:
        """A deny/ask rule: might this simple command be what it names? A word computed
        at run time may be anything (any words, once the shell splits it); any run of
        its words from a program's name on may be what runs (Simple.tails)."""
        return self.pattern is None or self.names(command) or self.tail(command) is not None \
            or self.in_code(command)

    def in_code(self, command: Simple) -> bool:
        """An interpreter's code (`python -c`, `perl -e`, `awk '...system(...)'`) that
        holds the words the rule names: hermes does not read the code, so it counts."""
        literal = _literal(self.pattern or "")
        return bool(literal) and command.interpreted() and \
            any(literal in word for word in command.words[1:])

    def names(self, command: Simple) -> bool:
        assert self.pattern is not None
        return any(could_match(self.pattern, words, dynamic)
                   for words, dynamic in command.forms(strict=False))

    def tail(self, command: Simple) -> Simple | None:
        """The run of `command`'s later words this rule matches, if any."""
        for tail in command.tails(_head(self.pattern or "")):
            if self.names(tail):
                return tail
        return None

    def why(self, tool: str, args: dict[str, Any]) -> str:
        """For a terminal deny/ask: why it applies when the line does not plainly run
        what it names ("" when it does)."""
        if tool != "terminal" or self.pattern is None:
            return ""
        analysis = analyse(str(args.get("command") or ""))
        if analysis.unclear:
            return f"hermes cannot tell what this command runs ({analysis.unclear}), so the rule applies"
        if any(self.names(c) for c in analysis.commands):
            return ""
        for command in analysis.commands:
            if self.in_code(command):
                return (f"`{command.words[0]}` runs code that names `{_literal(self.pattern)}`, "
                        "and hermes does not read code")
            tail = self.tail(command)
            if tail is not None:
                return (f"`{' '.join(tail.words)}` is among the arguments of `{command.words[0]}`, "
                        "and hermes cannot tell that it does not run them")
        return ""


@dataclass(frozen=True)
class Rules:
    rules: tuple[Rule, ...] = ()

    def verdict(self, tool: str, args: dict[str, Any], workspace: Path,
                writes: tuple[str, ...] = ()) -> Rule | None:
        """The deciding rule for a call (deny before ask before allow), or None;
        `writes`: the tool's arguments that name files it writes (Tool.writes)."""
        for kind in KINDS:
            for rule in self.rules:
                if rule.kind == kind and rule.matches(tool, args, workspace, writes):
                    return rule
        if tool == "terminal":  # parts covered by different allow rules
            allows = [r for r in self.rules if r.kind == "allow" and r.tool == "terminal"]
            analysis = analyse(str(args.get("command") or ""))
            if allows and analysis.commands and not analysis.unclear and all(
                    any(r.covers(c) for r in allows) for c in analysis.commands if not c.tail):
                return allows[0]
        return None

    def allows(self, tool: str, args: dict[str, Any], workspace: Path) -> bool:
        found = self.verdict(tool, args, workspace)
        return found is not None and found.kind == "allow"

    def read_denied(self, path: str | Path, workspace: Path) -> Rule | None:
        """The deny rule on reading `path` (a `read_file(...)` or `search_files(...)` deny),
        which every reader honours: read_file, search_files' results, `@file` mentions."""
        for rule in self.rules:
            if rule.kind == "deny" and rule.tool in READ_TOOLS and (
                    rule.pattern is None or _path_matches(rule.pattern, str(path), workspace)):
                return rule
        return None

    def write_denied(self, path: str | Path, workspace: Path) -> Rule | None:
        """The deny rule on writing `path` (a `write_file(...)` or `patch(...)` deny), which
        every writer honours where it writes (agent/sandbox/file_policy.py guard_write)."""
        for rule in self.rules:
            if rule.kind == "deny" and rule.tool in WRITE_TOOLS and (
                    rule.pattern is None or _path_matches(rule.pattern, str(path), workspace)):
                return rule
        return None

    def describe(self) -> list[str]:
        """One line per rule in force, in precedence order, naming where it came from."""
        return [f"{r.kind:<5} {r.text}  ({r.source}{'; written ' + r.written if r.written else ''})"
                for kind in KINDS for r in self.rules if r.kind == kind]


def parse(raw: object, source: str) -> Rules:
    """The `permissions:` mapping of one config file; one ConfigError for a bad entry."""
    if raw is None:
        return Rules()
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: `permissions` must be a mapping of allow/ask/deny lists", EXAMPLE)
    unknown = sorted(str(k) for k in raw if k not in KINDS)
    if unknown:
        raise ConfigError(f"{source}: `permissions` has unknown key(s) {', '.join(unknown)}",
                          "the keys are allow, ask and deny")
    rules: list[Rule] = []
    for kind in KINDS:
        entries = raw.get(kind) or []
        if not isinstance(entries, list):
            raise ConfigError(f"{source}: `permissions.{kind}` must be a list of rules", EXAMPLE)
        rules += [rule for entry in entries for rule in _rules(kind, entry, source)]
    return Rules(tuple(rules))


def _rules(kind: str, entry: object, source: str) -> list[Rule]:
    """The rules of one entry: one per tool its name stands for (Claude Code's `Edit` is
    two), each as our name; the entry as written is kept for /permissions."""
    where = f"{source}: permission rule {entry!r} in `permissions.{kind}`"
    if not isinstance(entry, str) or not entry.strip():
        raise ConfigError(f"{where} is not a rule", "a rule is TOOL or TOOL(pattern); " + EXAMPLE)
    found = _RULE.match(entry.strip())
    if found is None:
        raise ConfigError(f"{where} is malformed", "a rule is TOOL or TOOL(pattern), e.g. terminal(git status*)")
    tools = resolve(found.group(1), where)
    written = entry.strip() if tools != (found.group(1),) else ""
    return [replace(_rule(where, kind, tool, found.group(2), source), written=written) for tool in tools]


def _rule(where: str, kind: str, tool: str, pattern: str | None, source: str) -> Rule:
    if pattern is None:
        return Rule(kind, tool, None, source)
    pattern = pattern.strip()
    if not pattern:
        raise ConfigError(f"{where} has an empty pattern", f"write `{tool}` for every call")
    if tool in DOMAIN_TOOLS and not (pattern.startswith("domain:") and len(pattern) > 7):
        raise ConfigError(f"{where}: {tool} takes `domain:HOST`", f"e.g. {tool}(domain:docs.python.org)")
    if tool != "terminal" and tool not in PATH_TOOLS | DOMAIN_TOOLS:
        raise ConfigError(f"{where}: {tool} takes no pattern",
                          "patterns work for terminal (command), read_file/write_file/patch/"
                          "search_files (path) and web_fetch (domain:HOST)")
    return Rule(kind, tool, pattern, source)


@lru_cache(maxsize=256)
def _literal(pattern: str) -> str:
    """A terminal pattern's words before its first wildcard (`git push*` -> `git push`),
    when that is a program and something more."""
    text = " ".join(pattern[:-2].split() if pattern.endswith(":*") else pattern.split())
    cut = min([i for i in (text.find("*"), text.find("?"), text.find("[")) if i >= 0] or [len(text)])
    text = text[:cut].strip()
    return text if " " in text else ""


@lru_cache(maxsize=256)
def _head(pattern: str) -> str:
    """A terminal pattern's program name when it is literal (`git push*` -> git), else ""."""
    first = pattern.split(None, 1)[0] if pattern.split() else ""
    first = first[:-2] if first.endswith(":*") else first
    return "" if any(c in first for c in "*?[") else program(first)


def _path_matches(pattern: str, raw: str, workspace: Path) -> bool:
    """Both sides as absolute normalised paths; a relative pattern is under the workspace."""
    home = os.path.expanduser("~")
    base = os.path.realpath(workspace)

    pattern = pattern[1:] if pattern.startswith("//") else pattern  # Claude Code's `//abs/path`

    def absolute(text: str) -> str:
        text = home + text[1:] if text == "~" or text.startswith("~/") else text
        return os.path.normpath(os.path.join(base, text))

    target = os.path.realpath(absolute(raw))
    wanted = absolute(pattern)
    if wanted.endswith("/**") and target == wanted[:-3]:  # `dir/**` also matches `dir`
        return True
    return glob(wanted, target) or glob(wanted, absolute(raw))
