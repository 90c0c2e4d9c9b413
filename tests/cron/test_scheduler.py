"""The gateway's scheduler on a fake clock (in-process, no sockets): a relative time
fires on time within the scheduler's tick (`in 1m` fired 1 min 52 s later)."""

from __future__ import annotations

import asyncio

from agent.cron.due import claim_due
from frontend.cron.jobs import JobSpec, create
from gateway.cron.deliver import Deliverer
from gateway.cron.scheduler import MAX_SLEEP, Scheduler

T0 = 1_796_000_040  # a whole minute (UTC)


class FakeClock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def _scheduler(home, clock: FakeClock) -> Scheduler:
    settings = home.settings()
    return Scheduler(settings, home.store, "w1", Deliverer(settings, None, lambda _p: None),
                     clock=clock)


def test_in_one_minute_fires_one_minute_later_within_a_tick(home, tmp_path):
    made = T0 + 8.4  # eight seconds into a minute: the store used to round up to the next
    job = create(home.settings(), home.cron, JobSpec("in 1m", "stretch", "none", "soon",
                                                     tz="UTC"), cwd=tmp_path, now=made)
    assert job.next_run == T0 + 69  # 60 s after, rounded up to the second, never early
    assert job.schedule == "at 2026-11-30 00:55:09"  # the second is part of what is stored
    clock = FakeClock(made)
    scheduler = _scheduler(home, clock)
    delay = asyncio.run(scheduler.tick())
    assert MAX_SLEEP <= 10 and delay <= MAX_SLEEP  # a job added elsewhere is seen within a tick
    clock.now = T0 + 68.9
    assert claim_due(home.cron, clock.now, "w1") == []  # never early
    assert [c.due for c in claim_due(home.cron, T0 + 69.2, "w1")] == [T0 + 69]


def test_status_says_whether_a_scheduler_runs_and_each_jobs_last_run(home, tmp_path):
    """The scheduler keeps a lease row in the store while it runs."""
    from frontend.cron import listing

    job = create(home.settings(), home.cron, JobSpec("every 1h", "p", "none", "hourly",
                                                     tz="UTC"), cwd=tmp_path, now=T0)
    shown = listing.status(home.cron, T0)
    assert shown.startswith("scheduler: none") and "hermes gateway" in shown
    assert "hourly  2026-" in shown and "never ran" in shown
    claim = home.cron.claim(job, job.next_run, job.next_run + 3600, "w1", T0 + 3600)
    home.cron.finish(claim.run_id, job.id, "skipped", error="daily cap reached: $5 of $5")
    clock = FakeClock(T0)
    scheduler = _scheduler(home, clock)

    async def one_tick_then_stop() -> tuple[str | None, str | None]:
        await scheduler.tick()
        running = listing.scheduler(home.cron)
        await scheduler.stop()
        return running, listing.scheduler(home.cron)

    running, stopped = asyncio.run(one_tick_then_stop())
    assert running is not None and "w1" in running and stopped is None
    after = listing.status(home.cron, T0)
    assert "skipped: daily cap reached" in after and "next fires:" in after
