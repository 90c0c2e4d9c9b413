"""Backoff: how every adapter's connection loop waits after a failed connect or poll -
`first` seconds, doubling up to `most`, back to `first` once a connection works.

The loops themselves (Telegram's long poll, Slack's socket keeper, Discord's websocket
runner) hold the connection only while the worker holds the platform's lease
(gateway/chat/leader.py) and wait here when the platform or the network fails."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field


@dataclass
class Backoff:
    first: float = 1.0
    most: float = 30.0
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep
    delay: float = field(init=False)

    def __post_init__(self) -> None:
        self.delay = self.first

    def reset(self) -> None:
        """The connection works: the next failure waits `first` again."""
        self.delay = self.first

    async def wait(self) -> None:
        """Wait the current delay, and double the next one (up to `most`)."""
        delay, self.delay = self.delay, min(self.delay * 2, self.most)
        await self.sleep(delay)
