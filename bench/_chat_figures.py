"""What the chat-platform benches (bench/discord_chat.py, bench/slack_chat.py) share: the
paced phase (short DMs, 2 s apart, first-text latency and cache reads) and the lines that
report it and the burst."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from tests.fakes import FakeProvider, Reply

PAUSE = 2.0  # s between a paced message and the previous answer


def paced(fake: FakeProvider, messages: int, send: Callable[[str], None],
          wait_turns: Callable[[int], None], first_text: Callable[[float], float],
          ) -> tuple[list[float], list[float]]:
    """`messages` short DMs through `send`: (first-text latencies, cache reads from the
    second request on, as cache_read / prompt tokens)."""
    latencies: list[float] = []
    fake.responder = lambda rec: Reply(f"short answer {len(fake.requests)}")
    for turn in range(messages):
        since = time.monotonic()
        send(f"message {turn}: say ok")
        wait_turns(turn + 1)
        latencies.append(first_text(since))
        time.sleep(PAUSE)
    reads = [r.cache_read / r.prompt_tokens for r in fake.requests_for("anthropic")[1:]]
    return latencies, reads


def report(messages: int, latencies: list[float], reads: list[float], limited: int,
           answers: int, burst_s: float) -> None:
    """The paced and burst figures, one line each."""
    print(f"paced DM, {messages} messages: first text p50 "
          f"{statistics.median(latencies) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms")
    print(f"reads from the 2nd message: min {min(reads):.3f}, median "
          f"{statistics.median(reads):.3f} ({len(reads)} requests)")
    print(f"burst of 20 in one DM: {limited} 429s, {answers} answers in {burst_s:.1f} s")
