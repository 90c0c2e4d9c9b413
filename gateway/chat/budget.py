"""ChatBudget: the one per-chat rate budget of every chat platform.

Each platform limits how often a bot may write to one chat (Telegram: about one message
per second in a private chat, 20 a minute in a group; Discord: 5 per 5 s per channel;
Slack: about one a second per channel, `chat.update` ~50 a minute). Streaming an answer
by editing a message spends the same allowance as sending one, so sends and edits of a
chat draw from one token bucket per chat:

- `send(chat)` waits for a token: a new message, a notice, the final text of an answer
  (never skipped, only delayed);
- `try_edit(chat)` takes a token if one is there now and says False otherwise: an
  interim edit of a streamed answer is skipped under pressure (the final text follows);
- `hold(chat, retry_after)`: the platform answered 429; nothing is written to that chat
  until `retry_after` seconds have passed (sends wait, edits are skipped).

The bucket holds at most `burst` tokens and refills at `rate_per_s`. Time comes from
`clock` and waiting from `sleep`, so the fast tests drive both with a fake clock.
A chat's entry is forgotten once its bucket is full again and no hold is pending (an
untouched chat and a forgotten one behave alike), so the table stays small.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

PRUNE_AT = 1024  # entries before idle chats are forgotten


@dataclass
class _Bucket:
    tokens: float
    stamp: float  # clock time `tokens` was computed at
    held_until: float = 0.0


class ChatBudget:
    """Per-chat token buckets shared by sends and edits (see the module docstring)."""

    def __init__(self, rate_per_s: float, burst: int,
                 clock: Callable[[], float] = time.monotonic, *,
                 sleep: Callable[[float], Awaitable[object]] = asyncio.sleep) -> None:
        if rate_per_s <= 0 or burst < 1:
            raise ValueError("ChatBudget needs rate_per_s > 0 and burst >= 1")
        self.rate = rate_per_s
        self.burst = burst
        self.clock = clock
        self.sleep = sleep
        self.holds = 0  # 429s recorded (for status and tests)
        self.skipped = 0  # interim edits skipped
        self._chats: dict[str, _Bucket] = {}

    def _bucket(self, chat: str, now: float) -> _Bucket:
        bucket = self._chats.get(chat)
        if bucket is None:
            if len(self._chats) >= PRUNE_AT:
                self._prune(now)
            bucket = self._chats[chat] = _Bucket(float(self.burst), now)
        elif now > bucket.stamp:
            bucket.tokens = min(float(self.burst), bucket.tokens + (now - bucket.stamp) * self.rate)
            bucket.stamp = now
        return bucket

    def _prune(self, now: float) -> None:
        for chat, bucket in list(self._chats.items()):
            full = bucket.tokens + (now - bucket.stamp) * self.rate >= self.burst
            if full and bucket.held_until <= now:
                del self._chats[chat]

    def wait_time(self, chat: str) -> float:
        """Seconds until `chat` has a token and no hold (0: one may be taken now)."""
        now = self.clock()
        bucket = self._bucket(chat, now)
        held = max(0.0, bucket.held_until - now)
        short = max(0.0, (1.0 - bucket.tokens) / self.rate)
        return max(held, short)

    async def send(self, chat: str) -> None:
        """Wait until `chat` may be written to, then take its token."""
        while True:
            wait = self.wait_time(chat)
            if wait <= 0:
                self._chats[chat].tokens -= 1.0
                return
            await self.sleep(wait)

    def try_edit(self, chat: str) -> bool:
        """Take a token for an interim edit if one is there now; False: skip the edit."""
        if self.wait_time(chat) > 0:
            self.skipped += 1
            return False
        self._chats[chat].tokens -= 1.0
        return True

    def hold(self, chat: str, retry_after: float) -> None:
        """The platform said 429 for `chat`: nothing there for `retry_after` seconds;
        then one token, refilling from there (the platform's window starts over)."""
        now = self.clock()
        bucket = self._bucket(chat, now)
        self.holds += 1
        bucket.held_until = max(bucket.held_until, now + max(0.0, retry_after))
        bucket.tokens = 1.0
        bucket.stamp = max(bucket.stamp, bucket.held_until)  # no refill during the hold
