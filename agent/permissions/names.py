"""Tool names as permission rules and hook matchers may write them.

Ours (BUILTIN; tests/permissions/test_tool_names.py keeps it equal to the registry's),
an MCP tool `mcp__SERVER__TOOL` or a whole server `mcp__SERVER` (agent/mcp/schema.py),
and Claude Code's names as aliases, so its rules and hook matchers port as written:
`Bash` is terminal, `Read` read_file, `Write` write_file, `Edit` patch and write_file
(as in Claude Code, it covers every edit), `MultiEdit` patch,
`Grep`/`Glob`/`LS` search_files, `WebFetch` web_fetch, `WebSearch` web_search, `Task`
delegate_task, `TodoWrite` todo. Any other name is a config error with a "did you mean"
(Claude Code's tools without a counterpart, e.g. NotebookEdit, are named as such; in a
hook matcher's `A|B|NotebookEdit` they are skipped).
"""

from __future__ import annotations

import difflib
import re

from agent.errors import ConfigError

BUILTIN = frozenset({"cronjob", "delegate_task", "memory", "patch", "read_file", "search_files",
                     "session_search", "skill_manage", "skill_view", "skills_list", "terminal",
                     "todo", "web_fetch", "web_search", "write_file"})
CLAUDE_CODE: dict[str, tuple[str, ...]] = {  # as Claude Code, `Edit` covers every file edit
    "Bash": ("terminal",), "Read": ("read_file",), "Write": ("write_file",),
    "Edit": ("patch", "write_file"), "MultiEdit": ("patch",), "Grep": ("search_files",),
    "Glob": ("search_files",), "LS": ("search_files",), "WebFetch": ("web_fetch",),
    "WebSearch": ("web_search",), "Task": ("delegate_task",), "TodoWrite": ("todo",)}
CLAUDE_CODE_ONLY = frozenset({"NotebookEdit", "NotebookRead", "BashOutput", "KillShell",
                              "KillBash", "ExitPlanMode", "SlashCommand"})  # no counterpart here
MCP = re.compile(r"^mcp__[A-Za-z0-9_-]+?(?:__[A-Za-z0-9_-]+)?$")


def resolve(name: str, where: str) -> tuple[str, ...]:
    """Our names for the tool `name` (an alias resolved); ConfigError naming `where`
    for a name no tool has."""
    if name in BUILTIN or MCP.match(name):
        return (name,)
    if name in CLAUDE_CODE:
        return CLAUDE_CODE[name]
    if name in CLAUDE_CODE_ONLY:
        raise ConfigError(f"{where}: {name} is a Claude Code tool hermes does not have, so this "
                          "would protect nothing", "remove it (hermes' tools: "
                          f"{', '.join(sorted(BUILTIN))})")
    raise ConfigError(f"{where}: no tool is called {name!r}{suggestion(name)}",
                      f"the tools are {', '.join(sorted(BUILTIN))}, MCP tools as mcp__SERVER__TOOL, "
                      "and Claude Code's names (Bash, Read, Write, Edit, Grep, Glob, WebFetch, ...)")


def suggestion(name: str) -> str:
    """` - did you mean X?` for the closest known name ("" when none is close)."""
    known = sorted(BUILTIN | set(CLAUDE_CODE))
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6) or \
        difflib.get_close_matches(name.lower(), [k.lower() for k in known], n=1, cutoff=0.6)
    if not close:
        return ""
    found = next((k for k in known if k.lower() == close[0].lower()), close[0])
    return f" - did you mean {found}?"


def covers(rule_tool: str, tool: str) -> bool:
    """Does a rule naming `rule_tool` apply to `tool` (`mcp__SERVER` covers its tools)?"""
    return rule_tool == tool or (rule_tool.startswith("mcp__") and rule_tool.count("__") == 1
                                 and tool.startswith(rule_tool + "__"))


def aliases(tool: str) -> tuple[str, ...]:
    """The names a hook matcher may use for `tool`: ours, then Claude Code's."""
    return (tool, *(alias for alias, ours in CLAUDE_CODE.items() if tool in ours))
