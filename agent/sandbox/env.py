"""The environment tool processes get: an allowlist, never the parent's whole environment.

Kept: PATH, HOME, USER, LOGNAME, SHELL, TZ, the locale (LANG, LANGUAGE, LC_*), TERM and
COLORTERM, and the names the user lists in `sandbox.env_allow` (alias `pass_env`; a
trailing `*` matches a prefix, e.g. `MYAPP_*`). Nothing else: a variable hermes does not
know (REDIS_URL=redis://:password@host, a provider key, HERMES_DATABASE_URL) never
reaches `env` or /proc/self/environ of a tool. The caller adds hermes' own variables for
the tool (PAGER=cat, GIT_PAGER=cat, GIT_TERMINAL_PROMPT=0, TMPDIR). MCP stdio servers and
delegated sub-agents get the same allowlist plus what their own config entry names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

BASE = frozenset({"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TZ", "LANG", "LANGUAGE", "TERM",
                  "COLORTERM"})
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\*?$")


def allowed(name: str, allow: Iterable[str] = ()) -> bool:
    """Whether `name` may reach a tool process (BASE, LC_*, or listed by the user)."""
    if name in BASE or name.startswith("LC_"):
        return True
    for entry in allow:
        if entry == name or (entry.endswith("*") and name.startswith(entry[:-1])):
            return True
    return False


def tool_env(environ: Mapping[str, str], allow: Iterable[str] = ()) -> dict[str, str]:
    """The part of `environ` a tool process may see (see the module docstring)."""
    allow = tuple(allow)
    return {k: v for k, v in environ.items() if allowed(k, allow)}


def bad_entries(entries: Iterable[object]) -> list[str]:
    """The entries of a `sandbox.env_allow` list that are not variable names (or NAME*)."""
    return [repr(e) for e in entries if not isinstance(e, str) or not NAME.match(e.strip())]
