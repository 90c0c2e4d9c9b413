"""Append-only, named schema migrations of the session store.

Each migration is a small function registered in order with `@migration("NNNN_name")`.
`apply_pending()` runs the ones not yet recorded in `_migrations`, each in its own
`BEGIN IMMEDIATE` transaction together with its record, so two processes opening a fresh
database at once cannot both apply one. Never edit or reorder a released migration; add
a new one at the end.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from sqlite_utils import Database

from memory.cron import JOBS_DDL, RUNS_DDL
from memory.inbound import INBOUND_DDL, INBOUND_INDEX
from memory.outbox import OUTBOX_DDL, OUTBOX_INDEX

MigrationFn = Callable[[Database], None]

MIGRATIONS: list[tuple[str, MigrationFn]] = []


def migration(name: str) -> Callable[[MigrationFn], MigrationFn]:
    """Register `fn` as the next migration, under a unique `name`."""

    def register(fn: MigrationFn) -> MigrationFn:
        if any(existing == name for existing, _ in MIGRATIONS):
            raise ValueError(f"duplicate migration name {name!r}")
        MIGRATIONS.append((name, fn))
        return fn

    return register


def applied_names(db: Database) -> list[str]:
    """Names of the migrations already applied to `db`, in the order applied."""
    if not db["_migrations"].exists():
        return []
    return [row["name"] for row in db.query("SELECT name FROM _migrations ORDER BY id")]


def apply_pending(db: Database) -> list[str]:
    """Apply every registered migration missing from `db`; return the names applied.

    An up-to-date database is only read (no write lock), so commands that merely read
    the store work while another process is writing to it."""
    if set(applied_names(db)) >= {name for name, _ in MIGRATIONS}:
        return []
    db.execute(
        "CREATE TABLE IF NOT EXISTS _migrations ("
        " id INTEGER PRIMARY KEY AUTOINCREMENT,"
        " name TEXT NOT NULL UNIQUE,"
        " applied TEXT NOT NULL)"
    )
    done: list[str] = []
    for name, fn in MIGRATIONS:
        db.conn.execute("BEGIN IMMEDIATE")
        try:
            seen = db.execute("SELECT 1 FROM _migrations WHERE name = ?", [name]).fetchone()
            if seen is None:
                fn(db)
                db.execute(
                    "INSERT INTO _migrations (name, applied) VALUES (?, ?)",
                    [name, datetime.now(UTC).isoformat(timespec="seconds")],
                )
                done.append(name)
            db.conn.execute("COMMIT")
        except BaseException:
            if db.conn.in_transaction:
                db.conn.execute("ROLLBACK")
            raise
    return done


@migration("0001_initial")
def _initial(db: Database) -> None:
    """Sessions, messages (with an FTS5 index over content) and per-call usage rows."""
    db.executescript(
        """
        CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            parent_id TEXT,
            created TEXT NOT NULL,
            updated TEXT NOT NULL,
            model TEXT NOT NULL DEFAULT '',
            provider TEXT NOT NULL DEFAULT '',
            base_url TEXT,
            personality TEXT,
            title TEXT,
            cwd TEXT,
            system_prompt TEXT NOT NULL DEFAULT '',
            ephemeral_prompt TEXT NOT NULL DEFAULT '',
            tools TEXT NOT NULL DEFAULT '[]',
            toolsets TEXT NOT NULL DEFAULT '[]',
            source TEXT NOT NULL DEFAULT 'cli',
            owner TEXT,
            ended INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX sessions_updated ON sessions (updated);
        CREATE INDEX sessions_parent ON sessions (parent_id);
        CREATE TABLE messages (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            role TEXT NOT NULL,
            content TEXT NOT NULL DEFAULT '',
            wire_suffix TEXT NOT NULL DEFAULT '',
            tool_calls TEXT,
            tool_call_id TEXT,
            tool_name TEXT,
            kind TEXT NOT NULL DEFAULT '',
            is_error INTEGER NOT NULL DEFAULT 0,
            created TEXT NOT NULL,
            UNIQUE (session_id, seq)
        );
        CREATE TABLE usage (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL,
            turn INTEGER NOT NULL DEFAULT 0,
            call_index INTEGER NOT NULL DEFAULT 0,
            created TEXT NOT NULL,
            model TEXT NOT NULL DEFAULT '',
            provider TEXT NOT NULL DEFAULT '',
            uncached INTEGER NOT NULL DEFAULT 0,
            write_5m INTEGER NOT NULL DEFAULT 0,
            write_1h INTEGER NOT NULL DEFAULT 0,
            cache_read INTEGER,
            output INTEGER NOT NULL DEFAULT 0,
            cost_usd REAL,
            cache_known INTEGER NOT NULL DEFAULT 0,
            miss_cause TEXT,
            miss_detail TEXT,
            missed_tokens INTEGER,
            response_id TEXT,
            prompt_fingerprint TEXT
        );
        CREATE INDEX usage_session ON usage (session_id, id);
        """
    )
    db.table("messages").enable_fts(["content"], create_triggers=True, tokenize="porter unicode61")


@migration("0002_provider_miss_reason")
def _provider_miss_reason(db: Database) -> None:
    """Keep the provider's own cache diagnosis (Anthropic `cache_miss_reason.type`) beside
    ours, so a disagreement between the two stays visible."""
    db.execute("ALTER TABLE usage ADD COLUMN provider_miss_reason TEXT")


@migration("0003_session_locks")
def _session_locks(db: Database) -> None:
    """One row per session being driven by a process (memory/session_lock.py): who holds
    it (pid, host, a random token) since when, and its last heartbeat."""
    db.execute(
        "CREATE TABLE session_locks (session_id TEXT PRIMARY KEY, token TEXT NOT NULL,"
        " pid INTEGER NOT NULL, host TEXT NOT NULL, purpose TEXT NOT NULL DEFAULT '',"
        " started REAL NOT NULL, heartbeat REAL NOT NULL)"
    )


@migration("0004_stable_layout")
def _stable_layout(db: Database) -> None:
    """Where a session's stable text is cut into system blocks (agent.prompts.prefix): JSON
    [[scope, chars], ...]; NULL for sessions stored before, which are sent as one block."""
    db.execute("ALTER TABLE sessions ADD COLUMN stable_layout TEXT")


@migration("0005_usage_kind")
def _usage_kind(db: Database) -> None:
    """What a usage row's call was: '' for a turn's model call, 'keep_warm' for a read
    the cache keeper sent while the session was idle (agent/modelcall/keepwarm.py)."""
    db.execute("ALTER TABLE usage ADD COLUMN kind TEXT NOT NULL DEFAULT ''")


@migration("0006_message_reasoning")
def _message_reasoning(db: Database) -> None:
    """An assistant message's thinking / redacted_thinking blocks, exactly as the
    provider sent them (a JSON list of each block's canonical JSON text): re-sent
    byte-identically after a resume, or the provider refuses the continuation."""
    db.execute("ALTER TABLE messages ADD COLUMN reasoning TEXT")


@migration("0007_mcp_tools")
def _mcp_tools(db: Database) -> None:
    """The MCP tool schemas a session froze (canonical JSON list; NULL: none frozen yet),
    so `--resume` sends the same tool bytes even when a server changed or is down."""
    db.execute("ALTER TABLE sessions ADD COLUMN mcp_tools TEXT")


@migration("0008_leases")
def _leases(db: Database) -> None:
    """Named leases for leader election across processes (memory/leases.py): who holds
    each and until when (epoch seconds)."""
    db.execute(
        "CREATE TABLE leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires REAL NOT NULL)"
    )


@migration("0009_session_choices")
def _session_choices(db: Database) -> None:
    """A session's choices beside model and provider (agent/sessions/choices.py: personality name
    and text, reasoning settings, extra system text, mode) as canonical JSON, so a resume
    or another gateway worker restores them; NULL for sessions stored before."""
    db.execute("ALTER TABLE sessions ADD COLUMN choices TEXT")


@migration("0010_rate_events")
def _rate_events(db: Database) -> None:
    """Requests admitted under a per-minute rate (memory/rates.py): one row per request,
    kept for one window; `rate_heads` holds one row per name, upserted first so that
    concurrent takers of one name queue up."""
    db.execute("CREATE TABLE rate_heads (name TEXT PRIMARY KEY, touched REAL NOT NULL)")
    db.execute("CREATE TABLE rate_events (id INTEGER PRIMARY KEY AUTOINCREMENT,"
               " name TEXT NOT NULL, at REAL NOT NULL)")
    db.execute("CREATE INDEX rate_events_name ON rate_events (name, at)")


@migration("0011_message_images")
def _message_images(db: Database) -> None:
    """A user or tool message's pictures (agent/images.py): canonical JSON of
    [{media_type, data (base64), width, height, name}], stored once with the message and
    re-sent byte-identically on every later request; NULL for a message without."""
    db.execute("ALTER TABLE messages ADD COLUMN images TEXT")


@migration("0012_cron")
def _cron(db: Database) -> None:
    """Scheduled jobs and their runs (memory/cron.py). `next_run` (epoch seconds, NULL:
    no more runs) is advanced by the same statement that claims a run, so one fire runs
    once whatever crashes or how many workers race for it."""
    db.execute(JOBS_DDL.format(id="INTEGER PRIMARY KEY AUTOINCREMENT", real="REAL"))
    db.execute(RUNS_DDL.format(id="INTEGER PRIMARY KEY AUTOINCREMENT", real="REAL"))
    db.execute("CREATE INDEX cron_runs_job ON cron_runs (job_id, id)")

@migration("0014_provider_caches")
def _provider_caches(db: Database) -> None:
    """Explicit provider caches (Gemini's `cachedContents`, billed per token-hour while
    they live): one row per cache - its resource name, the key of the frozen prefix it
    holds, expiry and storage billed so far in the API's time - so every process of an
    installation finds a live cache for its prefix instead of creating a second one
    (memory/provider_caches.py); and each usage row's storage (token-hours) beside its
    tokens, priced per token-hour (agent/cost/pricing.py)."""
    db.execute("ALTER TABLE usage ADD COLUMN stored_token_hours REAL NOT NULL DEFAULT 0")
    db.execute(
        "CREATE TABLE provider_caches (name TEXT PRIMARY KEY, key TEXT NOT NULL,"
        " model TEXT NOT NULL, tokens INTEGER NOT NULL, created REAL NOT NULL,"
        " expires REAL NOT NULL, billed_until REAL NOT NULL,"
        " stored_token_hours REAL NOT NULL DEFAULT 0, sessions INTEGER NOT NULL DEFAULT 1,"
        " deleted INTEGER NOT NULL DEFAULT 0, uses INTEGER NOT NULL DEFAULT 1)")
    db.execute("CREATE INDEX provider_caches_key ON provider_caches (key, expires)")


@migration("0015_usage_meters")
def _usage_meters(db: Database) -> None:
    """Each usage row's meters: what a provider billed beyond the token buckets, as JSON
    [{name, quantity, unit, usd_per_unit, cost_usd}] priced when recorded (agent/usage.py
    `Meter`): a new kind of charge needs no column of its own."""
    db.execute("ALTER TABLE usage ADD COLUMN meters TEXT")


@migration("0016_chat_outbox")
def _chat_outbox(db: Database) -> None:
    """The chat delivery ledger (memory/outbox.py): replies and job answers a chat
    platform did not accept, sent again after a reconnect or restart, claimed by one
    UPDATE so that each is sent once."""
    db.execute(OUTBOX_DDL.format(id="INTEGER PRIMARY KEY AUTOINCREMENT", real="REAL"))
    db.execute(OUTBOX_INDEX)


@migration("0017_chat_inbound")
def _chat_inbound(db: Database) -> None:
    """Chat messages already taken (memory/inbound.py): a platform's message id delivered
    twice - a retried webhook, to this worker or another - is answered once."""
    db.execute(INBOUND_DDL.format(real="REAL"))
    db.execute(INBOUND_INDEX)


@migration("0018_cron_reserved")
def _cron_reserved(db: Database) -> None:
    """Each running cron run's spending limit, held against the job's daily cap while it
    runs (memory/cron.py `reserve`): overlapping runs cannot together pass the cap."""
    db.execute("ALTER TABLE cron_runs ADD COLUMN reserved_usd REAL")
