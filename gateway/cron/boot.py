"""Starting the scheduler with `hermes gateway` (with the HTTP API: in the app's
lifespan, inside the chat platforms' so that a chat delivery finds its adapter
running; with --no-api: beside the chat platforms)."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gateway.cron.deliver import Deliverer
from gateway.cron.scheduler import Scheduler
from gateway.ratelimit import admission

CLOCK_FILE = "HERMES_CRON_CLOCK_FILE"  # tests only: the scheduler's "now" from a file

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from gateway.sessions import Gateway


def scheduler_for(settings: Any, gateway: Gateway, hub: Any = None) -> Scheduler:
    """The worker's scheduler; `hub`: the running chats (gateway.chat.hub.ChatHub)."""

    def adapter(platform: str) -> Any:
        return next((a for a in (hub.adapters if hub is not None else ())
                     if a.name == platform), None)

    ledger = hub.ledger if hub is not None else None  # the chats' delivery ledger
    deliverer = Deliverer(settings, gateway.routes.handle, adapter, ledger)
    def admit(owner: str) -> str | None:
        refused = admission(gateway, owner)
        return None if refused is None else refused.message

    scheduler = Scheduler(settings, gateway.store, gateway.fleet.worker_id, deliverer,
                          lend=gateway.providers.lend, admit=admit)
    path = os.environ.get(CLOCK_FILE)
    if path:  # tests of worker processes drive the clock through a file
        scheduler.clock, scheduler.max_sleep = file_clock(Path(path)), 0.2
    return scheduler


def file_clock(path: Path) -> Callable[[], float]:
    """Now as the number in `path` says (its absence or garbage: the real clock)."""

    def now() -> float:
        try:
            return float(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return time.time()

    return now


def attach(app: Starlette, gateway: Gateway, settings: Any) -> Scheduler:
    """Run the scheduler inside the app's lifespan; `app.state.cron` is it (tests drive
    its clock and `wake()`)."""
    scheduler = scheduler_for(settings, gateway, getattr(app.state, "chats", None))
    inner = app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(this: object) -> AsyncIterator[None]:
        async with inner(this):
            scheduler.start()
            try:
                yield
            finally:
                await scheduler.stop()  # before the chats and the gateway close

    app.router.lifespan_context = lifespan
    app.state.cron = scheduler
    return scheduler
