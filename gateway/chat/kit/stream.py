"""EditStream: an answer streamed by editing one message - the one algorithm of every
platform that streams by edits (Telegram, Discord; Slack streams natively).

- Nothing is shown before one `interval` into the turn: a quick answer arrives whole,
  in one message, while the typing indicator says the bot works.
- Then the text so far is posted, and edited in place at most once per `interval`,
  each edit taking a token of the chat's budget if one is there now (`try_edit`): under
  pressure an interim edit is skipped, never the final text. Text longer than the
  platform's `limit` shows its first part and " …" (gateway/chat/text.py `preview`). A failed interim edit is harmless
  (`errors`: the platform's exceptions; `on_error` sees each, e.g. a 429 to hold).
- `finish`: the final text, split within the limit (`split`); its first piece replaces
  the streamed message (`final_edit`; skipped when `skip_unchanged` and it shows that
  text already; at most once per `interval` when `paced`), the rest are new messages
  (`final_send`). The adapter's writers spend the budget and wait out 429s.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from gateway.chat.budget import ChatBudget
from gateway.chat.text import preview


@dataclass
class EditStream:
    """One streamed answer (see the module docstring); `post(text)` sends the first
    message and returns what `edit(handle, text)` edits."""

    budget: ChatBudget
    chat: str
    interval: float
    limit: int
    split: Callable[[str, int], list[str]]
    post: Callable[[str], Awaitable[Any]]
    edit: Callable[[Any, str], Awaitable[object]]
    final_edit: Callable[[Any, str], Awaitable[object]]
    final_send: Callable[[str], Awaitable[object]]
    errors: tuple[type[BaseException], ...] = ()
    on_error: Callable[[BaseException], None] = lambda _exc: None
    skip_unchanged: bool = True
    paced: bool = True
    handle: Any = None
    shown: str = ""
    next_edit: float = field(default=0.0)

    def __post_init__(self) -> None:
        self.next_edit = time.monotonic() + self.interval  # a quick answer arrives whole

    async def update(self, text: str) -> None:
        now = time.monotonic()
        if now < self.next_edit:
            return
        shown = preview(text, self.limit)
        if shown.strip() == self.shown.strip():
            return
        if not self.budget.try_edit(self.chat):
            return  # under pressure: this interim edit is skipped (the final text is not)
        self.next_edit = now + self.interval
        try:
            if self.handle is None:
                self.handle = await self.post(shown)
            else:
                await self.edit(self.handle, shown)
            self.shown = shown
        except self.errors as exc:  # a lost partial edit is harmless: the final text follows
            self.on_error(exc)

    async def finish(self, text: str) -> None:
        pieces = self.split(text, self.limit) or ["(no answer)"]
        for index, piece in enumerate(pieces):
            if index > 0 or self.handle is None:
                await self.final_send(piece)
                continue
            if self.skip_unchanged and piece.strip() == self.shown.strip():
                continue
            wait = self.next_edit - time.monotonic()
            if self.paced and wait > 0:  # edits of one message: never more often than interval
                await asyncio.sleep(wait)
            await self.final_edit(self.handle, piece)
