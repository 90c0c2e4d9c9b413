"""BudgetedWriter: every write of an adapter to a chat goes through the chat's budget
(gateway/chat/budget.py) and a 429 is waited out - one loop for every platform.

`write(chat, call)`: a send waits for the chat's token (`budget.send`), an interim write
(`interim=True`: a streamed edit or append) takes one only if it is there now and is
skipped (None) otherwise. When the call fails and `retry_after(exc)` names a wait (the
platform's 429), the chat is held for it (`budget.hold`: later sends wait, edits are
skipped) and the call is made again, up to `retries` times; an interim write is not
repeated. A write to no chat (`chat` None: a download, a menu) spends nothing and just
sleeps out a 429. Any other failure is the caller's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from gateway.chat.budget import ChatBudget

T = TypeVar("T")
RETRIES = 5


class BudgetedWriter:
    """Writes through the per-chat budget (see the module docstring)."""

    def __init__(self, budget_of: Callable[[str], ChatBudget],
                 retry_after: Callable[[BaseException], float | None],
                 retries: int = RETRIES) -> None:
        self.budget_of = budget_of
        self.retry_after = retry_after
        self.retries = retries
        self.limited = 0  # 429s met

    async def write(self, chat: str | None, call: Callable[[], Awaitable[T]], *,
                    interim: bool = False) -> T | None:
        for attempt in range(self.retries + 1):
            budget = self.budget_of(chat) if chat is not None else None
            if budget is not None and chat is not None:
                if interim:
                    if not budget.try_edit(chat):
                        return None
                else:
                    await budget.send(chat)
            try:
                return await call()
            except Exception as exc:
                wait = self.retry_after(exc)
                if wait is None or attempt == self.retries:
                    raise
                self.limited += 1
                if budget is None or chat is None:
                    await asyncio.sleep(wait)
                    continue
                budget.hold(chat, wait)
                if interim:
                    return None
        raise AssertionError("unreachable")
