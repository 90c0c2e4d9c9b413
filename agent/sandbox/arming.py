"""The workspace cannot arm a later run: what a command plants to run outside the sandbox
is put back after it, and reported.

Some files in a project run programs later, outside the sandbox, when a person (or
hermes itself) uses the project: git hooks, direnv's `.envrc`, VS Code tasks and
settings, hermes' own `.hermes/`, MCP server lists in `.mcp.json`. The list is closed
(`ARMING`); `sandbox.allow_arming` names entries a user lets through. A terminal call
takes a `Snapshot` of them before the command (`Snapshot.take`) and `revert`s after:
files the command created are deleted, files it changed get their bytes and mode back
(deleted ones stay deleted: a deletion arms nothing). In `.git/config` only the keys
that run programs (`DANGEROUS_KEYS`: hooksPath, fsmonitor, sshCommand, `!` aliases,
filter and diff drivers, ...) that the command added are removed, so `git init`,
`git clone` and `git remote add` keep working.

Where: the workspace and the command's working directory before and after (every
entry), and the `.git` of each directory directly inside them (a fresh `git clone`). The restore goes
through safefs with no link followed, so it cannot be redirected outside either.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import safefs

if TYPE_CHECKING:
    from agent.sandbox.backend import Sandbox

ARMING_FILES = (".envrc", ".vscode/tasks.json", ".vscode/settings.json", ".mcp.json",
                ".git/config")
ARMING_DIRS = (".git/hooks", ".hermes")
ARMING = ARMING_FILES + ARMING_DIRS
MAX_KEPT = 1_000_000  # bytes of one file kept to put back
DANGEROUS_KEYS = re.compile(
    r"^(core\.(hookspath|fsmonitor|sshcommand|editor|pager|askpass|gitproxy|"
    r"alternaterefscommand)|sequence\.editor|diff\.external|diff\..+\.(textconv|command)|"
    r"merge\..+\.driver|filter\..+\.(clean|smudge|process)|credential(\..+)?\.helper|"
    r"gpg(\..+)?\.program|uploadpack\.packobjectshook|remote\..+\.(uploadpack|receivepack)|"
    r"pager\..+|(difftool|mergetool|browser|man)\..+\.(cmd|path)|web\.browser|"
    r"include\.path|includeif\..+\.path|sendemail\..*cmd|ssh\.command)$")


@dataclass(frozen=True)
class _Seen:
    sig: tuple[int, int, int, int]  # mode, size, mtime_ns, inode
    data: bytes | None  # None: a link, or too large to keep


@dataclass
class Snapshot:
    """The arming files under some directories before a command (see module docstring)."""

    bases: list[tuple[str, bool]]
    allow: frozenset[str] = frozenset()
    files: dict[str, _Seen] = field(default_factory=dict)

    @classmethod
    def take(cls, workspace: str, cwd: str, allow: frozenset[str] = frozenset()) -> Snapshot:
        snap = cls(_bases(os.path.realpath(workspace), os.path.realpath(cwd)), allow)
        snap.files = _scan(snap.bases, allow)
        return snap

    def revert(self, cwd_after: str | None = None) -> list[str]:
        """Put back what changed since `take`; one line per file reverted."""
        after = os.path.realpath(cwd_after or self.bases[0][0])
        bases = self.bases + [b for b in _bases(self.bases[0][0], after) if b not in self.bases]
        now = _scan(bases, self.allow)
        lines: list[str] = []
        for path, seen in now.items():
            old = self.files.get(path)
            if old is not None and (old.sig == seen.sig or (
                    old.data is not None and old.data == seen.data and old.sig[0] == seen.sig[0])):
                continue  # untouched, or the same bytes and mode (a put-back one included)
            try:
                line = _put_back(path, old, seen)
            except OSError as exc:
                line = f"{path}: could not be put back ({exc.strerror or exc}) - check it"
            if line:
                lines.append(line)
        return lines


def _bases(workspace: str, cwd: str) -> list[tuple[str, bool]]:
    """(directory, full): the workspace and cwd get every entry checked; the directories
    directly inside them only `.git` (a fresh clone) - one lstat each."""
    found: dict[str, bool] = {}
    for top in (workspace, cwd):
        found[top] = True
        try:
            with os.scandir(top) as listing:
                for entry in listing:
                    if entry.is_dir(follow_symlinks=False) and not entry.name.startswith("."):
                        found.setdefault(entry.path, False)
        except OSError:
            continue
    return list(found.items())


_TOP = {".git": (".git/config",), ".envrc": (".envrc",), ".mcp.json": (".mcp.json",),
        ".vscode": (".vscode/tasks.json", ".vscode/settings.json"), ".hermes": ()}


def _scan(bases: list[tuple[str, bool]], allow: frozenset[str]) -> dict[str, _Seen]:
    out: dict[str, _Seen] = {}
    for base, full in bases:
        for top, files in _TOP.items() if full else ((".git", (".git/config",)),):
            if not os.path.lexists(os.path.join(base, top)):
                continue  # most are absent: one lstat and done
            for rel in files:
                if rel not in allow:
                    _note(os.path.join(base, rel), out)
            for rel in ARMING_DIRS:
                if not rel.startswith(top + "/") and rel != top or rel in allow:
                    continue
                folder = os.path.join(base, rel)
                _note(folder, out, keep=False)
                for where, dirs, names in os.walk(folder):
                    for name in dirs + names:
                        if not name.endswith(".sample"):  # git's inert examples
                            _note(os.path.join(where, name), out)
    return out


def _note(path: str, out: dict[str, _Seen], keep: bool = True) -> None:
    try:
        info = os.lstat(path)
    except OSError:
        return
    data = None
    if keep and stat.S_ISREG(info.st_mode) and info.st_size <= MAX_KEPT:
        try:
            data = safefs.read_bytes("/", path, links=False)
        except OSError:
            data = None
    out[path] = _Seen((info.st_mode, info.st_size, info.st_mtime_ns, info.st_ino), data)


def _put_back(path: str, old: _Seen | None, now: _Seen) -> str:
    if path.endswith("/.git/config") and now.data is not None:
        return _clean_git_config(path, old.data if old and old.data else b"", now.data)
    if stat.S_ISDIR(now.sig[0]):
        return ""  # a directory arms nothing; the files in it are judged one by one
    if old is None:
        safefs.unlink("/", path, links=False)
        return f"{path} (created by the command): removed"
    if old.data is None:
        return f"{path}: changed by the command and too large to put back - check it"
    safefs.write_atomic("/", path, old.data, links=False, mode=stat.S_IMODE(old.sig[0]))
    return f"{path} (changed by the command): put back"


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


def _dangerous(key: str, value: str) -> bool:
    return bool(DANGEROUS_KEYS.match(key.lower())) or (
        key.lower().startswith("alias.") and value.strip().strip('"').startswith("!"))


def _clean_git_config(path: str, before: bytes, after: bytes) -> str:
    old = {(k.lower(), v) for _, k, v in git_config_entries(before.decode("utf-8", "replace"))
           if _dangerous(k, v)}
    text = after.decode("utf-8", "replace")
    lines = text.splitlines(keepends=True)
    drop = {i: k for i, k, v in git_config_entries(text) if _dangerous(k, v) and (k.lower(), v) not in old}
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


def guarded(workspace: str, path: str) -> str | None:
    """The arming entry `path` falls under when it is in the workspace (or a directory
    directly inside it), else None: the file tools refuse to write those too."""
    rel = os.path.relpath(path, workspace)
    if rel.startswith(".."):
        return None
    parts = Path(rel).parts
    for skip in (0, 1):
        tail = "/".join(parts[skip:])
        for entry in ARMING_FILES + ARMING_DIRS:
            if tail == entry or tail.startswith(entry + "/"):
                return entry
    return None


class Watch:
    """Around one terminal command: a Snapshot when the sandbox is on (`box.enabled`;
    a command the user let out of the sandbox is theirs), `done` reverts and returns the
    note for the tool result ("" when nothing was planted)."""

    def __init__(self, box: Sandbox, cwd: Path | str) -> None:
        self.snap: Snapshot | None = None
        if box.enabled:
            allow = frozenset(box.policy.allow_arming)
            self.snap = Snapshot.take(box.policy.workspace, str(cwd), allow)

    def done(self, cwd_after: str | None) -> str:
        if self.snap is None:
            return ""
        lines = self.snap.revert(cwd_after)
        if not lines:
            return ""
        shown = "\n".join(f"  {line}" for line in lines)
        return ("[hermes put back files this command planted that would run programs later, "
                f"outside the sandbox (git hooks and config, .envrc, editor tasks, .hermes/, "
                f".mcp.json):\n{shown}\nAsk the user to make such changes themselves.]\n")
