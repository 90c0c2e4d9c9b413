"""Safe edits: every file the agent writes is checkpointed before the change.

A `CheckpointStore` keeps, per session lineage (`key`: the id of the session a
compression lineage started from), a stack of turns and the files each turn changed:
the bytes before the first change of the turn (content-addressed copies under
HERMES_HOME/checkpoints/blobs/<sha256>) and the hash after the last one. The manifest is
SQLite (HERMES_HOME/checkpoints/manifest.db). No git: the user's repository, index and
stash are never touched.

`/undo` pops the latest turn (`undo`): each file goes back to its bytes before the turn
(a file the turn created is deleted) - refused, nothing changed, when a file was edited
since the agent wrote it, unless forced. `/diff` (`session_diff`) is the unified diff of
each file from before the session's first change to what is on disk now.

Tools reach it as `ctx.services.checkpoints` through `checkpointed(ctx, path)`.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import safefs
from agent.errors import HermesError
from agent.sandbox.file_policy import hidden

SCHEMA = """
CREATE TABLE IF NOT EXISTS turns (id INTEGER PRIMARY KEY, key TEXT NOT NULL,
    created REAL NOT NULL, undone INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS files (id INTEGER PRIMARY KEY, turn INTEGER NOT NULL,
    path TEXT NOT NULL, before TEXT, after TEXT, UNIQUE (turn, path));
CREATE INDEX IF NOT EXISTS turns_key ON turns (key);
"""
MAX_DIFF_BYTES = 1_000_000  # a larger (or binary) file is listed, not diffed
UNKEPT = "-"  # a `before`/`after` of a file a terminal command changed whose bytes were not kept


class UndoRefused(HermesError):
    """A file of the turn was changed after the agent wrote it: nothing was undone."""


@dataclass(frozen=True)
class Restored:
    """What undoing one turn did to the files: restored, deleted (created by the turn)."""

    restored: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    unkept: tuple[str, ...] = ()  # changed by a terminal command, too large to have been kept

    def summary(self) -> str:
        parts = []
        if self.restored:
            parts.append("restored " + ", ".join(self.restored))
        if self.deleted:
            parts.append("deleted " + ", ".join(self.deleted) + " (created in that turn)")
        if self.unkept:
            parts.append("NOT restored " + ", ".join(self.unkept) + " (changed by a command; "
                         "too large to keep a copy)")
        return "; ".join(parts)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _hash_of(path: Path) -> str | None:
    data = _read(path)
    return None if data is None else _digest(data)


def _read(path: Path) -> bytes | None:
    """The bytes at real path `path`, read with no symbolic link followed (a link that
    appeared in it since reads as missing), None when absent or not a regular file."""
    try:
        return safefs.read_bytes("/", str(path), links=False)
    except (FileNotFoundError, NotADirectoryError, safefs.Escape, safefs.NotRegular):
        return None


@dataclass
class CheckpointStore:
    """One session lineage's checkpoints (see module docstring). `turn` is the current
    turn's row id (begun by the agent; a write outside a turn begins one). Thread-safe
    enough for its use: writes never run in parallel, and SQLite serialises the rest."""

    root: Path
    key: str
    turn: int | None = None
    broken: str = ""  # why the store cannot be written (checkpoints are then off)
    _conn: sqlite3.Connection | None = field(default=None, repr=False)

    @classmethod
    def under(cls, home: Path, key: str) -> CheckpointStore:
        return cls(home / "checkpoints", key)

    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            (self.root / "blobs").mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.root / "manifest.db", check_same_thread=False,
                                   isolation_level=None)
            # WAL + NORMAL, as state.db: a turn's row costs no fsync (it is written every
            # turn); a killed process still loses nothing, a power cut at most the last rows
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.executescript(SCHEMA)
            self._conn = conn
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def begin_turn(self) -> str:
        """A new turn (one per user message, written or not, so /undo pops the turn of
        the message it drops); later writes belong to it. Returns a warning the first
        time the store cannot be written ("" otherwise)."""
        if self.broken:
            return ""
        try:
            cur = self._db().execute("INSERT INTO turns (key, created) VALUES (?, ?)",
                                     (self.key, time.time()))
        except (sqlite3.Error, OSError) as exc:
            self.broken = str(exc) or type(exc).__name__
            return (f"File checkpoints are off ({self.root}: {self.broken}): /undo will not "
                    "restore files this session changes.")
        self.turn = int(cur.lastrowid or 0)
        return ""

    def _turn_id(self) -> int:
        if self.turn is None:
            self.begin_turn()
        return self.turn or 0

    def keep(self, data: bytes) -> str:
        """Keep `data` (content-addressed); returns its blob name."""
        return self._blob(data)

    def record_change(self, path: str, before: str | None, after: str | None) -> None:
        """A change made by something other than a write tool (a terminal command): the
        blob of the bytes `before` (None: the file did not exist), and `after` (None:
        deleted). The turn's first record of a path keeps its `before`."""
        turn = self._turn_id()
        db = self._db()
        if db.execute("SELECT 1 FROM files WHERE turn = ? AND path = ?", (turn, path)).fetchone() is None:
            db.execute("INSERT INTO files (turn, path, before) VALUES (?, ?, ?)", (turn, path, before))
        db.execute("UPDATE files SET after = ? WHERE turn = ? AND path = ?", (after, turn, path))

    def made_dir(self, folder: str) -> None:
        """A directory the turn created (/undo removes it when it is empty again)."""
        turn = self._turn_id()
        self._db().execute("INSERT OR IGNORE INTO files (turn, path, before) VALUES (?, ?, ?)",
                           (turn, folder + DIR_MARK, None))

    def _blob(self, data: bytes) -> str:
        digest = _digest(data)
        target = self.root / "blobs" / digest
        if not target.exists():
            tmp = target.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(data)
            tmp.replace(target)
        return digest

    def before(self, path: Path) -> None:
        """Save `path`'s bytes before the turn's first change to it."""
        turn = self._turn_id()
        name = str(path.resolve())
        path = Path(name)
        row = self._db().execute("SELECT 1 FROM files WHERE turn = ? AND path = ?",
                                 (turn, name)).fetchone()
        if row is None:
            data = _read(path)
            saved = None if data is None else self._blob(data)
            if data is None:  # the write will make the missing directories: /undo removes them
                for folder in _missing_parents(path):
                    self._db().execute("INSERT INTO files (turn, path, before) VALUES (?, ?, ?)",
                                       (turn, folder + DIR_MARK, None))
            self._db().execute("INSERT INTO files (turn, path, before) VALUES (?, ?, ?)",
                               (turn, name, saved))

    def after(self, path: Path) -> None:
        """Record what the change left (to tell a later edit by someone else)."""
        name = str(path.resolve())
        self._db().execute("UPDATE files SET after = ? WHERE turn = ? AND path = ?",
                           (_hash_of(Path(name)), self._turn_id(), name))

    # ---- turn-level views ------------------------------------------------------------
    def _turns(self) -> list[int]:
        rows = self._db().execute("SELECT id FROM turns WHERE key = ? AND undone = 0 ORDER BY id",
                                  (self.key,)).fetchall()
        return [r[0] for r in rows]

    def _rows(self, turn: int) -> list[tuple[str, str | None, str | None]]:
        return self._db().execute("SELECT path, before, after FROM files WHERE turn = ? "
                                  "ORDER BY id", (turn,)).fetchall()

    def _files(self, turn: int) -> list[tuple[str, str | None, str | None]]:
        return [row for row in self._rows(turn) if not row[0].endswith(DIR_MARK)]

    def _made_dirs(self, turn: int) -> list[str]:
        """The directories the turn's writes created, deepest first."""
        return [row[0][:-len(DIR_MARK)] for row in reversed(self._rows(turn))
                if row[0].endswith(DIR_MARK)]

    def undo(self, *, force: bool = False, cwd: Path | None = None) -> Restored:
        """Put back the files the latest turn changed and pop it (see `undo_turn`)."""
        turns = self._turns()
        return self.undo_turn(turns[-1], force=force, cwd=cwd) if turns else Restored()

    def undo_turn(self, turn: int, *, force: bool = False, cwd: Path | None = None) -> Restored:
        """Restore the files of stored turn `turn` (see `undo`) and mark it undone."""
        files = self._files(turn)
        changed = [path for path, _before, after in files
                   if after != UNKEPT and _hash_of(Path(path)) != after]
        if changed and not force:
            shown = ", ".join(_shown(p, cwd) for p in changed)
            raise UndoRefused(f"not undone: {shown} changed after the agent wrote it",
                              "save your edits elsewhere, then `/undo --force` puts back the "
                              "version before that turn (your later edits are lost)")
        restored, deleted, unkept = [], [], []
        for path, before, _after in reversed(files):
            if before == UNKEPT:
                unkept.append(_shown(path, cwd))
                continue
            # the stored path is real: put back with no link followed (a directory swapped
            # for a link since then is refused, never written through)
            try:
                if before is None:
                    with contextlib.suppress(FileNotFoundError):
                        safefs.unlink("/", path, links=False)
                    deleted.append(_shown(path, cwd))
                else:
                    data = (self.root / "blobs" / before).read_bytes()
                    safefs.write_atomic("/", path, data, links=False)
                    restored.append(_shown(path, cwd))
            except safefs.Escape:
                raise UndoRefused(f"not undone past {_shown(path, cwd)}: a symbolic link now "
                                  "stands in its path", "remove the link, then /undo again") from None
        for folder in self._made_dirs(turn):  # only when empty: nothing of anyone else's
            with contextlib.suppress(OSError):
                os.rmdir(folder)  # a link standing in its place is not a directory: refused
        self._db().execute("UPDATE turns SET undone = 1 WHERE id = ?", (turn,))
        if self.turn == turn:
            self.turn = None
        return Restored(tuple(restored), tuple(deleted), tuple(unkept))

    def session_diff(self, cwd: Path | None = None) -> list[tuple[str, str]]:
        """(file, unified diff) of each file the session changed: from before its first
        change to what is on disk now; files back to their original bytes are left out."""
        first: dict[str, str | None] = {}
        for turn in self._turns():
            for path, before, _after in self._files(turn):
                first.setdefault(path, before)
        out = []
        for path, before in first.items():
            if before == UNKEPT:
                out.append((_shown(path, cwd), f"{_shown(path, cwd)} changed (a terminal command; "
                                               "too large to have kept its earlier bytes)\n"))
                continue
            old = b"" if before is None else (self.root / "blobs" / before).read_bytes()
            new = _read(Path(path))
            if new == old or (new is None and before is None):
                continue
            out.append((_shown(path, cwd), _unified(_shown(path, cwd), old, new, before is None)))
        return out


DIR_MARK = "/"  # a manifest row for a directory a write created (a file path never ends so)


def _missing_parents(path: Path) -> list[str]:
    """The ancestors of `path` that do not exist yet, outermost first."""
    missing = []
    for parent in path.parents:
        if parent.exists():
            break
        missing.append(str(parent))
    return missing[::-1]


def _shown(path: str, cwd: Path | None) -> str:
    if cwd is not None:
        try:
            return str(Path(path).relative_to(cwd.resolve()))
        except ValueError:
            pass
    return path


def _text(data: bytes | None) -> list[str] | None:
    if data is None:
        return []
    if len(data) > MAX_DIFF_BYTES or b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8").splitlines(keepends=True)
    except UnicodeDecodeError:
        return None


def _unified(name: str, old: bytes, new: bytes | None, created: bool) -> str:
    before, after = _text(old), _text(new)
    if before is None or after is None:
        return f"Binary or large file {name} changed\n"
    lines = difflib.unified_diff(before, after, fromfile="/dev/null" if created else f"a/{name}",
                                 tofile="/dev/null" if new is None else f"b/{name}", n=3)
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def for_session(home: Path, store: Any, session_id: str,
                current: CheckpointStore | None) -> CheckpointStore | None:
    """The checkpoint store of `session_id`'s lineage (`current` when it is that one
    already); `current` unchanged without a session store (a sub-agent shares its
    parent's, a preview has none)."""
    if store is None:
        return current
    lineage = store.lineage(session_id) if store.get_session(session_id) else []
    key = lineage[0]["id"] if lineage else session_id
    if current is not None and current.key == key:
        return current
    if current is not None:
        current.close()
    return CheckpointStore.under(home, key)


@contextmanager
def checkpointed(ctx: Any, path: Path, *, own: bool = False) -> Iterator[None]:
    """Around a tool's write of `path`: checkpoint before, record the result after
    (a no-op where the session has no checkpoint store). `own`: a file of hermes' own
    that the sandbox hides from tools but hermes writes for the model (a skill, under
    HERMES_HOME), checkpointed all the same so /undo puts it back."""
    store = getattr(ctx.services, "checkpoints", None)
    if store is None or store.broken or (not own and hidden(ctx, path)):  # (refused anyway)
        yield
        return
    store.before(path)
    try:
        yield
    finally:
        store.after(path)
