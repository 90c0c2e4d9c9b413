"""The jobs as `hermes cron list` and `/cron` show them: next run, last result, cost so
far - one text for every front end."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

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
    return (f"{job.id}  {job.name}  [{job.schedule}, {job.tz}]  {state}  -> {job.deliver}  "
            f"{job.model}  last: {last_result(cron, job)}  cost so far: {usd(cron.spent(job.id))}")


def render(cron: CronStore, jobs: list[Job]) -> str:
    if not jobs:
        return 'no scheduled jobs (add one: hermes cron add "0 8 * * 1-5" "summarise ...")'
    return "\n".join(line(cron, job) for job in jobs)
