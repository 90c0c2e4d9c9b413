"""MEMORY.md (the agent's notes) and USER.md (the user profile): the operator's under
HERMES_HOME/memories, a gateway tenant's under HERMES_HOME/tenants/<name>/memories
(`Notes.for_owner`, memory/tenants.py) - a tenant never reads the operator's or another
tenant's notes.

A file is a list of entries joined by a line holding only `§`. Reads go to disk every
time; the caller takes one `snapshot()` at session start and freezes it into the system
prompt (docs/CACHING.md section 2, invariant 4) - writes made during a session land on disk only.

Writes re-read the file under an exclusive `fcntl.flock` on a sibling `.lock` file and
replace it atomically (temp file in the same directory + `os.replace`), so concurrent
processes never lose an update and readers never see a half-written file. Every new
entry is scanned by `memory.threats` first. Messages (successes and `NotesError`) are
written for the model that called the memory tool.
"""

from __future__ import annotations

import fcntl
import os
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from memory.errors import NotesError
from memory.private import private_dir
from memory.tenants import notes_dir

SEPARATOR = "\n§\n"
FILES = {"memory": "MEMORY.md", "user": "USER.md"}
LIMITS = {"memory": 2_200, "user": 1_375}
FAR_OVER = 4  # a file over FAR_OVER x its limit is cut to the limit in the prompt
_SPLIT = re.compile(r"^[ \t]*§[ \t]*$", re.MULTILINE)
_PREVIEW = 80


@dataclass(frozen=True)
class NotesSnapshot:
    """The notes as read once at session start (frozen into the system prompt)."""

    memory: tuple[str, ...] = ()
    user: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        """True when neither file has an entry."""
        return not self.memory and not self.user


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _PREVIEW else flat[: _PREVIEW - 3] + "..."


def _parse(text: str) -> list[str]:
    return [part.strip() for part in _SPLIT.split(text) if part.strip()]


def _size(entries: list[str]) -> int:
    return len(SEPARATOR.join(entries))


def _fit(entries: list[str], limit: int) -> list[str]:
    """Entries far over `limit` cut to it: the first whole entries that fit (the first
    entry itself cut when it alone is too long); otherwise unchanged."""
    if _size(entries) <= limit * FAR_OVER:
        return entries
    kept: list[str] = []
    for entry in entries:
        if _size([*kept, entry]) > limit:
            break
        kept.append(entry)
    return kept or [entries[0][:limit]]


class Notes:
    """MEMORY.md / USER.md in one directory (`home/memories` unless `directory` is given);
    nothing touches disk until used."""

    def __init__(self, home: Path, directory: Path | None = None) -> None:
        """Remember where HERMES_HOME is; no files or directories are created here."""
        self.home = Path(home)
        self.dir = Path(directory) if directory is not None else self.home / "memories"

    @classmethod
    def for_owner(cls, home: Path, owner: str | None) -> Notes:
        """The notes of `owner` (None: the operator's HERMES_HOME/memories)."""
        return cls(home, notes_dir(home, owner))

    # -- reading ---------------------------------------------------------------------

    def _target(self, target: str) -> str:
        if target not in FILES:
            raise NotesError(
                f"Unknown memory target {target!r}. Use 'memory' for your own notes "
                "(MEMORY.md) or 'user' for facts about the user (USER.md)."
            )
        return target

    def path(self, target: str) -> Path:
        """Path of the file behind `target` ("memory" or "user")."""
        return self.dir / FILES[self._target(target)]

    def limit(self, target: str) -> int:
        """Character limit of `target` (2,200 for memory, 1,375 for user)."""
        return LIMITS[self._target(target)]

    def entries(self, target: str) -> list[str]:
        """The entries of `target`, read from disk now; a missing file means [].

        A file that cannot be read as UTF-8 text raises NotesError (and is never
        overwritten: writes re-read it first, so a hand-edited file loses nothing)."""
        path = self.path(target)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        except (UnicodeDecodeError, OSError) as exc:
            reason = "is not UTF-8 text" if isinstance(exc, UnicodeDecodeError) else (
                f"cannot be read ({exc.strerror or exc})")
            error = NotesError(
                f"{path} {reason}, so it was neither read nor changed. Ask the user to fix it "
                "(UTF-8 text, entries separated by lines holding only '§') or move it aside."
            )
            error.reason = reason
            raise error from None
        return _parse(text)

    def char_count(self, target: str) -> int:
        """Characters the entries of `target` take, separators included."""
        return _size(self.entries(target))

    def snapshot(self) -> NotesSnapshot:
        """Read both files once, for the frozen system prompt of a new session.

        Never raises: an unreadable file is left out (see `problems` for the warning)."""
        return NotesSnapshot(memory=tuple(self._readable("memory")), user=tuple(self._readable("user")))

    def _readable(self, target: str) -> list[str]:
        try:
            return _fit(self.entries(target), LIMITS[target])
        except NotesError:
            return []

    def problems(self) -> list[str]:
        """Warnings for a person about both files: unreadable, or over their limit.

        The prompt still builds: an unreadable file is left out of it, a mildly oversized
        one goes in whole, one far over (FAR_OVER x) is cut to the limit in the prompt
        (the file is untouched); no entry can be added to either until it shrinks."""
        found: list[str] = []
        for target, name in FILES.items():
            try:
                entries = self.entries(target)
            except NotesError as exc:
                found.append(f"{self.path(target)} {getattr(exc, 'reason', exc.message)}: left "
                             "out of the system prompt and never overwritten; fix it by hand "
                             "(UTF-8 text, entries separated by lines holding only §) or move "
                             "it aside")
                continue
            size, limit = _size(entries), LIMITS[target]
            if size > limit * FAR_OVER:
                kept = _fit(entries, limit)
                found.append(
                    f"{self.path(target)} is {size:,} chars, far over its {limit:,}-char limit: "
                    f"only {_size(kept):,} chars ({len(kept)} of {len(entries)} entries) go into "
                    f"the system prompt; fix the file by cutting it to under {limit:,} chars "
                    f"(keep the entries worth keeping, separated by lines holding only §), or "
                    f"move it aside")
            elif size > limit:
                found.append(
                    f"{self.path(target)} is {size:,} chars, over its {limit:,}-char limit: it "
                    f"is used whole, but the agent cannot add to it until it is shortened "
                    f"(edit the file, or ask hermes to remove old entries from {name})")
        return found

    # -- writing ---------------------------------------------------------------------

    def add(self, target: str, content: str) -> str:
        """Add an entry; an exact duplicate is a successful no-op."""
        content = self._checked(target, content)
        with self._locked(target) as entries:
            if content in entries:
                usage = self._usage(target, entries)
                return f"Already saved in {FILES[target]}; nothing changed ({usage})."
            before = _size(entries)
            entries.append(content)
            self._commit(target, entries, before)
        return f"Saved to {FILES[target]} ({self._usage(target, entries)})."

    def replace(self, target: str, old_text: str, content: str) -> str:
        """Replace the one entry containing `old_text` with `content`."""
        content = self._checked(target, content)
        with self._locked(target) as entries:
            index, before = self._find(target, entries, old_text), _size(entries)
            del entries[index]
            if content not in entries:
                entries.insert(index, content)
            self._commit(target, entries, before)
        return f"Replaced the entry in {FILES[target]} ({self._usage(target, entries)})."

    def remove(self, target: str, old_text: str) -> str:
        """Remove the one entry containing `old_text`."""
        self._target(target)
        with self._locked(target) as entries:
            before = _size(entries)
            del entries[self._find(target, entries, old_text)]
            self._commit(target, entries, before)
        return f"Removed the entry from {FILES[target]} ({self._usage(target, entries)})."

    # -- internals -------------------------------------------------------------------

    def _usage(self, target: str, entries: list[str]) -> str:
        return f"{_size(entries):,}/{LIMITS[target]:,} chars"

    def _checked(self, target: str, content: str) -> str:
        self._target(target)
        content = (content or "").strip()
        if not content:
            raise NotesError("Nothing to save: the content is empty.")
        if _SPLIT.search(content):
            raise NotesError(
                "The content contains a line with only '§', which separates entries. "
                "Save one fact per call."
            )
        # lazy for start-up speed: the scanner compiles its patterns on import, and the
        # REPL checks the notes files (problems()) before its first prompt
        from memory import threats

        reason = threats.scan(content) or threats.scan_secrets(content)
        if reason:
            raise NotesError(
                f"Refused: the content was flagged ({reason}). Memory is injected into "
                "future system prompts, so it must not carry instructions, exfiltration "
                "commands, hidden characters or credentials. Save a plain factual note."
            )
        return content

    def _find(self, target: str, entries: list[str], old_text: str) -> int:
        needle = (old_text or "").strip()
        if not needle:
            raise NotesError("old_text is empty: give a distinctive part of the entry to change.")
        hits = [i for i, entry in enumerate(entries) if needle in entry]
        if not hits:
            raise NotesError(
                f"No entry in {FILES[target]} contains {_short(needle)!r}. "
                "Check the current entries in your memory and quote one exactly."
            )
        if len(hits) > 1:
            listed = "; ".join(f"[{n}] {_short(entries[i])}" for n, i in enumerate(hits[:5], 1))
            raise NotesError(
                f"{_short(needle)!r} matches {len(hits)} entries in {FILES[target]}: "
                f"{listed}. Use a longer old_text that matches only one."
            )
        return hits[0]

    def _commit(self, target: str, entries: list[str], before: int) -> None:
        """Write `entries` atomically; refuse growth past the limit (shrinking is fine)."""
        size, limit = _size(entries), LIMITS[target]
        if size > limit and size > before:
            raise NotesError(
                f"{FILES[target]} would be {size:,}/{limit:,} chars; remove or shorten at "
                f"least {size - limit:,} chars first (use replace or remove), then retry."
            )
        path = self.path(target)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=self.dir)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(SEPARATOR.join(entries) + ("\n" if entries else ""))
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    @contextmanager
    def _locked(self, target: str) -> Iterator[list[str]]:
        """Hold the exclusive lock of `target` and yield its entries re-read inside it."""
        private_dir(self.dir)
        lock_path = self.dir / f"{FILES[target]}.lock"
        with open(lock_path, "a+b") as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
            try:
                yield self.entries(target)
            finally:
                fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
