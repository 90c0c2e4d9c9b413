"""Git config keys that run programs, and removing the ones a command added.

`DANGEROUS_KEYS` (hooksPath, fsmonitor, sshCommand, `!` aliases and aliases that give
git `-c`/`--config-env`/`--exec-path`/..., filter and diff
drivers, includes, ...) are what the arming guard (agent/sandbox/arming.py) takes out of
a `.git/config` (or a submodule's, or `config.worktree`) that a command changed or made,
keeping every other key so `git init`, `git clone` and `git remote add` keep working.
"""

from __future__ import annotations

import re

import safefs

# lefthook's config files (each runs commands on the user's `git commit`): every name and
# format it reads, the `-local` overrides too
LEFTHOOK_FILES = tuple(f"{dot}lefthook{local}.{ext}" for dot in ("", ".") for local in ("", "-local")
                       for ext in ("yml", "yaml", "toml", "json", "jsonc"))

DANGEROUS_KEYS = re.compile(
    r"^(core\.(hookspath|fsmonitor|sshcommand|editor|pager|askpass|gitproxy|"
    r"alternaterefscommand)|sequence\.editor|diff\.external|diff\..+\.(textconv|command)|"
    r"merge\..+\.driver|filter\..+\.(clean|smudge|process)|credential(\..+)?\.helper|"
    r"gpg(\..+)?\.program|uploadpack\.packobjectshook|remote\..+\.(uploadpack|receivepack)|"
    r"pager\..+|(difftool|mergetool|browser|man)\..+\.(cmd|path)|web\.browser|"
    r"include\.path|includeif\..+\.path|sendemail\..*cmd|ssh\.command|"
    r"extensions\.worktreeconfig)$")


def git_config_entries(text: str) -> list[tuple[int, str, str]]:
    """(line index, key as git names it (section[.sub].name, lowercased but for the
    subsection), value) of each entry of a git config file; continued lines belong to
    the entry above."""
    entries: list[tuple[int, str, str]] = []
    section = ""
    for index, line in enumerate(text.splitlines()):
        stripped = line.strip()
        head = re.match(r'^\[\s*([\w.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$', stripped)
        if head:
            name, sub, rest = head.groups()
            section = name.lower() + (f".{sub}" if sub is not None else "")
            if "." in name and sub is None:  # [section.sub] legacy form
                first, _, tail = name.partition(".")
                section = f"{first.lower()}.{tail.lower()}"
            stripped = rest.strip()
            if not stripped:
                continue
        match = re.match(r"^([A-Za-z][\w-]*)\s*(?:=\s*(.*))?$", stripped)
        if match and section:
            entries.append((index, f"{section}.{match.group(1).lower()}", match.group(2) or ""))
    return entries


# git's options before an alias's subcommand that make it run a program or read another
# config, `!` or not: `alias.st = -c core.fsmonitor=CMD status` runs CMD on `git st`
_ALIAS_RUNS = frozenset({"-c", "-C", "--config-env", "--exec-path", "--git-dir", "--work-tree"})


def dangerous(key: str, value: str) -> bool:
    bare = value.strip().strip('"')
    alias = key.lower().startswith("alias.")
    if alias and bare.startswith("-"):  # options before the subcommand
        for word in bare.replace('"', " ").split():
            if not word.startswith("-"):
                break
            if word.split("=", 1)[0] in _ALIAS_RUNS:
                return True
    return bool(DANGEROUS_KEYS.match(key.lower())) or (
        (alias or key.lower().endswith(".update")) and bare.startswith("!"))


def clean_git_config(path: str, before: bytes, after: bytes) -> str:
    """Write `after` back to `path` without the dangerous entries `before` did not have;
    "" when there were none, else the line for the report."""
    old = {(k.lower(), v) for _, k, v in git_config_entries(before.decode("utf-8", "replace"))
           if dangerous(k, v)}
    text = after.decode("utf-8", "replace")
    lines = text.splitlines(keepends=True)
    drop = {i: k for i, k, v in git_config_entries(text) if dangerous(k, v) and (k.lower(), v) not in old}
    if not drop:
        return ""
    kept, continued = [], False
    for index, line in enumerate(lines):
        if index in drop or continued:  # a dropped entry, or a continuation of one
            continued = line.rstrip("\r\n").endswith("\\")
            continue
        kept.append(line)
    safefs.write_atomic("/", path, "".join(kept).encode("utf-8"), links=False)
    keys = ", ".join(sorted(set(drop.values())))
    return f"{path}: removed {keys} (settings that run programs)"
