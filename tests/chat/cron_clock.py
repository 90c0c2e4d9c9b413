"""Driving a running gateway's scheduler in tests: its injectable clock (no test waits
for a real minute) and what the store says of a job's runs."""

from __future__ import annotations

import time
from typing import Any

from memory import open_store
from memory.cron import CronStore


class Clock:
    """The scheduler's "now", ten days ahead of the real clock; tests move it."""

    def __init__(self) -> None:
        self.now = (int(time.time()) // 60 + 10 * 24 * 60) * 60 + 5  # ten days ahead

    def __call__(self) -> float:
        return self.now


def drive(server: Any, clock: Clock) -> Any:
    """The server's scheduler on `clock`, woken; returns it."""
    scheduler = server.server.config.app.state.cron
    scheduler.clock = clock
    scheduler.wake()
    return scheduler


def runs(home: Any, name: str) -> list[dict]:
    with open_store(home, None) as store:
        cron = CronStore(store.handle)
        job = cron.get(name)
        return [] if job is None else cron.runs(job.id)


def finished(home: Any, names: tuple[str, ...], count: int) -> bool:
    """Each job in `names` has `count` runs or more, none running, each ok one delivered."""
    for name in names:
        done = runs(home, name)
        if len(done) < count or any(r["status"] == "running" or
                                    (r["status"] == "ok" and not r["delivered"]) for r in done):
            return False
    return True
