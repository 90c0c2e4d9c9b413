"""Replies are never lost: what a platform did not accept goes to the delivery ledger
(memory/outbox.py, in the store) and is sent again when the platform is connected -
after a reconnect, a restart, or on another worker - exactly once (each row claimed by
one UPDATE before it is sent).

- A reply whose final text the platform refused (`ChatHub._turn`: `Reply.finish`
  raised) is kept for its chat and thread: whole, or the pieces not taken when the
  platform took the first ones (`Undelivered.rest`).
- A job's answer the running adapter refused (gateway/cron/deliver.py) is kept as
  well; the run records that the ledger holds it.
- `replay(adapter)` sends the platform's waiting rows through `adapter.deliver`; the
  first one refused again stops the round (the platform still refuses: later rows wait
  with it, in order), keeping only its pieces the platform did not take (kit/pieces.py). The hub looks every `every` seconds and replays each connected
  adapter: at once after a start or restart, within `every` of a reconnect. A row
  refused MAX_ATTEMPTS times (a chat the bot left) stays in the table with its error.

Messages users sent while the gateway was down are the platform's to keep: Telegram's
getUpdates holds them (24 h) and the first poll answers them; Slack's Socket Mode and
Discord's websocket do not replay them (`PlatformFacts.replays`).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from typing import TYPE_CHECKING, Any

import anyio

from gateway.chat.base import Undelivered

if TYPE_CHECKING:
    from memory.outbox import Outbox

EVERY = 10.0  # s between looks at the adapters (a reconnect, rows waiting)
STOP_GRACE = 5.0  # s a stop waits for the row being sent (then cancels: its claim goes stale)


class Ledger:
    """The hub's side of the ledger (see the module docstring)."""

    def __init__(self, outbox: Outbox | None, every: float = EVERY) -> None:
        self.outbox = outbox
        self.every = every
        self.replayed = 0  # rows sent again (for status and tests)
        self._task: asyncio.Task[None] | None = None
        self._stopping = asyncio.Event()  # set by `stop`: no new row is claimed

    async def keep(self, platform: str, chat: str, text: str, *, thread: object = None,
                   kind: str = "reply", error: str = "") -> bool:
        """Keep a message the platform refused; False when there is no store."""
        if self.outbox is None:
            return False
        await anyio.to_thread.run_sync(lambda: self.outbox.keep(  # type: ignore[union-attr]
            platform, chat, text, thread=None if thread is None else str(thread), kind=kind,
            error=error or None))
        return True

    async def replay(self, adapter: Any) -> int:
        """Send the platform's waiting rows through `adapter.deliver`; how many went."""
        outbox = self.outbox
        deliver = getattr(adapter, "deliver", None)
        if outbox is None or deliver is None:
            return 0
        sent = 0
        for row in await anyio.to_thread.run_sync(outbox.waiting, adapter.name):
            if self._stopping.is_set():
                break  # a claim now would outlive the stop and hide the row for STALE
            if not await anyio.to_thread.run_sync(outbox.claim, row):
                continue  # another worker sends this one
            try:
                if row["thread"] is None:
                    await deliver(row["chat"], row["text"])
                else:
                    await deliver(row["chat"], row["text"], thread=row["thread"])
            except (Undelivered, Exception) as exc:  # noqa: BLE001 - kept, tried again later
                rest = exc.rest if isinstance(exc, Undelivered) else None  # what it did not take
                await anyio.to_thread.run_sync(outbox.failed, int(row["id"]), str(exc), rest)
                break
            await anyio.to_thread.run_sync(outbox.sent, int(row["id"]))
            sent += 1
        self.replayed += sent
        return sent

    def watch(self, adapters: list[Any]) -> None:
        """Replay each adapter now and whenever it is connected again (a task)."""
        if self.outbox is not None and self._task is None:
            self._stopping.clear()
            self._task = asyncio.create_task(self._watch(adapters))

    async def _watch(self, adapters: list[Any]) -> None:
        while not self._stopping.is_set():
            for adapter in adapters:
                if not adapter.connected:
                    continue  # a reconnect is seen at the next round
                try:
                    await self.replay(adapter)
                except Exception as exc:  # noqa: BLE001 - the store is away: next round
                    sys.stderr.write(f"hermes: warning: {adapter.name}: ledger: {exc}\n")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), self.every)

    async def stop(self) -> None:
        """Claim no more rows, let the one being sent finish (STOP_GRACE at most: a
        cancelled send leaves its claim, taken again after STALE), then end."""
        self._stopping.set()
        if self._task is not None:
            with contextlib.suppress(TimeoutError, asyncio.CancelledError, Exception):
                await asyncio.wait_for(asyncio.shield(self._task), STOP_GRACE)
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            self._task = None
