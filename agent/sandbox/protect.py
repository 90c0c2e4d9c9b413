"""Prevent rather than repair: inside the sandbox, a project's executable configuration is
read-only, so no command can leave something git, direnv, an editor or hermes runs later
on the host.

Why mounts, and which (the choice, and what it costs):
- What runs programs later is small and named: `.git/config`, `config.worktree`,
  `commondir`, `hooks/`, each submodule's (`.git/modules/<name>/`) config and hooks, a
  `.git` that is a `gitdir:` file, and `.hermes/`, `.claude/`, `.envrc` (and the files
  it loads: agent/sandbox/direnv.py), `.vscode/`, `.mcp.json`, `.husky/`,
  `.pre-commit-config.yaml`, lefthook's config. Each existing one is bound read-only onto itself when the session's
  mounts are laid out (agent/sandbox/linux.py): writes fail with EROFS.
- A mount point cannot be renamed, removed or replaced inside the namespace (EBUSY). So
  `.git` (and each submodule's git directory) is bound onto itself too, writable: git
  still writes objects, refs, the index, logs and FETCH_HEAD (`git commit`, `checkout`,
  `fetch`, `merge` work), but `.git` can no longer be swapped for a `gitdir:` file or a
  link into the workspace, nor `hooks/` for a link. What the repository's own config
  names is protected too: a `core.hooksPath` inside the project (husky's `.husky/`) and
  included config files. `.git/info` stays writable: exclude,
  attributes and sparse-checkout name no program (a driver needs config).
- The price: commands that write git's config fail in the sandbox (`git remote add`,
  `git config`, `git branch -u`, `git submodule init`), with git's own "could not lock
  config file" - the user runs those. A read-only whole `.git` (Codex CLI's choice)
  would also stop every commit; this keeps commits.
- What did not exist when the session started (a `git init`, a new `.envrc`) cannot be
  a mount point: the arming guard (agent/sandbox/arming.py) judges it after each command
  (new hooks removed, program-running keys taken out of a new config, a new `.git` file
  or link removed). `sandbox.allow_arming` lets entries through (not mounted, not judged).
Only paths inside a writable root are mounted (the rest of the tree is read-only
already); a link is never mounted over (its target is, when inside a writable root).
"""

from __future__ import annotations

import os
import re

from agent.sandbox.direnv import loaded_names, loads_dotenv_always
from agent.sandbox.gitconfig import LEFTHOOK_FILES, git_config_entries
from agent.sandbox.policy import Policy, inside_any

TOP_ENTRIES = (".hermes", ".claude", ".envrc", ".vscode", ".mcp.json", ".husky",
               ".pre-commit-config.yaml", *LEFTHOOK_FILES)
GIT_FILES = ("config", "config.worktree", "commondir")
MAX_MODULES = 200  # submodule git directories protected per repository

Mount = tuple[str, bool]  # (path, read_only)


def protected_mounts(policy: Policy) -> list[Mount]:
    """The binds for `policy`'s workspace, in mount order (each before what it holds):
    read_only False for an anchor (`.git`, a submodule's git directory)."""
    allow = set(policy.allow_arming)
    out: dict[str, bool] = {}
    ws = policy.workspace
    tops = [ws]
    try:
        with os.scandir(ws) as listing:
            tops += [e.path for e in listing if e.is_dir(follow_symlinks=False)
                     and os.path.isdir(os.path.join(e.path, ".git"))]
    except OSError:
        return []
    for top in tops:
        _repo(top, policy, allow, out)
    loaded = [] if ".envrc" in allow else loaded_names(ws, loads_dotenv_always())
    for name in (*TOP_ENTRIES, *loaded):
        path = os.path.join(ws, name)
        if name not in allow and os.path.lexists(path) and not os.path.islink(path):
            out[path] = True
    for path in policy.readonly:  # a write deny rule's files (agent/permissions/enforce.py)
        if os.path.lexists(path) and not os.path.islink(path):
            out[path] = True
    keep = {p: ro for p, ro in out.items() if inside_any(p, policy.writable)
            and not policy.is_hidden(p)}
    return sorted(keep.items(), key=lambda item: item[0].count("/"))


def _repo(top: str, policy: Policy, allow: set[str], out: dict[str, bool]) -> None:
    """A working tree's `.git` (a directory, a `gitdir:` file or a link), its git
    directory's executable parts, and the `.git` files of its submodules' checkouts."""
    dot = os.path.join(top, ".git")
    if ".git" in allow or not os.path.lexists(dot):
        return  # `sandbox.allow_arming: [.git]`: the user lets commands change it all
    if os.path.islink(dot):
        gitdir = os.path.realpath(dot)  # the link itself: the guard puts it back
    elif os.path.isfile(dot):
        out[dot] = True
        gitdir = _gitfile_target(dot) or ""
    else:
        gitdir = dot
    if os.path.isdir(gitdir) and inside_any(os.path.realpath(gitdir), policy.writable):
        _gitdir(os.path.realpath(gitdir), allow, out, depth=0)
    if os.path.isdir(gitdir) and ".git/hooks" not in allow:
        _named_by_config(top, gitdir, out)
    for sub in _submodule_paths(top):
        path = os.path.join(top, sub, ".git")
        if os.path.isfile(path) and not os.path.islink(path):
            out[path] = True


def _gitdir(gitdir: str, allow: set[str], out: dict[str, bool], depth: int) -> None:
    out.setdefault(gitdir, False)  # the anchor: cannot be renamed or replaced
    for name in GIT_FILES:
        path = os.path.join(gitdir, name)
        if f".git/{name}" not in allow and os.path.isfile(path) and not os.path.islink(path):
            out[path] = True
    hooks = os.path.join(gitdir, "hooks")
    if ".git/hooks" not in allow and os.path.lexists(hooks):
        out[os.path.realpath(hooks)] = True  # a link's target is mounted; the link is watched
    common = os.path.join(gitdir, "commondir")
    if os.path.isfile(common) and depth < 2:
        target = _read(common).strip()
        if target:
            _gitdir(os.path.realpath(os.path.join(gitdir, target)), allow, out, depth + 1)
    if ".git/modules" in allow or depth > 3:
        return
    found = 0
    for where, dirs, names in os.walk(os.path.join(gitdir, "modules")):
        dirs[:] = [d for d in dirs if d not in ("objects", "refs", "logs", "hooks", "info", "lfs")]
        if "HEAD" in names or "config" in names:
            found += 1
            if found > MAX_MODULES:
                return
            dirs[:] = [d for d in dirs if d == "modules"]
            _gitdir(where, allow, out, depth + 1)


def _named_by_config(top: str, gitdir: str, out: dict[str, bool]) -> None:
    """What the repository's config points git at that runs or is read as config: a
    `core.hooksPath` in the project (husky's `.husky/`), included config files."""
    for name in ("config", "config.worktree"):
        for _, key, value in git_config_entries(_read(os.path.join(gitdir, name))):
            value = value.strip().strip('"')
            if not value or not (key == "core.hookspath" or key == "include.path"
                                 or (key.startswith("includeif.") and key.endswith(".path"))):
                continue
            base = top if key == "core.hookspath" else gitdir
            path = os.path.realpath(os.path.join(base, os.path.expanduser(value)))
            if os.path.exists(path):
                out[path] = True


def _gitfile_target(path: str) -> str | None:
    text = _read(path).strip()
    if not text.startswith("gitdir:"):
        return None
    return os.path.realpath(os.path.join(os.path.dirname(path), text[7:].strip()))


def _submodule_paths(top: str) -> list[str]:
    text = _read(os.path.join(top, ".gitmodules"))
    paths = re.findall(r"^\s*path\s*=\s*(.+?)\s*$", text, re.MULTILINE)
    return [p for p in paths[:MAX_MODULES] if not p.startswith("/") and ".." not in p.split("/")]


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read(65536)
    except OSError:
        return ""
