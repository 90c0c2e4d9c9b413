"""Which fires a worker runs now: every due job claimed once (memory.cron's claim), its
next run moved past NOW so that fires missed while no gateway ran collapse into one."""

from __future__ import annotations

import math

from agent.cron import off_peak
from agent.cron.cronexpr import ScheduleError
from agent.cron.schedule import Schedule, parse
from memory.cron import Claim, CronStore, Job


def schedule_of(job: Job) -> Schedule:
    """The job's stored schedule (canonical text, read back)."""
    return parse(job.schedule, job.tz, stored=True)


def next_run(job: Job, after: float) -> int | None:
    """The job's first fire strictly after `after`, in whole seconds (None: no more).

    Every form fires on whole seconds: `every` counts from the creation time's whole
    second, cron and one-off times are whole already. A fire stored whole but meant at a
    fraction (an anchor of 12.75 s kept while 12 was stored) would be claimed again at
    each tick until the clock passed the fraction: one fire run many times."""
    try:
        schedule = schedule_of(job)
        when = schedule.next_after(after, anchor=float(int(job.created)))
    except ScheduleError:  # a zone gone from this machine's tzdata: no more runs
        return None
    if when is None:
        return None
    return math.ceil(off_peak.shift(when, schedule.off_peak, job.model, schedule.tz))


def claim_due(cron: CronStore, now: float, worker: str) -> list[Claim]:
    """Claim every job due at `now` that no other worker claimed first."""
    claims = []
    for job in cron.due(now):
        assert job.next_run is not None
        # strictly after the fire being claimed, whatever the clock says
        following = next_run(job, max(now, float(job.next_run)))
        claim = cron.claim(job, job.next_run, following, worker, now)
        if claim is not None:
            claims.append(claim)
    return claims
