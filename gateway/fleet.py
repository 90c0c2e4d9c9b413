"""Many `hermes gateway` workers on one database (docs/SCALEOUT.md).

A worker keeps no state another worker needs: sessions, messages, usage, routes and
the stored prompt bytes live in the database. What the fleet shares through it:

- **one writer per session**: a turn holds the session's store lock
  (gateway/turn_lock.py: `store.session_lock`, a PostgreSQL advisory lock freed when a
  killed worker's connection dies, or SQLite's lock row with its heartbeat);
- **keep-warm reads by the serving worker only**: `keeper_guard` is held around each
  idle-gap read; it refuses (and the keeper stops watching) once the stored history
  moved or the session's lock is held elsewhere - another worker serves it now;
- **leases** (`Fleet.lease`): a named, expiring hold for one worker (the store's
  `lease`/`release_lease`) - the Telegram poller's leader election
  (gateway/chat/leader.py).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from memory.session_lock import SessionLocked

#: the response header naming the worker that answered (affinity, debugging)
WORKER_HEADER = "X-Hermes-Worker"


def new_worker_id() -> str:
    """12 random hex digits, new for every process: unique across the fleet, and says
    nothing about the host or its processes (it is on every response)."""
    return secrets.token_hex(6)


def keeper_guard(store: Any, agent: Any) -> Callable[[], AbstractContextManager[str]]:
    """For the cache keeper: a hold around one keep-warm read of `agent`'s session that
    yields "" when this worker still serves it, else why not (then nothing is sent)."""
    @contextmanager
    def guard() -> Iterator[str]:
        sid = agent.session_id
        try:
            with store.session_lock(sid, wait=0, purpose="keep-warm read"):
                if store.message_count(sid) != len(agent.conversation.messages):
                    yield "the stored history moved: another worker serves the session"
                    return
                yield ""
        except SessionLocked:
            yield "the session is held by another worker or process"
    return guard


class Fleet:
    """This worker's identity and its handles on what the workers share."""

    def __init__(self, store: Any, worker_id: str | None = None) -> None:
        self.worker_id = worker_id or new_worker_id()
        self.store = store

    def lease(self, name: str, holder: str, ttl_s: float) -> bool:
        """Take or renew lease `name` for `holder` (the store's, shared by the fleet)."""
        return bool(self.store.lease(name, holder, ttl_s))

    def release(self, name: str, holder: str) -> None:
        self.store.release_lease(name, holder)


class WorkerHeader:
    """ASGI middleware: every response names the worker that answered (`X-Hermes-Worker`),
    so a client or a load balancer's log shows where a session was served."""

    def __init__(self, app: Any, worker_id: str) -> None:
        self.app = app
        self.value = worker_id.encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def named(message: Any) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []),
                                                  (b"x-hermes-worker", self.value)]}
            await send(message)
        await self.app(scope, receive, named)


def flagged_database_url(url: str | None, url_file: str | None) -> tuple[str, str] | None:
    """(URL, source) from `hermes gateway --database-url URL` or `--database-url-file
    PATH`, for `Settings.database_url` (it wins over the environment and config.yaml);
    None when neither is given. The URL stays a settings value - never put into the
    environment, which tool processes would inherit. A password on the command line is
    refused: every process of the user reads it from /proc/<pid>/cmdline. A URL this
    build cannot open, or an unreadable file, is one clear line."""
    from agent.errors import ConfigError
    from memory.db import is_postgres_url
    from memory.redact import redact_url

    if url is not None and url_file is not None:
        raise ConfigError("--database-url and --database-url-file both given", "give one")
    source = "--database-url"
    if url_file is not None:
        source = f"--database-url-file {url_file}"
        url = _read_url_file(Path(url_file))
    if url is None:
        return None
    url = url.strip()
    if not is_postgres_url(url):
        raise ConfigError(f"{source} must be a postgresql:// URL, got {redact_url(url)!r}",
                          "write it as postgresql://USER:PASSWORD@HOST:5432/DATABASE, or drop "
                          "it to keep the sessions in HERMES_HOME/state.db")
    if url_file is None and _has_password(url):
        raise ConfigError("--database-url carries a password, which every process of this user "
                          "can read on the gateway's command line",
                          "put the URL in a file only you can read and pass "
                          "--database-url-file PATH, or set HERMES_DATABASE_URL in "
                          "HERMES_HOME/.env (docs/SCALEOUT.md)")
    return url, source


def _has_password(url: str) -> bool:
    from urllib.parse import parse_qsl, urlsplit

    try:
        parts = urlsplit(url)
        return parts.password is not None or any(
            k.lower() == "password" for k, _ in parse_qsl(parts.query))
    except ValueError:
        return True  # unparseable: do not let it through to the command line's readers


def _read_url_file(path: Path) -> str:
    from agent.errors import ConfigError

    try:
        with path.open(encoding="utf-8") as handle:
            text = handle.read(64 * 1024)
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or "not UTF-8 text"
        raise ConfigError(f"--database-url-file {path}: cannot read it ({why})",
                          "give a readable file holding one postgresql:// URL") from None
    lines = [line.strip() for line in text.splitlines() if line.strip()
             and not line.lstrip().startswith("#")]
    if len(lines) != 1:
        raise ConfigError(f"--database-url-file {path}: expected one URL line, found "
                          f"{len(lines)}", "write the postgresql:// URL on one line")
    return lines[0]
