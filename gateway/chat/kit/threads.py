"""Whether a thread is a session the gateway stored: a thread the bot answered in before a
restart or on the former leader, answered again without a mention (Slack, Matrix)."""

from __future__ import annotations

import asyncio
from typing import Any

from gateway.chat.base import ChatPolicy, Inbound, session_of


async def stored_thread(hub: Any, msg: Inbound) -> bool:
    """True when `msg`'s thread has a route in the store: one read of the route table
    (gateway/routes.py) through the hub's Gateway, no platform call."""
    gateway = getattr(hub, "gateway", None)  # the ChatHub's Gateway
    if gateway is None:
        return False
    owner, name = session_of(msg, ChatPolicy())
    try:
        route = await asyncio.to_thread(gateway.routes.get, owner, name)
    except Exception:  # noqa: BLE001 - the store is down: such a message waits for a mention
        return False
    return route.session_id is not None
