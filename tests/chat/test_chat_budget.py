"""ChatBudget: one per-chat token bucket for sends and edits (fast tier: a fake clock,
no sleeps - the budget's waits advance the clock)."""

from __future__ import annotations

import asyncio

import pytest

from gateway.chat.budget import PRUNE_AT, ChatBudget
from tests.fakes import FakeClock


def budget(rate: float = 1.0, burst: int = 3) -> tuple[ChatBudget, FakeClock, list[float]]:
    clock = FakeClock()
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        clock.advance(seconds)

    return ChatBudget(rate, burst, clock.now, sleep=sleep), clock, waits


def run(coro):  # noqa: ANN001, ANN201 - a small helper for the coroutines below
    return asyncio.run(coro)


def test_sends_spend_the_burst_then_wait_for_the_refill():
    chats, clock, waits = budget(rate=2.0, burst=3)

    async def five() -> list[float]:
        times = []
        for _ in range(5):
            await chats.send("c1")
            times.append(clock.now())
        return times

    assert run(five()) == [0.0, 0.0, 0.0, 0.5, 1.0]
    assert waits == [0.5, 0.5]


def test_interim_edits_are_skipped_when_the_bucket_is_empty_but_sends_still_go():
    chats, clock, _ = budget(rate=1.0, burst=2)
    assert chats.try_edit("c1") and chats.try_edit("c1")
    assert not chats.try_edit("c1")  # under pressure: skipped, not queued
    assert chats.skipped == 1
    run(chats.send("c1"))  # the final text waits for its token instead
    assert clock.now() == pytest.approx(1.0)
    assert not chats.try_edit("c1")
    clock.advance(1.0)
    assert chats.try_edit("c1")


def test_chats_have_their_own_buckets():
    chats, clock, _ = budget(rate=1.0, burst=1)
    assert chats.try_edit("a")
    assert not chats.try_edit("a")
    assert chats.try_edit("b")
    run(chats.send("c"))
    assert clock.now() == 0.0


def test_a_hold_blocks_sends_and_edits_of_that_chat_for_retry_after():
    chats, clock, waits = budget(rate=5.0, burst=5)
    chats.hold("c1", 2.5)
    assert chats.holds == 1
    assert not chats.try_edit("c1")
    assert chats.try_edit("other")
    run(chats.send("c1"))
    assert clock.now() == pytest.approx(2.5) and waits == [pytest.approx(2.5)]
    # the platform's window starts over: one token now, the rest refill at the rate
    assert not chats.try_edit("c1")
    clock.advance(0.2)
    assert chats.try_edit("c1")


def test_a_shorter_hold_never_shortens_a_longer_one():
    chats, clock, _ = budget()
    chats.hold("c1", 3.0)
    chats.hold("c1", 1.0)
    clock.advance(2.0)
    assert chats.wait_time("c1") == pytest.approx(1.0)


def test_concurrent_senders_of_one_chat_never_exceed_the_rate():
    chats, clock, _ = budget(rate=1.0, burst=2)
    times: list[float] = []

    async def one() -> None:
        await chats.send("c1")
        times.append(clock.now())

    async def many() -> None:
        await asyncio.gather(*(one() for _ in range(6)))

    run(many())
    times.sort()
    assert len(times) == 6
    # any window of length w holds at most burst + rate * w sends
    for i, start in enumerate(times):
        for j in range(i, len(times)):
            assert j - i + 1 <= 2 + 1.0 * (times[j] - start) + 1e-9


def test_idle_chats_are_forgotten_and_a_forgotten_chat_starts_full():
    chats, clock, _ = budget(rate=1.0, burst=2)
    for n in range(PRUNE_AT):
        chats.try_edit(f"chat{n}")
    chats.hold("held", 100.0)
    clock.advance(5.0)
    chats.try_edit("new")
    assert len(chats._chats) == 2  # "held" (its hold is pending) and "new"
    assert chats.try_edit("chat1") and chats.try_edit("chat1")
    assert not chats.try_edit("held")


def test_a_budget_needs_a_positive_rate_and_burst():
    with pytest.raises(ValueError, match="rate_per_s"):
        ChatBudget(0, 1)
    with pytest.raises(ValueError, match="burst"):
        ChatBudget(1.0, 0)
