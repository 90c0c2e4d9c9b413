"""The chat kit's shared parts in process (fast tier: a fake clock, no sockets):
the budgeted writer every adapter writes through, and the connection backoff."""

from __future__ import annotations

import asyncio

import pytest

from gateway.chat.budget import ChatBudget
from gateway.chat.kit.connection import Backoff
from gateway.chat.kit.writer import BudgetedWriter
from tests.fakes import FakeClock


class Limited(Exception):
    def __init__(self, wait: float) -> None:
        self.wait = wait


def _writer(rate: float = 1.0, burst: int = 1) -> tuple[BudgetedWriter, ChatBudget, FakeClock]:
    clock = FakeClock()

    async def sleep(seconds: float) -> None:
        clock.advance(seconds)

    budget = ChatBudget(rate, burst, clock.now, sleep=sleep)
    return BudgetedWriter(lambda _chat: budget, lambda e: e.wait if isinstance(e, Limited) else None), \
        budget, clock


def test_a_429_holds_the_chat_and_the_send_is_made_again_after_it():
    writer, budget, clock = _writer()
    calls: list[float] = []

    async def send() -> str:
        calls.append(clock.now())
        if len(calls) == 1:
            raise Limited(7.0)
        return "sent"

    assert asyncio.run(writer.write("c1", send)) == "sent"
    assert calls == [0.0, 7.0]  # the second call waited out the platform's retry_after
    assert writer.limited == 1 and budget.holds == 1


def test_an_interim_write_is_skipped_under_pressure_and_never_repeated():
    writer, budget, clock = _writer(rate=1.0, burst=1)
    calls: list[str] = []

    async def edit() -> str:
        calls.append("edit")
        raise Limited(3.0)

    assert asyncio.run(writer.write("c1", edit, interim=True)) is None  # 429: not repeated
    assert asyncio.run(writer.write("c1", edit, interim=True)) is None  # held: not even tried
    assert calls == ["edit"] and budget.skipped == 1


def test_another_failure_is_the_callers_and_the_retries_end():
    writer, _budget, _clock = _writer(rate=100.0, burst=10)

    async def broken() -> None:
        raise ValueError("refused")

    async def always_limited() -> None:
        raise Limited(0.1)

    with pytest.raises(ValueError):
        asyncio.run(writer.write("c1", broken))
    with pytest.raises(Limited):
        asyncio.run(writer.write("c1", always_limited))
    assert writer.limited == writer.retries


def test_backoff_doubles_to_its_ceiling_and_starts_over_once_connected():
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    backoff = Backoff(1.0, 5.0, sleep)

    async def fail(times: int) -> None:
        for _ in range(times):
            await backoff.wait()

    asyncio.run(fail(4))
    backoff.reset()
    asyncio.run(fail(1))
    assert waits == [1.0, 2.0, 4.0, 5.0, 1.0]
