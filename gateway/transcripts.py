"""Client-visible transcripts: how a stateless client's request finds its session.

A standard OpenAI client sends the whole conversation every time and never names a
session. What it sends back is what it saw: its user texts and our answers - never our
tool calls, recall suffixes or markers. So a session is indexed by the hash of that
visible transcript after each of its turns, in HERMES_HOME/gateway.db (or, on
PostgreSQL, the store's database, shared by every gateway worker):

    transcripts(owner, hash) -> (client session name, stored session id, length)

The hash is a chain (`chain`): one hash per prefix of the transcript, each computed from
the one before, so a request's history of n messages gives all n prefix hashes in O(n)
and one indexed query finds every stored state the history starts with. The owner is
part of the key: two keys with identical histories never see each other's sessions.
Texts are compared with surrounding whitespace stripped (clients trim answers).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from memory.db import Handle
from memory.handles import open_handle, with_schema

VISIBLE_ROLES = ("user", "assistant")
SEED = hashlib.sha256(b"hermes-transcript-v1").hexdigest()

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS transcripts (
        owner TEXT NOT NULL,
        hash TEXT NOT NULL,
        name TEXT NOT NULL,
        session_id TEXT NOT NULL,
        length INTEGER NOT NULL,
        PRIMARY KEY (owner, hash, session_id)
    )""",
    "CREATE INDEX IF NOT EXISTS transcripts_tip ON transcripts (owner, name, length)",
)

Turn = tuple[str, str]  # (role, text) of one visible message


def step(previous: str, role: str, text: str) -> str:
    """The chain hash after one more message (role and length-prefixed text)."""
    body = text.strip().encode("utf-8")
    head = f"{previous}\n{role}\n{len(body)}\n".encode()
    return hashlib.sha256(head + body).hexdigest()


def chain(messages: list[Turn] | tuple[Turn, ...], start: str = SEED) -> list[str]:
    """hashes[i] = hash of messages[:i + 1]."""
    out: list[str] = []
    current = start
    for role, text in messages:
        current = step(current, role, text)
        out.append(current)
    return out


@dataclass(frozen=True)
class Match:
    """A stored state of a session the client's history starts with."""

    name: str  # the client session name (route) of the session
    session_id: str
    length: int  # visible messages matched
    tip: bool  # True: the session's latest state (continue it); False: an older one (branch)


def candidates(history: list[Turn] | tuple[Turn, ...]) -> list[tuple[int, str]]:
    """(length, hash) of every prefix of `history` that ends with an assistant message:
    the only states a session can be in after a turn."""
    hashes = chain(history)
    return [(i + 1, h) for i, (role, _text) in enumerate(history) if role == "assistant"
            for h in (hashes[i],)]


class TranscriptIndex:
    """The transcripts table on a database handle (thread-safe, writes commit at once)."""

    def __init__(self, where: Path | Handle) -> None:
        """On a handle, or (tests, old callers) on the SQLite file at a path."""
        self.handle = with_schema(where, _SCHEMA)

    @classmethod
    def open(cls, home: Path, database_url: str | None = None) -> TranscriptIndex:
        """HERMES_HOME/gateway.db, or the PostgreSQL database of `database_url`."""
        return cls(open_handle(home, database_url, "gateway.db"))

    def longest(self, owner: str, history: list[Turn] | tuple[Turn, ...]) -> Match | None:
        """The longest stored state of `owner` that `history` starts with (at least one
        assistant message), or None. One indexed query per request."""
        found = candidates(history)
        if not found:
            return None
        by_hash = {h: n for n, h in found}
        marks = ",".join("?" * len(by_hash))
        rows = self.handle.rows(
            f"SELECT name, session_id, length FROM transcripts WHERE owner = ?"  # noqa: S608 - only placeholders
            f" AND hash IN ({marks}) ORDER BY length DESC LIMIT 1", (owner, *by_hash))
        if not rows:
            return None
        best = rows[0]
        tip = self.tip(owner, best["name"])
        return Match(best["name"], best["session_id"], best["length"], tip == best["length"])

    def tip(self, owner: str, name: str) -> int | None:
        """The length of the latest state recorded under a session name."""
        rows = self.handle.rows(
            "SELECT MAX(length) AS tip FROM transcripts WHERE owner = ? AND name = ?",
            (owner, name))
        return rows[0]["tip"] if rows else None

    def record(self, owner: str, name: str, session_id: str, transcript: list[Turn]) -> None:
        """Index the state of a session after a turn (its whole visible transcript)."""
        if not transcript:
            return
        digest = chain(transcript)[-1]
        self.handle.execute(
            "INSERT INTO transcripts (owner, hash, name, session_id, length)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (owner, hash, session_id) DO UPDATE SET"
            " name = excluded.name, length = excluded.length",
            (owner, digest, name, session_id, len(transcript)))

    def close(self) -> None:
        self.handle.close()
