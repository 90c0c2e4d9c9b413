"""Changing jobs: remove, pause, resume, and a manual run (`hermes cron run`) - the one
implementation behind the CLI, `/cron` and the agent's `cronjob` tool."""

from __future__ import annotations

import time

from agent.cron.due import next_run
from agent.errors import ConfigError
from memory.cron import Claim, CronStore, Job


def find(cron: CronStore, ident: str, owner: str | None = None, *, any_owner: bool = True) -> Job:
    """The job with id or name `ident` (of `owner` unless `any_owner`)."""
    job = cron.get(ident.strip())
    if job is None or (not any_owner and job.owner != owner):
        names = ", ".join(j.name for j in cron.jobs(owner, every_owner=any_owner)) or "none"
        raise ConfigError(f"no job {ident!r}", f"jobs: {names} (see `hermes cron list`)")
    return job


def remove(cron: CronStore, job: Job) -> str:
    cron.remove(job.id)
    return f"removed job {job.name} (id {job.id})"


def pause(cron: CronStore, job: Job) -> str:
    cron.set_paused(job.id, True, job.next_run)
    return f"paused job {job.name}"


def resume(cron: CronStore, job: Job, now: float | None = None) -> str:
    """Resume from now: fires missed while paused are not made up."""
    moment = time.time() if now is None else now
    cron.set_paused(job.id, False, next_run(job, moment))
    return f"resumed job {job.name}"


def manual(cron: CronStore, job: Job, worker: str, now: float | None = None) -> Claim:
    """A run now, outside the schedule (which stays as it is)."""
    moment = time.time() if now is None else now
    claim = cron.claim(job, int(moment), None, worker, moment, manual=True)
    assert claim is not None
    return claim
