"""The workspace cannot arm a later run: what a command plants to run outside the sandbox
is put back after it, and reported. The second line of defence: inside the sandbox the
arming files that already exist are read-only mounts (agent/sandbox/protect.py), so a
command cannot change or replace them; this guard handles what a command creates.

Some files in a project run programs later, outside the sandbox, when a person (or
hermes itself) uses the project: git hooks and config (also a submodule's, a
`config.worktree`, a `commondir`, a `.git` that is a `gitdir:` file or a link, and any
other git directory beneath the writable roots - bare, separate, nested: gitdirs.py),
direnv's `.envrc` and the files it loads (direnv.py), pre-commit's config, husky's and
lefthook's hooks, VS Code tasks and settings, hermes' own `.hermes/`, Claude Code's
`.claude/`, MCP server lists in `.mcp.json`. The rule for what belongs in the list is in
docs/SANDBOX.md ("What belongs in the arming list"). The list is closed (`ARMING`);
`sandbox.allow_arming` names entries a user lets through (`.envrc` lets what it loads
through too).

The rule: the guard only ever restores what it saw before. A terminal call takes a
`Snapshot` before the command (`Snapshot.take`): the arming entries of the workspace and
of the command's working directory (and the `.git` of each directory directly inside
them: a fresh `git clone`), and the executable parts of every git directory a walk of
the writable roots finds (before and after the command). After it, `revert` looks at exactly those places again:
- an entry that was absent and now exists was made by the command: removed (a file or
  link; a directory arms nothing by itself, its files are judged one by one);
- an entry that changed gets its previous bytes, mode or link target back (deleted ones
  stay deleted: a deletion arms nothing); in a git config only the keys that run
  programs (agent/sandbox/gitconfig.py) that the command added are removed, so
  `git init`, `git clone` and `git remote add` keep working.
The directory a command ended in (`cd deep/dir && git init`) was not snapshotted: there
the guard acts only on entries whose inode changed during the command (ctime, which no
program can set back), and it never deletes one: it renames it aside
(`NAME.disarmed-by-hermes`, which nothing runs) and keeps a changed git config's old text.

Never touched, whatever the command did: anything outside the writable roots, and
hermes' home (HERMES_HOME and every hidden location; a gateway tenant's workspace inside
it excepted) or any directory holding it - `cd ~ && ls` once made the guard delete
~/.hermes as "planted". Every change goes through safefs with no link followed, so it
cannot be redirected either.
"""

from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import safefs
from agent.sandbox import direnv, gitdirs, incidents
from agent.sandbox.gitconfig import LEFTHOOK_FILES, git_config_entries
from agent.sandbox.policy import inside, inside_any
from agent.sandbox.putback import Seen, disarm, put_back, relink, set_aside

if TYPE_CHECKING:
    from agent.sandbox.backend import Sandbox
    from agent.sandbox.policy import Policy

__all__ = ["ARMING", "Snapshot", "Watch", "git_config_entries", "guarded"]

ARMING_FILES = (".envrc", ".vscode/tasks.json", ".vscode/settings.json", ".mcp.json",
                ".pre-commit-config.yaml", *LEFTHOOK_FILES,
                ".git/config", ".git/config.worktree", ".git/commondir", ".git")
ARMING_DIRS = (".git/hooks", ".git/modules", ".hermes", ".claude", ".husky")
ARMING = ARMING_FILES + ARMING_DIRS
MAX_KEPT = 1_000_000  # bytes of one file kept to put back
GIT_FILES = ("config", "config.worktree", "commondir")
CLOCK_REALTIME_COARSE = 5  # Linux; what inode times are taken from
_TOP = (".git", ".envrc", ".mcp.json", ".vscode", ".hermes", ".claude", ".husky",
        ".pre-commit-config.yaml", *LEFTHOOK_FILES)
_SKIP = frozenset({"objects", "refs", "logs", "lfs", "info"})  # git's bulk, never executable


@dataclass(frozen=True)
class Fence:
    """Where the guard may act: beneath a writable root, not in or above a hidden
    location (HERMES_HOME...) unless inside one shown through (a tenant's workspace)."""

    writable: tuple[str, ...]
    never: tuple[str, ...]
    exposed: tuple[str, ...] = ()

    @classmethod
    def of(cls, workspace: str, policy: Policy | None) -> Fence:
        home = os.environ.get("HERMES_HOME") or os.path.expanduser("~/.hermes")
        never = (os.path.realpath(home),) + (policy.hidden if policy else ())
        writable = policy.writable if policy else (workspace,)
        return cls(writable, never, policy.exposed if policy else ())

    def near(self) -> frozenset[str]:
        """The paths `ok` may refuse beneath an admitted folder: the locations it never
        acts on and every folder holding one (agent/sandbox/gitdirs.py walks with it)."""
        out: set[str] = set()
        for path in (*self.never, *self.exposed):
            while path not in ("/", "") and path not in out:
                out.add(path)
                path = os.path.dirname(path)
        return frozenset(out)

    def ok(self, path: str) -> bool:
        if not inside_any(path, self.writable):
            return False
        if inside_any(path, self.exposed):
            return not any(inside(n, path) for n in self.never if not inside_any(n, self.exposed))
        return not inside_any(path, self.never) and not any(inside(n, path) for n in self.never)


@dataclass
class Snapshot:
    """The arming entries under some directories before a command (module docstring)."""

    bases: list[tuple[str, bool]]
    fence: Fence
    tops: list[str] = field(default_factory=list)
    allow: frozenset[str] = frozenset()
    files: dict[str, Seen] = field(default_factory=dict)
    start_ns: int = 0
    elsewhere: list[str] = field(default_factory=list)  # other git directories (gitdirs.py)

    @classmethod
    def take(cls, workspace: str, cwd: str, allow: frozenset[str] = frozenset(),
             policy: Policy | None = None) -> Snapshot:
        workspace = os.path.realpath(workspace)
        fence = Fence.of(workspace, policy)
        tops = [workspace, os.path.realpath(cwd)]
        snap = cls(_bases(tops, fence), fence, tops, allow)
        snap.start_ns = time.clock_gettime_ns(CLOCK_REALTIME_COARSE)  # the file systems' clock
        snap.elsewhere = gitdirs.find(fence.writable, fence.ok, near=fence.near())
        snap.files = _scan(snap.bases, allow, fence, snap.elsewhere)
        return snap

    def revert(self, cwd_after: str | None = None, later: bool = False) -> list[str]:
        """Put back what changed since `take`; one line per entry acted on. `later`: the
        change was made after a command returned, by a process it left running, so it may
        be the user's own edit made meanwhile - set aside (`set_aside`), never lost."""
        how = set_aside if later else put_back
        lines: list[str] = []
        # a directory made inside a snapshotted one (`git clone`): seen absent, so all new
        self.bases += [b for b in _bases(self.tops, self.fence) if b not in self.bases]
        found = gitdirs.find(self.fence.writable, self.fence.ok, near=self.fence.near())
        now = _scan(self.bases, self.allow, self.fence,
                    [*self.elsewhere, *[g for g in found if g not in self.elsewhere]])
        for path in sorted(set(now) | set(self.files)):
            old, seen = self.files.get(path), now.get(path)
            if seen is None or (old is not None and _same(old, seen)):
                continue  # gone (a deletion arms nothing), untouched, or put back already
            if old is None and self._git_link(path, seen):
                continue  # `git worktree add`, `git submodule add`: into a watched .git
            lines += _act(path, old, seen, how)
            if old is not None and stat.S_ISDIR(old.sig[0]) and not stat.S_ISDIR(seen.sig[0]):
                lines += self._rebuild(path)
        if cwd_after:
            known = {base for base, _ in self.bases}
            extra = [b for b in _bases([os.path.realpath(cwd_after)], self.fence) if b[0] not in known]
            for path, seen in sorted(_scan(extra, self.allow, self.fence).items()):
                if seen.ctime >= self.start_ns:
                    lines += _act(path, None, seen, disarm)
        return [line for line in lines if line]

    def _git_link(self, path: str, seen: Seen) -> bool:
        """A new `.git` file (`gitdir: X`) pointing into a `.git` directory this guard
        watches (whose config and hooks it judges): git made it, it arms nothing."""
        if not path.endswith("/.git") or not stat.S_ISREG(seen.sig[0]) or not seen.data:
            return False
        text = seen.data.decode("utf-8", "replace").strip()
        if not text.startswith("gitdir:"):
            return False
        target = os.path.realpath(os.path.join(os.path.dirname(path), text[7:].strip()))
        watched = [os.path.join(base, ".git") for base, _ in self.bases]
        return any(inside(target, w) and target != w and w != path and w in self.files
                   and stat.S_ISDIR(self.files[w].sig[0]) for w in watched)

    def _rebuild(self, folder: str) -> list[str]:
        """A snapshotted directory the command replaced (by a link, say): made again with
        the bytes, modes and links it held ("put back" is the previous bytes). A `.git`
        is not: its objects were never kept (it is a mount point inside the sandbox)."""
        if folder.endswith("/.git") or os.path.lexists(folder):
            return []
        try:
            for path in sorted(p for p in self.files if inside(p, folder)):
                seen = self.files[path]
                if stat.S_ISDIR(seen.sig[0]):
                    os.mkdir(path, stat.S_IMODE(seen.sig[0]))
                elif stat.S_ISLNK(seen.sig[0]) and seen.data is not None:
                    relink(path, seen.data)
                elif seen.data is not None:
                    safefs.write_atomic("/", path, seen.data, links=False,
                                        mode=stat.S_IMODE(seen.sig[0]))
        except OSError as exc:
            return [f"{folder}: could not be made again ({exc.strerror or exc}) - check it"]
        return [f"{folder}: made again as it was before the command"]


def _same(old: Seen, now: Seen) -> bool:
    return old.sig == now.sig or (
        old.data is not None and old.data == now.data and old.sig[0] == now.sig[0])


def _act(path: str, old: Seen | None, now: Seen, how: object) -> list[str]:
    try:
        return [how(path, old, now)]  # type: ignore[operator]
    except OSError as exc:
        return [f"{path}: could not be put back ({exc.strerror or exc}) - check it"]


def _bases(tops: list[str], fence: Fence) -> list[tuple[str, bool]]:
    """(directory, full): the given directories get every entry checked; the directories
    directly inside them only `.git` (a fresh clone) - one lstat each. Only those the
    guard may act on (`Fence`)."""
    found: dict[str, bool] = {}
    for top in tops:
        if not inside_any(top, fence.writable):
            continue  # `cd ~`: nothing there the command could have written
        found[top] = True
        try:
            with os.scandir(top) as listing:
                for entry in listing:
                    if entry.is_dir(follow_symlinks=False) and not entry.name.startswith("."):
                        found.setdefault(entry.path, False)
        except OSError:
            continue
    return list(found.items())


def _scan(bases: list[tuple[str, bool]], allow: frozenset[str], fence: Fence,
          elsewhere: list[str] | None = None) -> dict[str, Seen]:
    out: dict[str, Seen] = {}
    always = ".envrc" not in allow and direnv.loads_dotenv_always()
    for base, full in bases:
        if full and ".envrc" not in allow:  # what direnv loads besides .envrc (`dotenv`)
            for rel in direnv.loaded_names(base, always):
                if fence.ok(os.path.join(base, rel)):
                    _note(os.path.join(base, rel), out)
        for top in _TOP if full else (".git",):
            path = os.path.join(base, top)
            if top in allow or not fence.ok(path) or not _note(path, out, keep=top == ".git"):
                continue  # most are absent: one lstat and done
            if not stat.S_ISDIR(out[path].sig[0]):
                continue  # a file or a link: judged as such, never followed
            if top == ".git":
                _scan_git(path, allow, out, depth=0)
            elif top == ".vscode":
                for name in ("tasks.json", "settings.json"):
                    if f".vscode/{name}" not in allow:
                        _note(os.path.join(path, name), out)
            else:
                _walk(path, out)
    if elsewhere and ".git" not in allow:
        _scan_elsewhere(bases, allow, elsewhere, out)
    return out


def _scan_elsewhere(bases: list[tuple[str, bool]], allow: frozenset[str], elsewhere: list[str],
                    out: dict[str, Seen]) -> None:
    """Every other repository a command could have made or changed (agent/sandbox/gitdirs.py)."""
    done = {os.path.join(b, ".git") for b, _ in bases}  # both found without following a link
    for gitdir in elsewhere:
        if gitdir not in done and os.path.isdir(gitdir):
            _scan_git(gitdir, allow, out, depth=0)


def _scan_git(gitdir: str, allow: frozenset[str], out: dict[str, Seen], depth: int) -> None:
    """A git directory's executable parts: config, config.worktree, commondir, hooks/,
    and the same for each submodule's (modules/) and linked worktree's (worktrees/)."""
    for name in GIT_FILES:
        if f".git/{name}" not in allow:
            _note(os.path.join(gitdir, name), out)
    if ".git/hooks" not in allow and _note(os.path.join(gitdir, "hooks"), out, keep=False):
        _walk(os.path.join(gitdir, "hooks"), out)
    if depth > 3 or ".git/modules" in allow:
        return
    for group in ("modules", "worktrees"):
        for where, dirs, names in os.walk(os.path.join(gitdir, group)):
            dirs[:] = [d for d in dirs if d not in _SKIP and d != "hooks"]
            if "HEAD" in names or "config" in names or "commondir" in names:
                dirs[:] = [d for d in dirs if d == "modules"]
                _scan_git(where, allow, out, depth + 1)


def _walk(folder: str, out: dict[str, Seen]) -> None:
    for where, dirs, names in os.walk(folder):  # never follows a link
        for name in dirs + names:
            if not name.endswith(".sample"):  # git's inert examples
                _note(os.path.join(where, name), out)


def _note(path: str, out: dict[str, Seen], keep: bool = True) -> bool:
    try:
        info = os.lstat(path)
    except OSError:
        return False
    data = None
    if stat.S_ISLNK(info.st_mode):
        try:
            data = os.readlink(path).encode("utf-8", "surrogateescape")
        except OSError:
            data = None
    elif stat.S_ISREG(info.st_mode) and info.st_size <= MAX_KEPT:
        try:
            data = safefs.read_bytes("/", path, links=False)
        except OSError:
            data = None
    out[path] = Seen((info.st_mode, info.st_size, info.st_mtime_ns, info.st_ino),
                      info.st_ctime_ns, data)
    return True


def guarded(workspace: str, path: str) -> str | None:
    """The arming entry `path` falls under when it is in the workspace (or a directory
    directly inside it), else None: the file tools refuse to write those too."""
    rel = os.path.relpath(path, workspace)
    if rel.startswith(".."):
        return None
    parts = Path(rel).parts
    if len(parts) <= 2 and os.path.basename(path) in direnv.loaded_names(
            os.path.dirname(path), direnv.loads_dotenv_always()):
        return ".envrc"  # a file direnv loads with it (`dotenv`)
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

    def __init__(self, box: Sandbox, cwd: Path | str, home: Path | None = None) -> None:
        self.snap: Snapshot | None = None
        self.home = home  # HERMES_HOME: what cannot be undone is recorded there
        if box.enabled:
            allow = frozenset(box.policy.allow_arming)
            self.snap = Snapshot.take(box.policy.workspace, str(cwd), allow, box.policy)

    def done(self, cwd_after: str | None) -> str:
        if self.snap is None:
            return ""
        lines = self.snap.revert(cwd_after)
        if not lines:
            return ""
        stuck = [line for line in lines if line.endswith("check it")]
        if stuck and self.home is not None:  # the project is untrusted until the user confirms
            incidents.record(self.home, self.snap.tops[0], stuck)
        shown = "\n".join(f"  {line}" for line in lines)
        return ("[hermes put back files this command planted that would run programs later, "
                f"outside the sandbox (git hooks and config, .envrc and what it loads, "
                f"pre-commit and husky hooks, editor tasks, .hermes/, .mcp.json):\n{shown}\nAsk the user to make such changes themselves.]\n")
