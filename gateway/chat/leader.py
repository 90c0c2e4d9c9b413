"""One Telegram poller per bot token across the gateway fleet (docs/SCALEOUT.md).

Telegram gives a bot's updates to one getUpdates caller; two workers polling one token
would fight (409 Conflict) or answer a message twice. So the workers elect a leader
through the database: the lease `telegram:<SHA-256 of the token, 16 hex>` held by one
worker id for `ttl` seconds (`store.lease` through gateway/fleet.py, shared by
every worker). The leader renews it before each long poll (each poll waits at most ttl/3);
standbys try to take it every ttl/4 and so take over within about the TTL after the
leader died (at once after a clean stop: the leader releases it). /health shows each
worker's role.

An update the dead leader received but had not confirmed (its next getUpdates confirms
it) is delivered again to the new leader: at most the last batch, only after a crash.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from gateway.chat.base import Adapter, ChatPolicy

if TYPE_CHECKING:
    from gateway.fleet import Fleet
    from gateway.sessions import Gateway

DEFAULT_TTL = 30.0


def lease_name(platform: str, token: str) -> str:
    """The lease of one bot: the token itself never reaches the database."""
    return f"{platform}:{hashlib.sha256(token.encode()).hexdigest()[:16]}"


class Leadership:
    """This worker's claim on one bot's poller."""

    def __init__(self, fleet: Fleet, name: str, holder: str, ttl: float = DEFAULT_TTL) -> None:
        self.fleet = fleet
        self.name = name
        self.holder = holder
        self.ttl = ttl
        self.role = "standby"
        self.error = ""

    @property
    def poll_cap(self) -> int:
        """The longest long poll (s) that still leaves time to renew the lease."""
        return max(1, int(self.ttl / 3))

    @property
    def retry_s(self) -> float:
        return self.ttl / 4

    async def hold(self) -> bool:
        """Take or renew the lease; True while this worker is the leader. A database
        error makes this worker a standby (it never polls without the lease)."""
        try:
            won = await asyncio.to_thread(self.fleet.lease, self.name, self.holder, self.ttl)
            self.error = ""
        except Exception as exc:  # noqa: BLE001 - a store error: stand by and retry
            won, self.error = False, str(exc)
        self.role = "leader" if won else "standby"
        return won

    async def release(self) -> None:
        if self.role == "leader":
            with contextlib.suppress(Exception):  # else it expires by itself within the TTL
                await asyncio.to_thread(self.fleet.release, self.name, self.holder)
        self.role = "standby"

    def status(self) -> dict[str, str | float]:
        out: dict[str, str | float] = {"role": self.role, "worker": self.holder, "lease_ttl": self.ttl}
        if self.error:
            out["lease_error"] = self.error
        return out


@runtime_checkable
class Polling(Protocol):
    """An adapter that polls its platform with a bot token (Telegram)."""

    name: str
    token: str
    leader_ttl: float
    leadership: Leadership | None


def elect(gateway: Gateway, platforms: list[tuple[Adapter, ChatPolicy]]) -> None:
    """Give each polling adapter a Leadership over the store's leases."""
    fleet = gateway.fleet
    for adapter, _policy in platforms:
        if isinstance(adapter, Polling) and adapter.token:
            adapter.leadership = Leadership(fleet, lease_name(adapter.name, adapter.token),
                                            fleet.worker_id, adapter.leader_ttl)
