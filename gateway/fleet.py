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

import os
import secrets
import socket
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from memory.session_lock import SessionLocked

#: the response header naming the worker that answered (affinity, debugging)
WORKER_HEADER = "X-Hermes-Worker"


def new_worker_id() -> str:
    """`host:pid:random` - unique across the fleet, readable in /health and logs."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


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


def use_database_url(url: str | None) -> None:
    """`hermes gateway --database-url URL`: the store opener (frontend/setup.py) reads
    HERMES_DATABASE_URL, so the flag sets it for this process (it wins over the
    environment and config.yaml). A URL this build cannot open is one clear line."""
    if url is None:
        return
    from agent.errors import ConfigError
    from memory.db import is_postgres_url
    from memory.redact import redact_url

    if not is_postgres_url(url):
        raise ConfigError(f"--database-url must be a postgresql:// URL, got {redact_url(url)!r}",
                          "write it as postgresql://USER:PASSWORD@HOST:5432/DATABASE, or drop "
                          "it to keep the sessions in HERMES_HOME/state.db")
    os.environ["HERMES_DATABASE_URL"] = url
