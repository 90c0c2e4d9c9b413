"""Which fires a worker runs now: every due job claimed once (memory.cron's claim), its
next run moved past NOW so that fires missed while no gateway ran collapse into one."""

from __future__ import annotations

from agent.cron import off_peak
from agent.cron.cronexpr import ScheduleError
from agent.cron.schedule import Schedule, parse
from memory.cron import Claim, CronStore, Job


def schedule_of(job: Job) -> Schedule:
    """The job's stored schedule (canonical text, read back)."""
    return parse(job.schedule, job.tz, stored=True)


def next_run(job: Job, after: float) -> int | None:
    """The job's first fire strictly after `after` (whole seconds; None: no more)."""
    try:
        schedule = schedule_of(job)
        when = schedule.next_after(after, anchor=job.created)
    except ScheduleError:  # a zone gone from this machine's tzdata: no more runs
        return None
    if when is None:
        return None
    return int(off_peak.shift(when, schedule.off_peak, job.model, schedule.tz))


def claim_due(cron: CronStore, now: float, worker: str) -> list[Claim]:
    """Claim every job due at `now` that no other worker claimed first."""
    claims = []
    for job in cron.due(now):
        assert job.next_run is not None
        claim = cron.claim(job, job.next_run, next_run(job, now), worker, now)
        if claim is not None:
            claims.append(claim)
    return claims
