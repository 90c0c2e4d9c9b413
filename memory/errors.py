"""Exceptions raised by the memory package.

Like the rest of hermes, every error carries `message` (what is wrong, readable by a
person or a model) and `hint` (how to fix it); front ends print both, never a traceback.
"""

from __future__ import annotations


class HermesMemoryError(Exception):
    """Base class of every error raised by `memory`."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class SessionNotFound(HermesMemoryError, LookupError):
    """No session matches the id or prefix given."""

    def __init__(self, ident: str) -> None:
        super().__init__(
            f"No session matches {ident!r}.",
            "Run `hermes sessions list` to see the saved sessions and their ids.",
        )
        self.ident = ident


class AmbiguousSession(HermesMemoryError, LookupError):
    """A prefix matches several sessions; `candidates` holds their ids."""

    def __init__(self, prefix: str, candidates: list[str]) -> None:
        shown = ", ".join(candidates[:10])
        more = f" (and {len(candidates) - 10} more)" if len(candidates) > 10 else ""
        super().__init__(
            f"{prefix!r} matches {len(candidates)} sessions: {shown}{more}.",
            "Type more characters of the session id.",
        )
        self.prefix = prefix
        self.candidates = list(candidates)


class NotesError(HermesMemoryError, ValueError):
    """A MEMORY.md / USER.md operation was refused; the message is written for the model."""

    reason: str = ""  # why a notes file could not be read, when that was the refusal


class StoreError(HermesMemoryError):
    """The session store (state.db) cannot be opened, read or written."""


def store_error(exc: BaseException, path: object, waited: float = 5.0) -> StoreError:
    """A clear StoreError for an sqlite3 / OS error met on the database at `path`."""
    text = str(exc)
    low = text.lower()
    if "not a database" in low or "malformed" in low or "file is encrypted" in low:
        return StoreError(
            f"{path} is not a valid SQLite database (it is corrupt, or not a hermes state.db).",
            f"Move it aside (mv {path} {path}.broken): hermes then starts a fresh one, and the "
            "old file stays for recovery (sqlite3 state.db.broken .recover).",
        )
    if "locked" in low or "busy" in low:
        return StoreError(
            f"{path} is locked by another process (waited {waited:g} s for it).",
            "Another hermes (or a sqlite tool) holds a write lock on it: let it finish or "
            "close it, then run the command again.",
        )
    if "readonly" in low or "read-only" in low or "unable to open" in low or isinstance(exc, OSError):
        reason = getattr(exc, "strerror", None) or text
        return StoreError(
            f"cannot write the session store {path} ({reason}).",
            "Make that directory writable, or point HERMES_HOME at a writable directory.",
        )
    return StoreError(f"session store {path}: {text}", "Check the file; `hermes sessions list` "
                      "tells whether the store can be read at all.")
