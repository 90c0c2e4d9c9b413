"""A session copied under a new id: its row (stored prompt, layout, tools, choices) and
its messages byte for byte, so the copy's first request is the original's prefix and
reads the cache the original wrote (docs/CACHING.md section 2, invariant 7). Usage rows
stay with the original: the copy's spend is its own. `/bg` runs a prompt in a copy, so
the background run and the REPL never append to one history."""

from __future__ import annotations

from typing import Any

from memory import records
from memory.errors import SessionNotFound

_NOT_COPIED = ("rowid",)  # PostgreSQL's own row counter


def fork_session(store: Any, source_id: str, new_id: str, *, source: str) -> None:
    """Copy session `source_id` to `new_id` (parent: the original, `source` its kind)."""
    stamp = records.now_iso()
    with store._write() as db:
        rows = db.rows("SELECT * FROM sessions WHERE id = ?", [source_id])
        if not rows:
            raise SessionNotFound(source_id)
        row = {k: v for k, v in rows[0].items() if k not in _NOT_COPIED}
        row.update(id=new_id, parent_id=source_id, source=source, created=stamp,
                   updated=stamp, ended=0)
        cols = list(row)  # the table's own column names, as the store read them
        db.execute(f"INSERT INTO sessions ({', '.join(cols)}) "  # noqa: S608
                   f"VALUES ({', '.join('?' * len(cols))})", [row[c] for c in cols])
        for message in db.rows("SELECT * FROM messages WHERE session_id = ? ORDER BY seq",
                               [source_id]):
            copy = {k: v for k, v in message.items() if k != "id"}
            copy["session_id"] = new_id
            db.insert("messages", copy)
