"""The one bridge from a turn's worker thread to an asyncio front end.

The agent's generator is blocking (SDK streams), so asyncio front ends (the gateway's
HTTP API, its chat platforms) run the turn in a worker thread and receive its events
here: `sink` is called from the thread, the items arrive in order on `queue`, and
`END` follows the last one when the turn's task is done (whatever way it ended).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine
from typing import Any

END = object()  # put after the task's last item


class EventBridge:
    """A thread -> event-loop queue for one turn; make it on the loop's thread."""

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.queue: asyncio.Queue[Any] = asyncio.Queue()

    def sink(self, item: object) -> None:
        """Hand `item` to the loop (from any thread)."""
        with contextlib.suppress(RuntimeError):  # the loop closed at shutdown
            self.loop.call_soon_threadsafe(self.queue.put_nowait, item)

    def start(self, work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
        """Run `work` (which feeds `sink`) as a task; `END` follows its last item."""
        task = asyncio.create_task(work)
        task.add_done_callback(lambda _t: self.queue.put_nowait(END))
        return task

    async def batch(self) -> list[object]:
        """The next item and every one already waiting (a renderer's frame)."""
        items = [await self.queue.get()]
        while not self.queue.empty():
            items.append(self.queue.get_nowait())
        return items
