"""The jobs as `hermes cron list`, `status` and `/cron` show them: next run, last result,
cost so far, and whether a scheduler runs for this home - one text for every front end."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from agent.cron.targets import describe
from agent.usage import usd
from memory.cron import CronStore, Job


def when(epoch: float | None, tz: str) -> str:
    if epoch is None:
        return "-"
    return datetime.fromtimestamp(epoch, UTC).astimezone(ZoneInfo(tz)).strftime("%Y-%m-%d %H:%M %Z")


def last_result(cron: CronStore, job: Job) -> str:
    runs = cron.runs(job.id, 1)
    if not runs:
        return "never ran"
    run = runs[0]
    status = str(run["status"])
    if status == "ok" and run["delivery"] and not run["delivered"]:
        status = "answered, not delivered yet" if run["attempts"] < 5 else "answered, delivery failed"
    error = f": {run['error']}" if run["error"] and status != "ok" else ""
    return f"{status}{error}"


def line(cron: CronStore, job: Job) -> str:
    state = "paused" if job.paused else f"next {when(job.next_run, job.tz)}"
    return (f"{job.id}  {job.name}  [{job.schedule}, {job.tz}]  {state}  -> {describe(job.deliver)}  "
            f"{job.model}  last: {last_result(cron, job)}  cost so far: {usd(cron.spent(job.id))}")


def render(cron: CronStore, jobs: list[Job]) -> str:
    if not jobs:
        return 'no scheduled jobs (add one: hermes cron add "0 8 * * 1-5" "summarise ...")'
    return "\n".join(line(cron, job) for job in jobs)


NO_SCHEDULER = ("no scheduler is running for this home: jobs fire only while `hermes gateway` "
                "runs (start it with `hermes gateway`, or `hermes gateway --no-api` for jobs "
                "and chats alone)")


def scheduler(cron: CronStore) -> str | None:
    """Which gateway workers schedule this home's jobs (None: none does; leases are on
    the wall clock)."""
    alive = cron.schedulers()
    if not alive:
        return None
    shown = ", ".join(f"{worker} (seen {seconds:.0f} s ago)" for worker, seconds in alive)
    return f"scheduler: running in gateway worker {shown}"


def status(cron: CronStore, now: float | None = None) -> str:
    """`hermes cron status`: the scheduler, the next fires, each job's last run."""
    moment = time.time() if now is None else now
    lines = [scheduler(cron) or f"scheduler: none. {NO_SCHEDULER}"]
    jobs = cron.jobs()
    if not jobs:
        return "\n".join([*lines, "no scheduled jobs"])
    upcoming = sorted((j for j in jobs if not j.paused and j.next_run is not None),
                      key=lambda j: j.next_run or 0)
    lines.append("next fires:" if upcoming else "next fires: none")
    for job in upcoming[:10]:
        assert job.next_run is not None
        lines.append(f"  {job.name}  {when(job.next_run, job.tz)}  ({_until(job.next_run - moment)})")
    lines.append("last runs:")
    for job in jobs:
        runs = cron.runs(job.id, 1)
        at = when(runs[0]["started"], job.tz) if runs else "-"
        lines.append(f"  {job.name}  {at}  {last_result(cron, job)}"
                     f"{'  (paused)' if job.paused else ''}")
    return "\n".join(lines)


def _until(seconds: float) -> str:
    if seconds <= 0:
        return "due now"
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"in {hours} h {minutes} min" if hours else f"in {minutes} min {secs} s"
