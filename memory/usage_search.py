"""What the store reports: per-call usage rows (and a key's spend from them), full-text
search over messages, and a session's export. `SessionStore` inherits these methods;
they run on its handle through `_rows`/`_sql`, and use its session reads (`_require`,
`lineage`, `messages`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

import memory.queries as queries
import memory.records as records

if TYPE_CHECKING:  # a type only; memory.db does not import this module
    from memory.db import Handle, Row


class _Store(Protocol):
    """What these methods use of the store they are mixed into (memory/store.py)."""

    handle: Handle

    def _rows(self, sql: str, params: Iterable[object] = ()) -> list[Row]: ...
    def _sql(self, name: str) -> str: ...
    def _require(self, session_id: str) -> Row: ...
    def lineage(self, id: str) -> list[Row]: ...
    def messages(self, session_id: str) -> list[Row]: ...
    def usage_rows(self, session_id: str, lineage: bool = False) -> list[Row]: ...


class UsageAndSearch:
    """Usage, search and export on the store (see the module docstring)."""

    # -- usage -----------------------------------------------------------------------

    def add_usage(self: _Store, session_id: str, **row: object) -> int:
        """Record one API call's usage; return the row id.

        Keys: turn, call_index, model, provider (default: the session's), uncached,
        write_5m, write_1h, cache_read (None = not reported), output, cost_usd
        (None = unknown price), cache_known (default: cache_read is not None),
        miss_cause, miss_detail, missed_tokens, response_id, prompt_fingerprint.
        """
        encoded = records.encode_usage(row, self._require(session_id))
        encoded["session_id"] = session_id
        encoded["created"] = records.now_iso()
        return self.handle.insert("usage", encoded)

    def usage_rows(self: _Store, session_id: str, lineage: bool = False) -> list[Row]:
        """Usage rows of a session in call order; `lineage=True` prepends its ancestors'."""
        ids = [s["id"] for s in self.lineage(session_id)] if lineage else [session_id]
        out: list[Row] = []
        for sid in ids:
            rows = self._rows("SELECT * FROM usage WHERE session_id = ? ORDER BY id", [sid])
            out.extend(records.decode_usage(r) for r in rows)
        return out

    def owner_spend(self: _Store, owner: str, since_iso: str) -> tuple[float, int]:
        """(USD spent, calls with no known price) by `owner`'s sessions since `since_iso`
        (an ISO-8601 UTC time, compared with the usage rows' `created`)."""
        row = self._rows(queries.OWNER_SPEND_SQL, [owner, since_iso])[0]
        return float(row["spent"] or 0.0), int(row["unpriced"] or 0)

    def usage_totals(self: _Store, after: int = 0, upto: int | None = None) -> list[Row]:
        """Usage rows with ids in (after, upto] summed by owner, model, kind and miss
        cause (tokens by kind, cost, calls): what the gateway's /metrics exposes."""
        return self._rows(queries.USAGE_TOTALS_SQL, [after, 2**62 if upto is None else upto])

    def usage_settled(self: _Store, after: int, before_iso: str) -> int | None:
        """The last usage row id after `after` created before `before_iso` (None: none)."""
        last = self._rows(queries.USAGE_SETTLED_SQL, [after, before_iso])[0]["last"]
        return None if last is None else int(last)

    def owner_tokens(self: _Store, owner: str, since_iso: str) -> list[tuple[str, int]]:
        """(created, tokens) of `owner`'s calls since `since_iso`, oldest first; tokens =
        uncached input + cache writes + output (cache reads left out)."""
        return [(r["created"], int(r["tokens"] or 0))
                for r in self._rows(queries.OWNER_TOKENS_SQL, [owner, since_iso])]

    # -- search and export -----------------------------------------------------------

    def search(self: _Store,
        query: str,
        *,
        exclude_session: str | None = None,
        limit: int = 5,
        owner: str | None = None,
    ) -> list[Row]:
        """Full-text search over message content, best matches first.

        Any text is accepted: it becomes quoted words OR-ed together; no words -> [].
        Each hit: message_id, session_id, seq, role, created, date (YYYY-MM-DD),
        session_created, title, snippet (matches wrapped in ** **).
        """
        match = records.fts_query(query)
        if not match:
            return []
        where, params = "", [match]
        if exclude_session is not None:
            where += " AND m.session_id != ?"
            params.append(exclude_session)
        if owner is not None:
            where += " AND s.owner = ?"
            params.append(owner)
        rows = self._rows(self._sql("SEARCH_SQL").format(where=where), [*params, int(limit)])
        for row in rows:
            row["date"] = row["created"][:10]
        return rows

    def export_session(self: _Store, id: str) -> Row:
        """A JSON-ready dict: {"version": 1, "session", "messages", "usage"}."""
        return {
            "version": 1,
            "session": self._require(id),
            "messages": self.messages(id),
            "usage": self.usage_rows(id),
        }
