"""A job's `file:` target: placed once, when the job is created, inside a folder its
owner's session may write; appended to through safefs, never through a link.

Why: the answer is written by the scheduler, outside any sandbox,
long after the session that named the file. So the name is judged when the job is made
- with exactly that session's power - and the write can change nothing else later:

- `place` resolves the target (relative: to the session's working directory, `~`
  expanded, links resolved) and accepts it only inside `roots`: the session's workspace
  and its other writable folders (`sandbox.writable`; a gateway tenant: its workspace
  only) and HERMES_HOME/cron/output (where `origin` puts a terminal's answers). No part
  below the root may start with a dot (`.bashrc`, `.git/hooks/...`, `.envrc`: what
  programs run or read later), and it may not be a secret location (HERMES_HOME but for
  cron/output and the workspaces, ~/.ssh and the others of agent/sandbox/policy.py).
- `append` opens every component from `/` without following any link (safefs,
  RESOLVE_NO_SYMLINKS), the file itself with O_NOFOLLOW, and writes only to a regular
  file with one name (a hard link to ~/.ssh/authorized_keys is refused too). A sandboxed
  command that later swaps the file or a folder on its way for a link makes the delivery
  fail, recorded, with the answer kept in the run history.
- `problem` repeats the checks that need no roots before each run, so a job stored
  before these rules (`file:~/.bashrc`, `file:$HERMES_HOME/.env`) is skipped.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import safefs
from agent.errors import ConfigError
from agent.sandbox.gitconfig import LEFTHOOK_FILES
from agent.sandbox.policy import HOME_SECRETS, inside, inside_any
from memory.tenants import tenant_name

HINT = ("deliver into your workspace (e.g. file:reports/daily.md), a folder listed in "
        "`sandbox.writable`, or use origin")


def output_dir(hermes_home: Path) -> Path:
    """Where `origin` writes a terminal's answers: HERMES_HOME/cron/output."""
    return hermes_home / "cron" / "output"


def _real(path: Path) -> Path:
    """`path` with every link resolved, for the part of it that exists."""
    missing: list[str] = []
    here = path
    while not here.exists() and here != here.parent:
        missing.append(here.name)
        here = here.parent
    return Path(os.path.realpath(here), *reversed(missing))


def _secret(path: str, hermes_home: Path) -> bool:
    home = os.environ.get("HOME") or os.path.expanduser("~")
    secrets = [os.path.realpath(os.path.join(home, s)) for s in HOME_SECRETS]
    herm = os.path.realpath(hermes_home)
    open_parts = (output_dir(hermes_home), hermes_home / "workspaces")  # the tools' own
    if inside(path, herm) and not any(inside(path, os.path.realpath(p)) for p in open_parts):
        return True
    return inside_any(path, tuple(secrets))


def _runs_later(path: str) -> str | None:
    """Why appending to `path` could make something run a program later (None: nothing
    known): a lefthook config, or a file inside a git directory (a bare `evil.git/config`,
    its hooks) - the dated header is a comment there, the answer below it config."""
    if os.path.basename(path) in LEFTHOOK_FILES:  # not dotted: the dot rule misses them
        return f"file:{path} is a git hook manager's config (git commit runs what it names)"
    folder = os.path.dirname(path)
    while folder != os.path.dirname(folder):
        if os.path.isfile(os.path.join(folder, "HEAD")) and (
                os.path.isdir(os.path.join(folder, "objects"))
                or os.path.exists(os.path.join(folder, "commondir"))):
            return f"file:{path} is inside the git directory {folder} (its config and hooks run programs)"
        folder = os.path.dirname(folder)
    return None


def place(raw: str, *, cwd: Path, roots: Iterable[Path], hermes_home: Path) -> str:
    """The absolute, link-free path `file:RAW` names (ConfigError: why it is refused)."""
    if not raw.strip():
        raise ConfigError("file: names no file", HINT)
    given = Path(raw.strip()).expanduser()
    path = _real(given if given.is_absolute() else cwd / given)
    text = str(path)
    if _secret(text, hermes_home):
        raise ConfigError(f"file:{raw} is in a secret location (credentials, or hermes' own "
                          "files); a job never writes there", HINT)
    real_roots = [Path(os.path.realpath(r)) for r in roots]
    root = next((r for r in real_roots if inside(text, str(r)) and path != r), None)
    if root is None:
        shown = ", ".join(str(r) for r in real_roots)
        raise ConfigError(f"file:{raw} ({path}) is outside the folders this job may write "
                          f"({shown})", HINT)
    dotted = [part for part in path.relative_to(root).parts if part.startswith(".")]
    if dotted:
        raise ConfigError(f"file:{raw} goes through {dotted[0]!r}: a job never writes a "
                          "dot file or into a dot folder (what programs run or read later)", HINT)
    if path.is_dir():
        raise ConfigError(f"file:{raw} is a directory", "name a file inside it")
    why = _runs_later(text)
    if why is not None:
        raise ConfigError(why, HINT)
    return text


def problem(path: str, hermes_home: Path, owner: str | None = None) -> str | None:
    """Why a stored file target is refused now (None: it may be written); a tenant's
    (`owner`) must lie in its own workspace."""
    if not path or not os.path.isabs(path):
        return f"file:{path} is not an absolute path"
    if owner is not None:
        own = os.path.realpath(hermes_home / "workspaces" / tenant_name(owner))
        if not inside(os.path.normpath(path), own):
            return f"file:{path} is outside its owner's workspace; a tenant's job writes only there"
    if _secret(os.path.realpath(path), hermes_home) or _secret(os.path.normpath(path), hermes_home):
        return f"file:{path} is in a secret location; a job never writes there"
    if Path(path).name.startswith("."):
        return f"file:{path} is a dot file; a job never writes one"
    return _runs_later(os.path.normpath(path))


def append(path: str, text: str, job: str, tz: str, when: float) -> None:
    """A dated Markdown section at the end of `path` (0600; its folders 0700), written
    with no link followed and only into a regular file of one name (OSError otherwise)."""
    stamp = datetime.fromtimestamp(when, UTC).astimezone(ZoneInfo(tz)).strftime("%Y-%m-%d %H:%M %Z")
    parent, name = os.path.split(os.path.normpath(path))
    if not os.path.isabs(path) or not name:
        raise OSError(errno.EINVAL, "not an absolute file path", path)
    pfd = safefs.open_dir("/", parent, create=True, links=False, mode=0o700)
    try:
        fd = os.open(name, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK
                     | os.O_NOCTTY | os.O_CLOEXEC, 0o600, dir_fd=pfd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise safefs.Escape(path, "is a symbolic link (a job never writes through one)") from None
        raise
    finally:
        os.close(pfd)
    with os.fdopen(fd, "a", encoding="utf-8") as out:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file (a job writes only to one)", path)
        if info.st_nlink > 1:
            raise OSError(errno.EMLINK, "has other hard links (a job never writes through one)", path)
        os.set_blocking(fd, True)
        out.write(f"## {stamp} - {job}\n\n{text.rstrip()}\n\n")
