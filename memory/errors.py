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
