"""An in-memory chat platform: the smallest adapter, proving the interface (tests and
the bench drive it; a Slack or Discord adapter has the same shape).

`say` delivers a message as the platform would; everything the hub renders is appended
to `outbox` as (chat_id, kind, text) with kind "typing" | "update" | "final" | "notice"
| "delivery" (a job's answer or a kept reply sent again). While `refusing` is set the
platform refuses final texts and deliveries (Undelivered), as a platform that is down.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from gateway.chat.base import Document, Hub, Inbound, Undelivered

T = TypeVar("T")


class ConsoleAdapter:
    name = "console"

    def __init__(self) -> None:
        self.connected = False
        self.hub: Hub | None = None
        self.outbox: list[tuple[str, str, str]] = []
        self.commands: list[tuple[str, str]] = []
        self.files: dict[str, bytes] = {}  # file_id -> content, for documents sent
        self.changed = asyncio.Event()
        self.refusing = False

    async def start(self, hub: Hub) -> None:
        self.hub = hub
        self.connected = True

    async def stop(self) -> None:
        self.connected = False

    async def say(self, chat_id: str, user_id: str, text: str, **fields: Any) -> None:
        assert self.hub is not None, "start() first"
        await self.hub.handle(self, Inbound(self.name, chat_id, user_id, text, **fields))

    def reply(self, msg: Inbound) -> ConsoleReply:
        return ConsoleReply(self, msg.chat_id)

    async def notify(self, msg: Inbound, text: str) -> None:
        self.record(msg.chat_id, "notice", text)

    async def register_commands(self, commands: list[tuple[str, str]]) -> None:
        self.commands = list(commands)

    async def download(self, doc: Document) -> bytes:
        return self.files[doc.file_id]

    async def deliver(self, chat: str, text: str, thread: str | None = None) -> None:
        if self.refusing:
            raise Undelivered(f"{self.name}: refused")
        self.record(chat, "delivery", text)

    def record(self, chat_id: str, kind: str, text: str) -> None:
        self.outbox.append((chat_id, kind, text))
        self.changed.set()

    def of(self, chat_id: str, *kinds: str) -> list[str]:
        return [t for c, k, t in self.outbox if c == chat_id and (not kinds or k in kinds)]

    async def wait(self, condition: Callable[[], T], timeout: float = 15.0) -> T:
        """Wait (deadline `timeout` s) until `condition()` is truthy; returns its value."""
        async with asyncio.timeout(timeout):
            while not (value := condition()):
                self.changed.clear()
                await self.changed.wait()
        return value


class ConsoleReply:
    def __init__(self, adapter: ConsoleAdapter, chat_id: str) -> None:
        self.adapter = adapter
        self.chat_id = chat_id

    async def typing(self) -> None:
        self.adapter.record(self.chat_id, "typing", "")

    async def update(self, text: str) -> None:
        self.adapter.record(self.chat_id, "update", text)

    async def finish(self, text: str) -> None:
        if self.adapter.refusing:
            raise Undelivered(f"{self.adapter.name}: refused")
        self.adapter.record(self.chat_id, "final", text)
