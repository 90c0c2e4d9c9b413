"""`hermes cron ...` (the sub-app: cron_app.py): jobs in the store, changed here, fired by
a running `hermes gateway` (gateway/cron/)."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from agent.usage import usd
from frontend.config.settings import load_settings
from frontend.cron import control, listing
from frontend.setup import open_store, split_csv
from memory.cron import CronStore


def add(schedule: str, prompt: str, *, skills: str | None, allow: tuple[str, ...],
        **options: str | float | None) -> None:
    """`hermes cron add`: every check now, then the job; `options` are JobSpec fields."""
    from agent.cron.define import powers
    from agent.cron.targets import describe
    from frontend.cron.jobs import JobSpec, create
    from frontend.cron.run import workdir

    settings = load_settings()
    spec = JobSpec(schedule, prompt, skills=split_csv([skills]) if skills else (), allow=allow,
                   **options)  # type: ignore[arg-type]
    with open_store(settings) as store:
        cron = CronStore(store.handle)
        job = create(settings, cron, spec, cwd=Path.cwd())
        typer.echo(f"added job {job.name} (id {job.id}): {job.schedule} ({job.tz}), "
                   f"{job.model}, its answer to {describe(job.deliver)}; next run "
                   f"{listing.when(job.next_run, job.tz)}")
        then = (job.permissions or {}).get("created_in") or {}
        typer.echo(powers(str(workdir(settings.home, job)), job.daily_usd, allow,
                          sandboxed=bool(then.get("sandbox", True))))
        _say_scheduler(cron)


def list_jobs(runs_of: str | None) -> None:
    with open_store(load_settings()) as store:
        cron = CronStore(store.handle)
        if runs_of is None:
            typer.echo(listing.render(cron, cron.jobs()))
            _say_scheduler(cron)
            return
        job = control.find(cron, runs_of)
        for run in cron.runs(job.id):
            cost = "unknown" if run["cost_usd"] is None else usd(run["cost_usd"])
            typer.echo(f"run {run['id']}  {listing.when(run['started'], job.tz)}  {run['status']}"
                       f"  {cost}  session {run['session_id'] or '-'}"
                       f"{'  ' + run['error'] if run['error'] else ''}")


def _say_scheduler(cron: CronStore) -> None:
    """Whether the jobs will fire: a scheduler's lease in the store (memory/cron.py)."""
    if listing.scheduler(cron) is None:
        sys.stderr.write(f"hermes: {listing.NO_SCHEDULER}\n")


def status() -> None:
    """`hermes cron status`: the scheduler, the next fires, each job's last run."""
    with open_store(load_settings()) as store:
        typer.echo(listing.status(CronStore(store.handle)))


def change(action: str, ident: str) -> None:
    with open_store(load_settings()) as store:
        cron = CronStore(store.handle)
        job = control.find(cron, ident)
        done = {"remove": control.remove, "pause": control.pause,
                "resume": control.resume}[action](cron, job)
        typer.echo(done)


def run_now(ident: str) -> int:
    """Run the job in this process; a file target is written here, a chat target is left
    to the running gateway's delivery sweep."""
    from agent.cron.files import append
    from frontend.cron.run import run

    settings = load_settings()
    with open_store(settings) as store:
        cron = CronStore(store.handle)
        job = control.find(cron, ident)
        claim = control.manual(cron, job, "cli")
        result = run(settings, store, claim)
        if result.error:
            sys.stderr.write(f"hermes: job {job.name}: {result.status}: {result.error}\n")
        if result.status != "ok":
            return 0 if result.status == "silent" else 1
        typer.echo(result.text)
        if job.deliver.startswith("file:"):
            try:
                append(job.deliver[5:], result.text, job.name, job.tz, claim.due)
            except OSError as exc:
                sys.stderr.write(f"hermes: delivery to {job.deliver} refused: {exc}\n")
                cron.delivered(claim.run_id, False, 1, f"delivery to {job.deliver} failed: {exc}")
                return 1
            cron.delivered(claim.run_id, True, 1)
        elif job.deliver == "none":
            cron.delivered(claim.run_id, True, 0)
        else:
            sys.stderr.write(f"hermes: delivery to {job.deliver} is left to the running gateway\n")
        return 0
