"""What a terminal command changed in the workspace, so /diff shows it and /undo puts it back.

The write tools checkpoint the one file they write (agent/checkpoints.py). A shell command
may touch any file, so the workspace is indexed instead:

- the session's first command walks the workspace (`lstat` of every regular file, the
  directories in `SKIP_DIRS` left out) and keeps each file's bytes in the checkpoint
  store's content-addressed blobs (an unchanged file is stored once, ever);
- around every command: a stat walk before (a file someone else changed since is read
  again, so "before" is what the command found) and one after; each file whose stat
  changed is compared by content, and every created, changed or deleted file (and every
  directory the command made) is recorded on the turn's checkpoint exactly like a write
  tool's change, with the bytes it had before.

What is not followed, and said so by /undo and in the docs: files outside the workspace,
the directories in `SKIP_DIRS`, symbolic links, secret locations the sandbox hides, what a
background process changes after its command returned, and files over `MAX_KEEP` bytes
(recorded as changed, not restorable). A workspace of more than `MAX_FILES` files is not
indexed at all (one notice); the write tools' checkpoints still work there.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import safefs
from agent.checkpoints import UNKEPT, CheckpointStore
from agent.prompts import authored_context
from agent.sandbox.backend import Sandbox, sandbox_for
from agent.sandbox.policy import Policy

if TYPE_CHECKING:
    from agent.tools.registry import ToolContext

SKIP_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache",
                       ".pytest_cache", ".ruff_cache", ".tox", ".hg", ".svn"})
MAX_FILES = 20_000  # a larger workspace is not indexed (the walk would slow every command)
MAX_KEEP = 5 * 1024 * 1024  # bytes of one file kept to put back

Sig = tuple[int, int, int, int]  # mode, size, mtime_ns, inode


@dataclass
class Index:
    """The workspace as the last command left it: per file its stat and kept bytes' blob
    (UNKEPT: too large to keep), and the directories."""

    root: str
    files: dict[str, tuple[Sig, str]] = field(default_factory=dict)
    dirs: set[str] = field(default_factory=set)
    off: str = ""  # why the workspace is not indexed ("" = it is)
    links: dict[str, str] = field(default_factory=dict)  # context-file links -> their targets


@dataclass(frozen=True)
class Hiding:
    """The locations the sandbox hides from tools, as a walk asks about them: `clear`
    (nothing beneath this real folder is hidden, so its entries need no question) spares
    the per-entry `hides` (two realpaths each: ~12x the walk's own cost) almost everywhere."""

    policy: Policy

    def hides(self, path: str) -> bool:
        return self.policy.is_hidden(path)

    def clear(self, folder: str) -> bool:
        return self.policy.clear_beneath(folder)


Hidden = Hiding | None  # None: nothing hidden


Walked = tuple[dict[str, Sig], set[str], dict[str, str]]


def _walk(root: str, hidden: Hidden) -> Walked | None:
    """(file -> stat, directories, context-file link -> target) under `root`; None past
    MAX_FILES."""
    files: dict[str, Sig] = {}
    dirs: set[str] = set()
    links: dict[str, str] = {}
    stack = [(root, hidden is None or hidden.clear(os.path.realpath(root)))]
    while stack:
        folder, clear = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            link = stat.S_ISLNK(info.st_mode)  # its real path may be anywhere: always asked
            if hidden is not None and (link or not clear) and hidden.hides(entry.path):
                continue
            if stat.S_ISDIR(info.st_mode):
                if entry.name not in SKIP_DIRS:
                    dirs.add(entry.path)
                    stack.append((entry.path, clear or hidden is None or hidden.clear(entry.path)))
            elif stat.S_ISREG(info.st_mode):
                files[entry.path] = (info.st_mode, info.st_size, info.st_mtime_ns, info.st_ino)
                if len(files) > MAX_FILES:
                    return None
            elif stat.S_ISLNK(info.st_mode) and authored_context.is_context_name(entry.name):
                try:
                    links[entry.path] = os.readlink(entry.path)
                except OSError:
                    continue
    return files, dirs, links


def _keep(store: CheckpointStore, path: str, sig: Sig) -> str:
    """The blob of `path`'s bytes (UNKEPT when too large, gone or unreadable)."""
    if sig[1] > MAX_KEEP:
        return UNKEPT
    try:
        data = safefs.read_bytes("/", path, links=False)
    except (OSError, safefs.Escape, safefs.NotRegular):
        return UNKEPT
    return store.keep(data)


@dataclass
class Watch:
    """One command's watch: `begin` before it runs, `done` after (see module docstring)."""

    index: Index
    store: CheckpointStore
    hidden: Hidden
    before: dict[str, tuple[Sig, str]] = field(default_factory=dict)
    before_dirs: set[str] = field(default_factory=set)
    home: Path | None = None  # HERMES_HOME: context files a command wrote are recorded there
    session: str = ""
    written: frozenset[str] = frozenset()  # real paths of context files hermes wrote (`done`)

    @classmethod
    def begin(cls, ctx: ToolContext) -> Watch | None:
        """Bring the index up to date (None: not followed here; see `notice`)."""
        store = getattr(ctx.services, "checkpoints", None)
        root = os.path.realpath(ctx.cwd)
        if store is None:
            return None  # no agent session (a preview, a bare tool context): nothing is kept
        if store.broken:
            authored_context.unfollowed(Path(ctx.home), root, ctx.session_id)
            return None
        index = ctx.state.workspace_index
        if index is None or index.root != root:
            index = ctx.state.workspace_index = Index(root)
        if index.off:
            authored_context.unfollowed(Path(ctx.home), root, ctx.session_id)
            return None
        hidden = hidden_check(sandbox_for(ctx))
        walked = _walk(root, hidden)
        if walked is None:
            index.off = (f"the workspace has more than {MAX_FILES:,} files: /undo and /diff "
                         "do not follow what terminal commands change in it")
            authored_context.unfollowed(Path(ctx.home), root, ctx.session_id)
            return None
        files, dirs, links = walked
        fresh: dict[str, tuple[Sig, str]] = {}
        for path, sig in files.items():
            known = index.files.get(path)
            fresh[path] = (known if known is not None and known[0] == sig
                           else (sig, _keep(store, path, sig)))
        index.files, index.dirs, index.links = fresh, dirs, links
        return cls(index, store, hidden, dict(fresh), set(dirs), Path(ctx.home), ctx.session_id)

    def done(self) -> None:
        """Record what the command changed on the turn's checkpoint; update the index."""
        walked = _walk(self.index.root, self.hidden)
        if walked is None:
            self.index.off = (f"the workspace grew past {MAX_FILES:,} files: /undo and /diff "
                              "no longer follow what terminal commands change in it")
            if self.home is not None:
                authored_context.unfollowed(self.home, self.index.root, self.session)
            return
        files, dirs, links = walked
        changed: set[str] = set()
        self.written = authored_context.written(self.home) if self.home is not None else frozenset()
        after: dict[str, tuple[Sig, str]] = {}
        for folder in sorted(dirs - self.before_dirs):  # outermost first
            self.store.made_dir(folder)
        for path, sig in files.items():
            old = self.before.get(path)
            if old is not None and old[0] == sig:
                after[path] = old
                continue
            kept = _keep(self.store, path, sig)
            after[path] = (sig, kept)
            if old is None or kept == UNKEPT or old[1] != kept:
                self.store.record_change(path, None if old is None else old[1], kept)
                self._authored(path, None if old is None else old[1], kept)
                changed.add(os.path.realpath(path))
        for path in self.before.keys() - files.keys():
            self.store.record_change(path, self.before[path][1], None)
        self._authored_links(links, changed)
        self.index.files, self.index.dirs, self.index.links = after, dirs, links

    def _authored_links(self, links: dict[str, str], changed: set[str]) -> None:
        """A context-file link the command made or re-pointed (`ln -s notes.md
        AGENTS.md`), or one whose target it changed: what the link reads now is the
        agent's (recorded under the target's real path)."""
        if self.home is None:
            return
        for link, target in links.items():
            if self.index.links.get(link) == target and os.path.realpath(link) not in changed:
                continue
            try:
                data = safefs.read_bytes("/", link)
            except (OSError, ValueError, safefs.Escape, safefs.NotRegular):
                continue  # a dangling link, or one out of reach: nothing loads from it
            authored_context.record(self.home, link, None, data, self.session)


    def _authored(self, path: str, before: str | None, after: str) -> None:
        """A context file the command wrote (AGENTS.md...): not loaded by a later session
        until the user approves it (agent/prompts/authored_context.py)."""
        if self.home is None or after == UNKEPT or not (
                authored_context.is_context_name(path) or os.path.realpath(path) in self.written):
            return
        blobs = self.store.root / "blobs"
        old = None if before is None or before == UNKEPT else (blobs / before).read_bytes()
        authored_context.record(self.home, path, old, (blobs / after).read_bytes(), self.session)


def hidden_check(box: Sandbox) -> Hidden:
    """The locations the sandbox hides, for a walk (None: nothing hidden)."""
    return Hiding(box.policy) if box.enabled else None
