"""Delivering a run's answer to its target (agent/cron/targets.py says which exist).

A delivery is attempted by the worker that ran the job, then retried by any worker's
sweep (`pending`): each attempt is claimed by bumping `attempts` from the value read
(one statement, like a fire's claim), so two workers never send one answer twice. After
MAX_ATTEMPTS the run stays recorded as undelivered with its error and its text (in
`cron_runs.output`, shown by `hermes cron list --runs`): never lost. An answer the
platform's running adapter refused goes to the chats' delivery ledger
(gateway/chat/kit/ledger.py), which sends it when the platform takes messages again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from agent.cron import files
from agent.cron.targets import foreign
from gateway.chat import platforms
from gateway.chat.base import Delivering, Undelivered
from gateway.chat.kit.ledger import Ledger
from memory.cron import CronStore
from memory.db import Handle, Row

MAX_ATTEMPTS = 5
BACKOFF = (0.0, 5.0, 30.0, 120.0, 600.0)  # seconds after the run before attempt N+1


class DeliveryError(Exception):
    """A delivery that failed (the message is recorded)."""


class Deliverer:
    """Sends answers: files directly, a chat platform's target through the gateway's
    running adapter of that platform (its `deliver`, gateway/chat/base.Delivering;
    without one, its builder's `deliver_alone` where it has one - Telegram: a Bot of its
    own on the configured token), a chat origin through the routes.

    A chat target whose adapter does not run on this worker (the platform is not started
    here, or this worker stands by while another leads and its client is closed) and
    that cannot be sent alone raises DeliveryError: the attempt is recorded and a later
    one, claimed by any worker's sweep (`pending`, BACKOFF), is made where it runs."""

    def __init__(self, settings: Any, routes: Handle | None,
                 adapter: Callable[[str], Delivering | None], ledger: Ledger | None = None) -> None:
        self.settings = settings
        self.ledger = ledger  # what a running adapter refused is kept there (kit/ledger.py)
        self.routes = routes  # the gateway's routes table: a chat owner's chats
        self.adapter = adapter  # platform name -> its running adapter, or None
        self._alone: dict[str, dict[str, Any]] = {}  # platform -> what deliver_alone keeps

    async def send(self, target: str, text: str, job: str, tz: str, when: float, *,  # noqa: PLR0913
                   owner: str | None = None) -> str | None:
        """Deliver `text`; `owner`: the job's chat owner, who reaches only its own chat.
        A note when the answer went to the chats' ledger instead (None: sent)."""
        scheme, _, rest = target.partition(":")
        if scheme == "none" or not text:
            return None
        why = foreign(target, owner) if owner is not None else None
        if why is not None:
            raise DeliveryError(f"refused: {why}")
        if scheme == "file":
            home = getattr(self.settings, "home", None)
            why = None if home is None else files.problem(rest, home, owner)
            if why is not None:
                raise DeliveryError(f"refused: {why}")
            await asyncio.to_thread(files.append, rest, text, job, tz, when)
        elif platforms.find(scheme) is not None:
            return await self._chat(scheme, rest, text)
        elif scheme == "origin":
            chat = await asyncio.to_thread(self._chat_of, rest)
            if chat is not None:  # else an HTTP API client's job: the run history keeps it
                return await self.send(chat, text, job, tz, when)  # the owner's own chat
        else:
            raise DeliveryError(f"{scheme} delivery is not configured in this build")
        return None

    def _chat_of(self, owner: str) -> str | None:
        """The chat of a chat owner (gateway/chat/base.chat_owner: one owner per chat;
        its sessions are named PLATFORM/CHAT[/topic:...]): PLATFORM:CHAT."""
        if self.routes is None:
            return None
        names = platforms.names()
        rows = self.routes.rows(
            "SELECT name FROM routes WHERE owner = ? AND (" +
            " OR ".join("name LIKE ?" for _ in names) + ") ORDER BY name LIMIT 1",
            [owner, *(f"{p}/%" for p in names)])
        if not rows:
            return None
        platform, chat = str(rows[0]["name"]).split("/")[:2]
        return f"{platform}:{chat}"

    async def _chat(self, platform: str, chat: str, text: str) -> str | None:
        adapter = self.adapter(platform)
        facts = platforms.find(platform)
        alone = getattr(platforms.builder(facts), "deliver_alone", None) \
            if adapter is None and facts is not None else None
        try:
            if adapter is not None:
                try:
                    await adapter.deliver(chat, text)
                except Undelivered as exc:  # the platform refused: the ledger sends it later
                    if self.ledger is None or not await self.ledger.keep(
                            platform, chat, exc.rest or text, kind="job", error=str(exc)):
                        raise
                    return (f"{exc}: handed to the chat delivery ledger, sent when {platform} "
                            "takes it again")
            elif alone is not None:
                await alone(self.settings, facts, chat, text, self._alone.setdefault(platform, {}))
            else:
                raise DeliveryError(f"{platform}: its adapter is not running on this worker "
                                    "(is the gateway started with it?); retried later")
        except Undelivered as exc:
            raise DeliveryError(str(exc)) from None
        return None

    async def close(self) -> None:
        for kept in self._alone.values():
            if "close" in kept:
                await kept["close"]()


def take_attempt(handle: Handle, run: Row) -> bool:
    """Claim the next delivery attempt of `run` (False: another worker took it, or the
    attempts are used up)."""
    return handle.execute("UPDATE cron_runs SET attempts = attempts + 1 WHERE id = ? AND attempts = ?"
                          " AND attempts < ? AND delivered = 0",
                          [run["id"], run["attempts"], MAX_ATTEMPTS]) == 1


def pending(cron: CronStore, now: float) -> list[Row]:
    """Runs whose answer waits for a (next) delivery attempt now."""
    rows = cron.handle.rows(
        "SELECT r.*, j.name AS job_name, j.tz AS job_tz, j.owner AS job_owner FROM cron_runs r"
        " JOIN cron_jobs j"
        " ON j.id = r.job_id WHERE r.status = 'ok' AND r.delivered = 0 AND r.delivery IS NOT NULL"
        " AND r.attempts < ? ORDER BY r.id", [MAX_ATTEMPTS])
    return [r for r in rows if (r["finished"] or 0) + BACKOFF[int(r["attempts"])] <= now]


def next_retry(cron: CronStore) -> float | None:
    """When the earliest waiting delivery may be attempted again (None: none waits)."""
    rows = cron.handle.rows("SELECT finished, attempts FROM cron_runs WHERE status = 'ok' AND"
                            " delivered = 0 AND delivery IS NOT NULL AND attempts < ?",
                            [MAX_ATTEMPTS])
    times = [(r["finished"] or 0) + BACKOFF[int(r["attempts"])] for r in rows]
    return min(times) if times else None


async def attempt(deliverer: Deliverer, cron: CronStore, run: Row) -> bool:
    """One claimed attempt at delivering `run`; its outcome recorded. True: delivered."""
    if not await asyncio.to_thread(take_attempt, cron.handle, run):
        return False
    tries = int(run["attempts"]) + 1
    try:
        note = await deliverer.send(run["delivery"], run["output"] or "", run["job_name"],
                                    run["job_tz"], float(run["started"]), owner=run.get("job_owner"))
    except (DeliveryError, OSError, ValueError) as exc:
        last = tries >= MAX_ATTEMPTS
        why = f"delivery to {run['delivery']} failed ({tries}/{MAX_ATTEMPTS}): {exc}"
        await asyncio.to_thread(cron.delivered, int(run["id"]), False, tries,
                                why + ("; the answer is kept in the run history" if last else ""))
        return False
    await asyncio.to_thread(cron.delivered, int(run["id"]), True, tries, note)
    return True
