"""The session store: sessions, messages, usage rows and full-text search, on SQLite
(`HERMES_HOME/state.db`, through sqlite-utils) or PostgreSQL (psycopg 3).

`memory.open_store` opens it from a home and an optional database URL. The store runs
its SQL on a `memory.db.Handle`: written once where portable, per backend where it
must differ (`queries.py`, migrations, full-text search). One `SessionStore` may be
shared by threads (the handle serialises them); every write is committed before the
method returns, so a process killed right afterwards loses nothing it was told was
saved. Several processes may use one database: writes are transactions (SQLite
`BEGIN IMMEDIATE`, waiting up to the 5 s busy timeout). Session locks and leases
(`memory.coordination`) are taken through the store too.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import memory.queries as queries
import memory.records as records
from memory.coordination import Coordination
from memory.db import Handle, Row
from memory.errors import AmbiguousSession, SessionNotFound
from memory.redact import redact_url
from memory.usage_search import UsageAndSearch

if TYPE_CHECKING:
    from sqlite_utils import Database

BUSY_TIMEOUT_S = 5.0


class SessionStore(Coordination, UsageAndSearch):
    """Sessions, messages, usage rows and full-text search on one database handle;
    session locks and leases from `Coordination`."""

    def __init__(self, path: Path | None = None, *, busy_timeout: float = BUSY_TIMEOUT_S,
                 read_only: bool = False, handle: Handle | None = None) -> None:
        """Open the SQLite database at `path` (created if needed), or use `handle`, and
        apply pending migrations (not when `read_only`: a read-only HERMES_HOME).

        `busy_timeout`: seconds to wait for another process's SQLite write lock."""
        if handle is None:
            from memory.db_sqlite import SqliteHandle

            handle = SqliteHandle(Path(path), busy_timeout=busy_timeout, read_only=read_only)  # type: ignore[arg-type]
        self.handle = handle
        self.path: Path | None = getattr(handle, "path", None)  # SQLite's file, else None
        self.busy_timeout = busy_timeout
        if not read_only:
            try:
                self.migrate()
            except BaseException:
                handle.close()
                raise

    @property
    def db(self) -> Database:
        """The sqlite-utils Database (SQLite only; for tests and tools that inspect it)."""
        return self.handle.db  # type: ignore[attr-defined]

    # -- lifecycle -------------------------------------------------------------------

    def migrate(self) -> list[str]:
        """Apply migrations not yet recorded in `_migrations`; return their names."""
        if self.handle.kind == "postgres":
            import memory.migrations_pg as migrations_pg

            return migrations_pg.apply_pending(self.handle)
        import memory.migrations as migrations

        with self.handle.guarded():  # type: ignore[attr-defined]
            return migrations.apply_pending(self.db)

    def close(self) -> None:
        """Close the connection; the store is unusable afterwards."""
        self.handle.close()

    def __enter__(self) -> SessionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[Handle]:
        """One write transaction, committed on success."""
        with self.handle.transaction() as handle:
            yield handle

    def _rows(self, sql: str, params: Iterable[object] = ()) -> list[Row]:
        return self.handle.rows(sql, params)

    def _sql(self, name: str) -> str:
        """A query of `memory.queries`, in this backend's dialect where it differs."""
        return getattr(queries, f"{name}_PG" if self.handle.kind == "postgres" else name)

    def _exists(self, db: Handle, session_id: str) -> bool:
        """Whether the session exists; inside a write on PostgreSQL its row is locked
        too, so two connections' writes to one session take turns (as SQLite's
        `BEGIN IMMEDIATE` makes every write do)."""
        lock = " FOR UPDATE" if db.kind == "postgres" else ""
        return bool(db.rows(f"SELECT 1 AS x FROM sessions WHERE id = ?{lock}", [session_id]))

    def _require(self, session_id: str) -> Row:
        row = self.get_session(session_id)
        if row is None:
            raise SessionNotFound(session_id)
        return row

    # -- sessions --------------------------------------------------------------------

    def create_session(  # noqa: PLR0913 - the session row is wide by design
        self,
        id: str,
        *,
        model: str,
        provider: str,
        system_prompt: str,
        base_url: str | None = None,
        personality: str | None = None,
        title: str | None = None,
        cwd: str | None = None,
        ephemeral_prompt: str = "",
        tools: Iterable[str] = (),
        toolsets: Iterable[str] = (),
        parent_id: str | None = None,
        source: str = "cli",
        owner: str | None = None,
    ) -> Row:
        """Insert a new session row and return it; raises ValueError if `id` exists."""
        stamp = records.now_iso()
        row = {
            "id": id,
            "parent_id": parent_id,
            "created": stamp,
            "updated": stamp,
            "model": model,
            "provider": provider,
            "base_url": redact_url(base_url),
            "personality": personality,
            "title": title,
            "cwd": cwd,
            "system_prompt": system_prompt,
            "ephemeral_prompt": ephemeral_prompt or "",
            "tools": records.encode_name_list(tools),
            "toolsets": records.encode_name_list(toolsets),
            "source": source,
            "owner": owner,
            "ended": 0,
        }
        with self._write() as db:
            if self._exists(db, id):
                raise ValueError(f"session {id!r} already exists")
            cols = ", ".join(row)
            db.execute(f"INSERT INTO sessions ({cols}) VALUES ({', '.join('?' * len(row))})",  # noqa: S608 - our column names
                       list(row.values()))
        return self.get_session(id)  # type: ignore[return-value]

    def get_session(self, id: str) -> Row | None:
        """The session row with JSON columns decoded, or None."""
        found = self._rows("SELECT * FROM sessions WHERE id = ?", [id])
        return records.decode_session(found[0]) if found else None

    def resolve_session_id(self, prefix: str, *, owner: str | None = None) -> str:
        """Exact id or unique id prefix -> full id (restricted to `owner` when given).

        Raises SessionNotFound for no match and AmbiguousSession for several.
        """
        prefix = (prefix or "").strip()
        if not prefix:
            raise SessionNotFound(prefix)
        owner_sql = "" if owner is None else " AND owner = ?2"
        params = [prefix] if owner is None else [prefix, owner]
        exact = self._rows(f"SELECT id FROM sessions WHERE id = ?1{owner_sql}", params)
        if exact:
            return exact[0]["id"]
        rows = self._rows(
            "SELECT id FROM sessions WHERE substr(id, 1, length(?1)) = ?1"
            f"{owner_sql} ORDER BY updated DESC",
            params,
        )
        if not rows:
            raise SessionNotFound(prefix)
        if len(rows) > 1:
            raise AmbiguousSession(prefix, [r["id"] for r in rows])
        return rows[0]["id"]

    @staticmethod
    def _filters(source: str | None, owner: str | None, alias: str = "") -> tuple[str, list[object]]:
        clauses: list[str] = ["1 = 1"]
        params: list[object] = []
        if source is not None:
            clauses.append(f"{alias}source = ?")
            params.append(source)
        if owner is not None:
            clauses.append(f"{alias}owner = ?")
            params.append(owner)
        return " AND ".join(clauses), params

    def latest_session(self, source: str | None = None, owner: str | None = None, *,
                       sources: tuple[str, ...] = (), cwd: str | None = None) -> Row | None:
        """The most recently updated session (optionally of one source / owner, one of
        `sources`, started in directory `cwd`)."""
        where, params = self._filters(source, owner)
        if sources:
            where += f" AND source IN ({', '.join('?' * len(sources))})"
            params.extend(sources)
        if cwd is not None:
            where += " AND cwd = ?"
            params.append(cwd)
        rows = self._rows(
            f"SELECT * FROM sessions WHERE {where} ORDER BY updated DESC, rowid DESC LIMIT 1",
            params,
        )
        return records.decode_session(rows[0]) if rows else None

    def list_sessions(
        self, limit: int = 50, source: str | None = None, owner: str | None = None
    ) -> list[Row]:
        """Most recently updated sessions first, with counts, preview and usage totals.

        Extra keys: message_count, preview (first user message, <= 60 chars), api_calls,
        total_cost_usd (None when no call had a known price), unpriced_calls,
        input_tokens, cache_read_tokens (None when never reported), output_tokens.
        """
        where, params = self._filters(source, owner)
        out = []
        for row in self._rows(self._sql("LIST_SQL").format(where=where), [*params, int(limit)]):
            row = records.decode_session(row) or row
            row["preview"] = records.preview(row["preview"])
            for key in ("unpriced_calls", "input_tokens", "output_tokens"):
                row[key] = row[key] or 0
            out.append(row)
        return out

    def update_session(self, id: str, **fields: object) -> Row:
        """Update session columns (not id/created) and bump `updated`; return the row."""
        encoded = records.encode_session_fields(fields)
        encoded["updated"] = records.now_iso()
        with self._write() as db:
            if not self._exists(db, id):
                raise SessionNotFound(id)
            sets = ", ".join(f"{col} = ?" for col in encoded)
            db.execute(f"UPDATE sessions SET {sets} WHERE id = ?",  # noqa: S608 - our column names
                       [*encoded.values(), id])
        return self.get_session(id)  # type: ignore[return-value]

    def delete_session(self, id: str) -> None:
        """Delete a session with its messages, usage and index rows.

        Child sessions survive with `parent_id` set to NULL.
        """
        with self._write() as db:
            if not self._exists(db, id):
                raise SessionNotFound(id)
            db.execute("DELETE FROM messages WHERE session_id = ?", [id])
            db.execute("DELETE FROM usage WHERE session_id = ?", [id])
            db.execute("UPDATE sessions SET parent_id = NULL WHERE parent_id = ?", [id])
            db.execute("DELETE FROM sessions WHERE id = ?", [id])

    def children(self, id: str) -> list[str]:
        """Ids of the sessions continued from `id` (compression lineage), oldest first."""
        rows = self._rows("SELECT id FROM sessions WHERE parent_id = ? ORDER BY created", [id])
        return [r["id"] for r in rows]

    def lineage(self, id: str) -> list[Row]:
        """The session's ancestors (via parent_id), oldest first, then the session itself."""
        chain = [self._require(id)]
        seen = {id}
        while chain[0]["parent_id"] and chain[0]["parent_id"] not in seen:
            parent = self.get_session(chain[0]["parent_id"])
            if parent is None:
                break
            seen.add(parent["id"])
            chain.insert(0, parent)
        return chain

    # -- messages --------------------------------------------------------------------

    def append_message(  # noqa: PLR0913 - mirrors the message row
        self,
        session_id: str,
        *,
        role: str,
        content: str = "",
        tool_calls: Iterable[Row] | None = None,
        tool_call_id: str | None = None,
        tool_name: str | None = None,
        wire_suffix: str = "",
        kind: str = "",
        is_error: bool = False,
        reasoning: Iterable[str] | None = None,
        images: Iterable[Row] | None = None,
    ) -> int:
        """Append one message, commit it, and return its row id (seq is assigned).
        `reasoning`: an assistant message's opaque thinking blocks, stored verbatim;
        `images`: its pictures ({media_type, data (base64), width, height, name})."""
        if role not in records.ROLES:
            raise ValueError(f"role must be one of {sorted(records.ROLES)}, not {role!r}")
        calls = records.encode_tool_calls(tool_calls)
        stamp = records.now_iso()
        with self._write() as db:
            if not self._exists(db, session_id):
                raise SessionNotFound(session_id)
            new_id = db.rows(
                "INSERT INTO messages (session_id, seq, role, content, wire_suffix,"
                " tool_calls, tool_call_id, tool_name, kind, is_error, created, reasoning, images)"
                " VALUES (?1, (SELECT COALESCE(MAX(seq), -1) + 1 FROM messages"
                " WHERE session_id = ?1), ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"
                " RETURNING id",
                [
                    session_id,
                    role,
                    content or "",
                    wire_suffix or "",
                    calls,
                    tool_call_id,
                    tool_name,
                    kind or "",
                    int(bool(is_error)),
                    stamp,
                    records.encode_reasoning(reasoning),
                    records.encode_images(images),
                ],
            )
            db.execute("UPDATE sessions SET updated = ? WHERE id = ?", [stamp, session_id])
            return int(new_id[0]["id"])

    def messages(self, session_id: str) -> list[Row]:
        """All messages of a session in seq order (tool_calls decoded)."""
        rows = self._rows("SELECT * FROM messages WHERE session_id = ? ORDER BY seq", [session_id])
        return [records.decode_message(r) for r in rows]

    def message_count(self, session_id: str) -> int:
        """How many messages the session has in the store now."""
        rows = self._rows("SELECT COUNT(*) AS n FROM messages WHERE session_id = ?", [session_id])
        return int(rows[0]["n"])

    def delete_messages_from(self, session_id: str, seq: int) -> int:
        """Delete the messages with seq >= `seq` (for /undo, /retry); return how many."""
        with self._write() as db:
            deleted = db.execute(
                "DELETE FROM messages WHERE session_id = ? AND seq >= ?", [session_id, seq]
            )
            db.execute(
                "UPDATE sessions SET updated = ? WHERE id = ?", [records.now_iso(), session_id]
            )
            return deleted
