"""The gateway's scheduler: one asyncio task per worker that sleeps until the next job
is due (or a delivery retry, or MAX_SLEEP for jobs other processes added), claims what
is due (agent.cron.due: one claim per fire across every worker, missed fires collapsed),
and runs each claim in a worker thread (frontend/cron/run.py), then delivers.

Idle, it wakes every MAX_SLEEP seconds for one indexed query; nothing polls faster.
Every BEAT seconds it renews its lease row `cron-scheduler:WORKER` (memory/cron.py), how
`hermes cron status`, `add` and `list` know that a scheduler runs for this home.
`clock` (epoch seconds) is the scheduler's only notion of now: tests replace it and
call `wake()` instead of waiting for a minute to pass (in-process), or point
HERMES_CRON_CLOCK_FILE at a file holding the time (worker processes:
gateway/cron/boot.py; a test hook, then the wakeup is 0.2 s).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import Callable
from typing import Any

from agent.cancel import CancelToken
from agent.cron.due import claim_due
from gateway.cron.deliver import Deliverer, attempt, next_retry, pending
from memory.cron import BEAT, Claim, CronStore

MAX_SLEEP = 5.0  # s: how late a job another process added may be noticed


class Scheduler:
    """Runs due jobs inside the gateway's event loop (see the module docstring)."""

    def __init__(self, settings: Any, store: Any, worker: str, deliverer: Deliverer, *,  # noqa: PLR0913
                 lend: Any = None, clock: Callable[[], float] = time.time,
                 max_sleep: float = MAX_SLEEP,
                 admit: Callable[[str], str | None] | None = None) -> None:
        self.settings = settings
        self.store = store
        self.cron = CronStore(store.handle)
        self.worker = worker
        self.deliverer = deliverer
        self.lend = lend
        # a tenant's job passes its owner's daily spend and rate limits, as its sessions
        # do (gateway/ratelimit.py admission): owner -> why not now, or None (counted)
        self.admit = admit
        self.clock = clock
        self.max_sleep = max_sleep
        self.ticks = 0  # loop iterations (tests and the idle measurement read it)
        self.running: set[asyncio.Task[None]] = set()
        self._cancel = CancelToken()
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None
        self._beat = 0.0  # when this worker last said in the store that it schedules

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        self._task = asyncio.create_task(self._main(), name="hermes-cron")

    def wake(self) -> None:
        """Look at the jobs now (thread-safe): a job was added, or the clock moved."""
        if self._loop is not None and self._wake is not None:
            self._loop.call_soon_threadsafe(self._wake.set)

    async def stop(self, timeout: float = 10.0) -> None:
        self._cancel.cancel()  # running turns end at their next step
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self.running:
            await asyncio.wait(self.running, timeout=timeout)
        await self.deliverer.close()
        with contextlib.suppress(Exception):  # a store already gone: the lease expires
            await asyncio.to_thread(self.cron.rest, self.worker)

    async def _main(self) -> None:
        assert self._wake is not None
        while True:
            try:
                delay = await self.tick()
            except Exception as exc:  # noqa: BLE001 - the store hiccuped: try again later
                sys.stderr.write(f"hermes: warning: cron: {exc}\n")
                delay = self.max_sleep
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=delay)
            self._wake.clear()

    async def tick(self) -> float:
        """Claim and start what is due, retry waiting deliveries; the seconds to sleep."""
        self.ticks += 1
        now = self.clock()
        if time.time() - self._beat >= BEAT:  # `hermes cron status` reads it (memory/cron.py)
            await asyncio.to_thread(self.cron.beat, self.worker)
            self._beat = time.time()
        claims = await asyncio.to_thread(claim_due, self.cron, now, self.worker)
        for claim in claims:
            task = asyncio.create_task(self._run(claim, now))
            self.running.add(task)
            task.add_done_callback(self.running.discard)
        for run in await asyncio.to_thread(pending, self.cron, now):
            if not any(t.get_name() == f"run-{run['id']}" for t in self.running):
                await attempt(self.deliverer, self.cron, run)
        due = await asyncio.to_thread(self.cron.next_due)
        retry = await asyncio.to_thread(next_retry, self.cron)
        soonest = min((t for t in (due, retry) if t is not None), default=now + self.max_sleep)
        return max(0.05, min(self.max_sleep, soonest - self.clock()))

    async def _run(self, claim: Claim, now: float) -> None:
        from frontend.cron.run import run

        asyncio.current_task().set_name(f"run-{claim.run_id}")  # type: ignore[union-attr]
        owner = claim.job.owner
        refused = None if owner is None or self.admit is None else \
            await asyncio.to_thread(self.admit, owner)
        if refused is not None:  # one recorded skip, no model call
            await asyncio.to_thread(self.cron.finish, claim.run_id, claim.job.id, "skipped",
                                    error=f"its owner's limit: {refused}")
            return
        try:
            result = await asyncio.to_thread(run, self.settings, self.store, claim, now,
                                             self.lend, self._cancel)
        except Exception as exc:  # noqa: BLE001 - one job's bug must not stop the others
            self.cron.finish(claim.run_id, claim.job.id, "error", error=f"{type(exc).__name__}: {exc}")
            return
        if result.status == "ok":
            runs = await asyncio.to_thread(self.cron.runs, claim.job.id, 5)
            row = next((r for r in runs if int(r["id"]) == claim.run_id), None)
            if row is not None:
                await attempt(self.deliverer, self.cron,
                              {**row, "job_name": claim.job.name, "job_tz": claim.job.tz,
                               "job_owner": claim.job.owner})
        self.wake()
