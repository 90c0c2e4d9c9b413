"""Starting the scheduler with `hermes gateway` (with the HTTP API: in the app's
lifespan, inside the chat platforms' so that a Telegram delivery finds the adapter
running; with --no-api: beside the chat platforms)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from gateway.cron.deliver import Deliverer
from gateway.cron.scheduler import Scheduler

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from gateway.sessions import Gateway


def scheduler_for(settings: Any, gateway: Gateway, hub: Any = None) -> Scheduler:
    """The worker's scheduler; `hub`: the running chats (gateway.chat.hub.ChatHub)."""

    def telegram() -> Any:
        return next((a for a in (hub.adapters if hub is not None else ())
                     if a.name == "telegram"), None)

    deliverer = Deliverer(settings, gateway.routes.handle, telegram)
    return Scheduler(settings, gateway.store, gateway.fleet.worker_id, deliverer,
                     lend=gateway.providers.lend)


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
